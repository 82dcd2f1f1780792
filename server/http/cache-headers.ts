/**
 * API Platform's `cacheHeaders` (docs/behaviour.md, "HTTP cache"): the Cache-Control, Vary and ETag of an
 * operation's successful GET/HEAD responses, each field of the operation's option over its `http_cache` default.
 * `s-maxage` is left out when the response is private, as API Platform does.
 */
import { optionValue, perOperation } from '../metadata/options.js';
import type { CacheHeaders } from '../metadata/types.js';

export interface ResolvedCacheHeaders {
  /** The Cache-Control value; undefined when nothing is configured. */
  cacheControl?: string;
  /** Request headers added to Vary (Accept is on every response already). */
  vary: string[];
  /** The Vary value once `vary` is added to what the response holds so far (each distinct value merged once). */
  varyAfter(current: string): string;
  etag: boolean;
}

/** At most this many distinct earlier Vary values are remembered per operation (in practice: with or without Origin). */
const MERGED_VARY_LIMIT = 16;

/** `current` with each of `names` added unless it is there already (compared case-insensitively), as `vary` does. */
function mergeVary(current: string, names: readonly string[]): string {
  const fields = current
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (fields.includes('*')) return '*';
  const seen = new Set(fields.map((f) => f.toLowerCase()));
  for (const name of names) {
    if (name === '*') return '*';
    if (!seen.has(name.toLowerCase())) {
      seen.add(name.toLowerCase());
      fields.push(name);
    }
  }
  return fields.join(', ');
}

export const cacheHeadersOf = perOperation((op, settings): ResolvedCacheHeaders => {
  const own: CacheHeaders = optionValue(op, 'cacheHeaders') ?? {};
  const defaults = settings.httpCache.headers;
  const field = <K extends keyof CacheHeaders>(name: K): CacheHeaders[K] => own[name] ?? defaults[name] ?? undefined;
  const directives: string[] = [];
  const isPublic = field('public');
  if (isPublic !== undefined) directives.push(isPublic ? 'public' : 'private');
  const maxAge = field('max_age');
  if (maxAge !== undefined) directives.push(`max-age=${maxAge}`);
  const shared = field('shared_max_age');
  if (shared !== undefined && isPublic !== false) directives.push(`s-maxage=${shared}`);
  const swr = field('stale_while_revalidate');
  if (swr !== undefined) directives.push(`stale-while-revalidate=${swr}`);
  const vary = field('vary') ?? [];
  const merged = new Map<string, string>();
  return {
    cacheControl: directives.length ? directives.join(', ') : undefined,
    vary,
    // Computed on every GET otherwise: parsing and rebuilding the header once per varied name.
    varyAfter: (current) => {
      let value = merged.get(current);
      if (value === undefined) {
        value = mergeVary(current, vary);
        if (merged.size < MERGED_VARY_LIMIT) merged.set(current, value);
      }
      return value;
    },
    etag: field('etag') !== false,
  };
});
