/**
 * The Host header, which absolute URLs (the `Link` header, `@vocab`, the API documentation) are built
 * from: it must be an RFC 3986 `host[:port]`, and, when the `trusted_hosts` setting lists patterns, its
 * host must match one of them (as Symfony's framework.trusted_hosts: case-insensitive regular
 * expressions, unanchored unless the pattern says `^…$`). Anything else answers 400 before it is used.
 */
import { badRequest } from './errors.js';

// reg-name (unreserved, pct-encoded, sub-delims; IPv4 addresses included) or an IP literal, then a port.
const REG_NAME = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+";
const IP_LITERAL = "\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[A-Za-z0-9\\-._~!$&'()*+,;=:]+)\\]";
const HOST_AND_PORT = new RegExp(`^(${REG_NAME}|${IP_LITERAL})(?::(\\d{1,5}))?$`);

/** The patterns of `trusted_hosts`, compiled once (the checker has refused invalid ones). */
export function trustedHostPatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => new RegExp(p, 'i'));
}

/** Throws a 400 when `host` (Koa's `ctx.host`: the Host header as sent) is not a usable, trusted host. */
export function checkHost(host: string, trusted: readonly RegExp[]): void {
  const match = HOST_AND_PORT.exec(host);
  if (match === null || (match[2] !== undefined && Number(match[2]) > 65535))
    throw badRequest(`Invalid Host "${host}".`);
  if (trusted.length > 0 && !trusted.some((pattern) => pattern.test(match[1])))
    throw badRequest(`Untrusted Host "${host}".`);
}
