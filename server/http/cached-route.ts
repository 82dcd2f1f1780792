/**
 * Serving GETs from the in-process response cache (response-cache.ts). Only what is the same for every client
 * is kept (docs/behaviour.md, "HTTP cache"): anonymous requests without `Authorization` or `Cookie`, to operations
 * whose output depends on no user (no `security` expression, no property `security`) and whose data comes from
 * the store (no provider, processor or controller, whose results no write invalidates; no read of the search index,
 * which takes a write in only after the write returned). A hit of a rate-limited
 * operation is counted before it is answered (operation-route.ts), so it is never answered before routing.
 *
 * The key holds everything a response depends on besides the data: the URL (path and query), Host, Accept,
 * Origin (CORS headers) and every request header any cached operation varies on. So a key names one route and
 * one whole response, headers included, and a hit can be answered before routing (get-shortcuts.ts): the Host
 * was checked and the route matched when the entry was made, and a service whose only credentials are Bearer
 * JWTs knows a request without `Authorization` is anonymous.
 */
import type { Context } from 'koa';
import { OPTIONS } from '../../grammar/catalogue/index.js';
import { perOperation, writtenOption } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { readsIndex } from '../metadata/search-index.js';
import { cacheHeadersOf } from './cache-headers.js';
import { reachesScopedItems } from '../pipeline/scoped-members.js';
import type { CachedResponse } from '../caching/response-cache.js';
import { matchesEtag } from './respond.js';

/** The access options (`security…` and their messages): with any of them written, an answer may depend on the user. */
const SECURITY_OPTIONS = OPTIONS.filter((o) => o.name.startsWith('security')).map((o) => o.name);

export const cacheableOperation = perOperation(
  (op: OperationMetadata, api: ApiMetadata): boolean =>
    op.method === 'GET' &&
    !op.provider &&
    !op.processor &&
    !op.controller &&
    !readsIndex(op, undefined) &&
    !SECURITY_OPTIONS.some((name) => writtenOption(op, name) !== undefined) &&
    // A scope may read any request value (a header too), which no key holds: its pages are never kept.
    writtenOption(op, 'scope') === undefined &&
    // Nor those whose related items (listed, embedded) are read through a scope (docs/scopes.md).
    !reachesScopedItems(api, op.resource) &&
    !op.resource.properties.some((p) => p.security || p.securityPostDenormalize),
);

/** The request headers every key holds: the ones any cacheable operation varies on, besides Accept and Origin. */
export function keyedHeaders(operations: OperationMetadata[], api: ApiMetadata): string[] {
  const names = operations
    .filter((op) => cacheableOperation(op, api))
    .flatMap((op) => cacheHeadersOf(op, api).vary.map((name) => name.toLowerCase()));
  return [...new Set(names)].filter((name) => name !== 'accept' && name !== 'origin');
}

/**
 * The key of an anonymous GET whose response may be cached, or undefined when it may not. Header values hold
 * no line feed (Node refuses them), so one joins the parts without ambiguity.
 */
export function cacheKey(ctx: Context, keyed: readonly string[]): string | undefined {
  const headers = ctx.req.headers;
  if (ctx.method !== 'GET' || headers.authorization !== undefined || headers.cookie !== undefined) return undefined;
  let key = `${ctx.url}\n${headers.host ?? ''}\n${headers.accept ?? ''}\n${headers.origin ?? ''}`;
  for (const name of keyed) key += `\n${headers[name] ?? ''}`;
  return key;
}

/** Answers from a cached entry, 304 when the client's If-None-Match holds its ETag. */
export function replay(ctx: Context, entry: CachedResponse): void {
  ctx.status = 200;
  for (const name in entry.headers) ctx.res.setHeader(name, entry.headers[name]);
  const etag = entry.headers.etag;
  if (typeof etag === 'string' && matchesEtag(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  ctx.body = entry.body;
}

/** Response headers Node or Koa write for each response themselves. */
const NOT_KEPT = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The entry of a response just sent (every header it has so far), or undefined when it is not a whole 200 body. */
export function entryOf(ctx: Context, tags: string[]): CachedResponse | undefined {
  if (ctx.status !== 200 || !Buffer.isBuffer(ctx.body)) return undefined;
  const headers: Record<string, string | string[]> = {};
  const sent = ctx.response.headers;
  for (const name in sent) {
    const value = sent[name];
    if (!NOT_KEPT.has(name) && value !== undefined) headers[name] = typeof value === 'number' ? String(value) : value;
  }
  return { headers, body: ctx.body, tags };
}
