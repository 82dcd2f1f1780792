/**
 * API Platform's `cacheHeaders` (docs/behaviour.md, "HTTP cache"): the Cache-Control, Vary and ETag of an
 * operation's successful GET/HEAD responses, each field of the operation's option over its `http_cache` default.
 * `s-maxage` is left out when the response is private, as API Platform does; a scoped operation's always is.
 */
import { optionValue, perOperation } from '../metadata/options.js';
import type { ApiMetadata, CacheHeaders } from '../metadata/types.js';
import { reachesScopedItems } from '../pipeline/scoped-members.js';

export interface ResolvedCacheHeaders {
  /** The Cache-Control value; undefined when nothing is configured. */
  cacheControl?: string;
  /** Request headers added to Vary (Accept is on every response already). */
  vary: string[];
  /**
   * The Vary value respond.ts made from each earlier value (what the common headers and CORS set) by adding
   * `vary` with Koa's `ctx.vary`: a response reuses it instead of parsing the header again per varied name.
   */
  mergedVary: Map<string, string>;
  etag: boolean;
}

export const cacheHeadersOf = perOperation((op, api: ApiMetadata): ResolvedCacheHeaders => {
  const own: CacheHeaders = optionValue(op, 'cacheHeaders') ?? {};
  const defaults = api.settings.httpCache.headers;
  const field = <K extends keyof CacheHeaders>(name: K): CacheHeaders[K] => own[name] ?? defaults[name] ?? undefined;
  const directives: string[] = [];
  // A scoped operation's page, or one showing related items read through a scope, differs from one user to the
  // next: no shared cache may keep it (docs/scopes.md).
  const scoped = optionValue(op, 'scope') !== undefined || reachesScopedItems(api, op.resource);
  const isPublic = scoped ? false : field('public');
  if (isPublic !== undefined) directives.push(isPublic ? 'public' : 'private');
  const maxAge = field('max_age');
  if (maxAge !== undefined) directives.push(`max-age=${maxAge}`);
  const shared = field('shared_max_age');
  if (shared !== undefined && isPublic !== false) directives.push(`s-maxage=${shared}`);
  const swr = field('stale_while_revalidate');
  if (swr !== undefined) directives.push(`stale-while-revalidate=${swr}`);
  return {
    cacheControl: directives.length ? directives.join(', ') : undefined,
    vary: field('vary') ?? [],
    mergedVary: new Map(),
    etag: field('etag') !== false,
  };
});
