/**
 * Query strings as API Platform reads and writes them: bracket keys parsed like PHP
 * (`order[id]=desc` → { order: { id: 'desc' } }, by `qs`), and links rebuilt from the
 * request's parameters with top-level keys sorted, RFC 3986 encoding, and the page parameter
 * last (docs/behaviour.md, "Collections and pagination").
 */
import qs from 'qs';

export type QueryParams = Record<string, unknown>;

const QS_OPTIONS = { depth: 5, parameterLimit: 1000, arrayLimit: 100 } as const;

/** Brackets, literal or percent-encoded: only then does a query need qs's nested parsing. */
const BRACKETS = /[[\]]|%5[bd]/i;

export function parseQuery(search: string): QueryParams {
  const query = search.replace(/^\?/, '');
  return BRACKETS.test(query) ? (qs.parse(query, QS_OPTIONS) as QueryParams) : parseFlat(query);
}

/**
 * Query parameters an adapter without URLs gives (GraphQL's filter arguments, MCP's query arguments): name and
 * value pairs, names in the query's syntax (`title`, `title[]`, `order[title]`), as `parseQuery` reads them from a
 * query string, with no text in between. qs parses an object of such keys as it parses the keys of a string.
 */
export function queryOf(pairs: Iterable<readonly [string, string]>): QueryParams {
  const keyed: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  let brackets = false;
  let count = 0;
  for (const [name, value] of pairs) {
    if (++count > QS_OPTIONS.parameterLimit) break;
    brackets ||= name.includes('[') || name.includes(']');
    keyed[name] = name in keyed ? ([] as string[]).concat(keyed[name], value) : value;
  }
  if (brackets) return qs.parse(keyed as Record<string, string>, QS_OPTIONS) as QueryParams;
  const out: QueryParams = {};
  for (const name of Object.keys(keyed))
    if (name !== '' && !Object.hasOwn(Object.prototype, name)) out[name] = keyed[name];
  return out;
}

/**
 * What qs.parse gives for a query without brackets (test/protocol/query.test.ts compares the two on random
 * strings), at a fraction of its cost on every request: `+` is a space, undecodable escapes stay as
 * they are, a key without `=` is '', repeated keys make arrays, empty keys and the names of
 * Object.prototype's properties are dropped, and parameters past the 1,000th are ignored.
 */
function parseFlat(query: string): QueryParams {
  const out: QueryParams = {};
  if (query === '') return out;
  for (const part of query.split('&', QS_OPTIONS.parameterLimit)) {
    const eq = part.indexOf('=');
    const key = decodeComponent(eq === -1 ? part : part.slice(0, eq));
    if (key === '' || Object.hasOwn(Object.prototype, key)) continue;
    const value = eq === -1 ? '' : decodeComponent(part.slice(eq + 1));
    out[key] = Object.hasOwn(out, key) ? ([] as unknown[]).concat(out[key], value) : value;
  }
  return out;
}

function decodeComponent(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * `path?k=v&…` with the given parameters (sorted by top-level key unless `sort` is false),
 * then `extra` appended in order.
 */
export function buildLink(
  path: string,
  params: QueryParams,
  extra: [string, string | number][] = [],
  sort = true,
): string {
  const keys = Object.keys(params);
  let query = extra.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');
  // Most links carry no other parameter (a page of a collection without filters): qs only when there are some.
  if (keys.length > 0) {
    const sorted: QueryParams = {};
    for (const key of sort ? keys.sort() : keys) sorted[key] = params[key];
    const others = qs.stringify(sorted, { format: 'RFC3986', arrayFormat: 'brackets' });
    if (others !== '') query = query === '' ? others : `${others}&${query}`;
  }
  return query ? `${path}?${query}` : path;
}

/** The parameters without some keys (e.g. the page parameter). */
export function without(params: QueryParams, ...keys: string[]): QueryParams {
  // Copied key by key rather than spread then deleted: an object that lost keys turns slow to read.
  const out: QueryParams = {};
  for (const k of Object.keys(params)) if (!keys.includes(k)) out[k] = params[k];
  return out;
}

/** PHP's FILTER_VALIDATE_BOOLEAN: 1/true/on/yes are true, anything else false. */
export const phpBool = (value: unknown): boolean =>
  typeof value === 'string' && ['1', 'true', 'on', 'yes'].includes(value.trim().toLowerCase());

/**
 * PHP's (int) cast of a query value: leading whitespace and sign, then digits (`2abc` → 2,
 * `abc` → 0, `1.9` → 1). Returns a bigint so that values past 2^53 stay exact.
 */
export function phpInt(value: unknown): bigint {
  const m = typeof value === 'string' ? /^\s*([+-]?\d+)/.exec(value) : null;
  return m ? BigInt(m[1]) : 0n;
}
