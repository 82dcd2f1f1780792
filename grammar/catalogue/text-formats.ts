/**
 * Strings of a fixed shape (`{ kind: 'string', format }` in the catalogue): how each is written, how it is
 * described in messages and docs, and what it means. The checker, the runtime (rate limits: an interval in
 * seconds, trusted proxies as address ranges) and docs/options.md read them here.
 */
import { isIP } from 'node:net';
import type { TextFormat } from './types.js';

const SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600 };

/** `"N second(s)|minute(s)|hour(s)"` in seconds (`"1 minute"` → 60), or undefined when not written so. */
export function intervalSeconds(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,8}) (second|minute|hour)s?$/.exec(text.trim());
  return m ? Number(m[1]) * SECONDS[m[2]] : undefined;
}

/** An IP address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`): its address, family and prefix. */
export function ipRange(text: string): { address: string; family: 'ipv4' | 'ipv6'; prefix: number } | undefined {
  const [address, prefix, more] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || more !== undefined) return undefined;
  const bits = version === 4 ? 32 : 128;
  let length = bits;
  if (prefix !== undefined) length = /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(length >= 0 && length <= bits)) return undefined;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6', prefix: length };
}

/**
 * The named type of a GraphQL type reference (`[String!]!` → `String`), or undefined when the text is not one:
 * a name, possibly non-null (`!`), possibly in list brackets, nested.
 */
export function graphQlNamedType(text: string): string | undefined {
  let rest = text.trim();
  for (;;) {
    if (rest.endsWith('!')) rest = rest.slice(0, -1);
    if (!(rest.startsWith('[') && rest.endsWith(']'))) break;
    rest = rest.slice(1, -1);
  }
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(rest) ? rest : undefined;
}

export const TEXT_FORMATS: Record<TextFormat, { describe: string; plural: string; conforms(text: string): boolean }> = {
  interval: {
    describe: 'an interval "N second(s)|minute(s)|hour(s)"',
    plural: 'intervals "N second(s)|minute(s)|hour(s)"',
    conforms: (text) => intervalSeconds(text) !== undefined,
  },
  ipRange: {
    describe: 'an IP address or a CIDR range',
    plural: 'IP addresses or CIDR ranges',
    conforms: (text) => ipRange(text) !== undefined,
  },
  graphQlType: {
    describe: 'a GraphQL type reference (`String!`, `[ID]`, `Int`, …)',
    plural: 'GraphQL type references',
    conforms: (text) => graphQlNamedType(text) !== undefined,
  },
};
