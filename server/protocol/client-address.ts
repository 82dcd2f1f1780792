/**
 * The client's address (docs/behaviour.md, "Rate limits"): the peer's, unless the peer is a trusted reverse
 * proxy; then `X-Forwarded-For` is walked from the right (each proxy appends the address it received from) past
 * the trusted proxies, and the first address no trusted proxy holds is the client. A header from any other peer
 * is ignored: a client may write anything there.
 */
import { BlockList, isIP } from 'node:net';
import { ipRange } from '../../grammar/catalogue/index.js';

/** Whether an address belongs to a trusted proxy. */
export type TrustedProxies = (address: string) => boolean;

/** `::ffff:10.0.0.1` (an IPv4 peer of a dual-stack socket) as `10.0.0.1`; other text as given, trimmed. */
export function plainAddress(address: string): string {
  const text = address.trim();
  return text.startsWith('::ffff:') && isIP(text.slice(7)) === 4 ? text.slice(7) : text;
}

/** The matcher of `rate_limit.trusted_proxies` (addresses and CIDR ranges the checker accepted). */
export function trustedProxies(ranges: readonly string[]): TrustedProxies {
  if (ranges.length === 0) return () => false;
  const list = new BlockList();
  for (const text of ranges) {
    const range = ipRange(text);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return (address) => {
    const version = isIP(address);
    return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}

/** The client's address, from the peer's and the request's `X-Forwarded-For` (its values, in order). */
export function clientAddress(
  peer: string,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  const direct = plainAddress(peer);
  if (forwardedFor === undefined || !trusted(direct)) return direct;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map(plainAddress);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (hops[i] === '') continue;
    if (i === 0 || !trusted(hops[i])) return hops[i];
  }
  return direct;
}
