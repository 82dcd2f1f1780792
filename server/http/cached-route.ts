/**
 * Serving GETs from the in-process response cache (response-cache.ts). Only what is the same for every client
 * is kept (docs/behaviour.md, "HTTP cache"): anonymous requests without `Authorization` or `Cookie`, to operations
 * whose output depends on no user (no `security` expression, no property `security`) and whose data comes from
 * the store (no provider, processor or controller, whose results no write invalidates). The key holds everything
 * that changes the representation: the URL (path and query), Host, Accept and every header the response varies on.
 */
import type { Context } from 'koa';
import { OPTIONS } from '../../grammar/catalogue/index.js';
import { perOperation, writtenOption } from '../metadata/options.js';
import type { OperationMetadata, Settings } from '../metadata/types.js';
import { ANONYMOUS } from '../security/access.js';
import { cacheHeadersOf } from './cache-headers.js';
import type { CachedResponse } from './response-cache.js';
import { matchesEtag } from './respond.js';

/** Response headers a cached entry replays (the ones the operation's route sets; the rest every response gets). */
const KEPT = ['content-type', 'etag', 'allow', 'accept-post', 'accept-patch', 'cache-control'];

/** The access options (`security…` and their messages): with any of them written, an answer may depend on the user. */
const SECURITY_OPTIONS = OPTIONS.filter((o) => o.name.startsWith('security')).map((o) => o.name);

export const cacheableOperation = perOperation(
  (op: OperationMetadata): boolean =>
    op.method === 'GET' &&
    !op.provider &&
    !op.processor &&
    !op.controller &&
    !SECURITY_OPTIONS.some((name) => writtenOption(op, name) !== undefined) &&
    !op.resource.properties.some((p) => p.security || p.securityPostDenormalize),
);

/** The key of a request whose response may be cached, or undefined when it may not. */
export function cacheKey(ctx: Context, op: OperationMetadata, settings: Settings): string | undefined {
  const headers = ctx.req.headers;
  if (
    ctx.method !== 'GET' ||
    headers.authorization !== undefined ||
    headers.cookie !== undefined ||
    ctx.state.principal !== ANONYMOUS
  )
    return undefined;
  const varied = cacheHeadersOf(op, settings).vary.map((name) => headers[name.toLowerCase()] ?? '');
  return JSON.stringify([ctx.url, headers.host ?? '', headers.accept ?? '', ...varied]);
}

/** Answers from a cached entry, 304 when the client's If-None-Match holds its ETag. */
export function replay(ctx: Context, entry: CachedResponse, op: OperationMetadata, settings: Settings): void {
  ctx.status = 200;
  ctx.set(entry.headers);
  // Vary is added to, as the operation's response does (CORS may have added Origin).
  for (const name of cacheHeadersOf(op, settings).vary) ctx.vary(name);
  const etag = entry.headers.etag;
  if (etag && matchesEtag(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  ctx.body = entry.body;
}

/** The entry of a response just sent, or undefined when it is not a whole 200 body. */
export function entryOf(ctx: Context, tags: string[], tagsHeader: string | undefined): CachedResponse | undefined {
  if (ctx.status !== 200 || !Buffer.isBuffer(ctx.body)) return undefined;
  const headers: Record<string, string> = {};
  for (const name of tagsHeader ? [...KEPT, tagsHeader.toLowerCase()] : KEPT) {
    const value = ctx.response.get(name);
    if (value) headers[name] = value;
  }
  return { headers, body: ctx.body, tags };
}
