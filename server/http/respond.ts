/**
 * The response of an operation (docs/behaviour.md, "The request pipeline": Status): the status (runtime
 * `_api_response_status` > the operation's `status` > the method's default) and the
 * operation headers (Allow, Accept-Post, Accept-Patch, Location, Content-Location).
 */
import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { successStatus } from '../metadata/operation-facts.js';
import { optionValue } from '../metadata/options.js';
import type { OperationMetadata } from '../metadata/types.js';
import { jsonText } from '../pipeline/representation/json-text.js';
import { NDJSON_MEDIA_TYPE } from '../pipeline/bulk.js';
import { JSONAPI_MEDIA_TYPE } from '../pipeline/representation/jsonapi.js';
import { cacheHeadersOf, type ResolvedCacheHeaders } from './cache-headers.js';
import { responseTags } from './cache-tags.js';
import type { OperationState } from '../pipeline/state.js';

export function responseStatus(state: OperationState): number {
  const runtime = state.request.attributes.get('_api_response_status');
  if (typeof runtime === 'number' && Number.isInteger(runtime)) return runtime;
  return successStatus(state.operation, state);
}

/** `Allow`, `Accept-Post` and `Accept-Patch` of an operation, computed once per operation. */
export function routeHeaders(
  op: OperationMetadata,
  all: OperationMetadata[],
  formats: Record<string, string[]>,
  patchFormats: string[],
): Record<string, string> {
  const samePath = all.filter((o) => !o.hidden && o.path === op.path);
  const methods = ['OPTIONS', 'HEAD', ...new Set(samePath.map((o) => o.method))];
  const headers: Record<string, string> = { Allow: methods.join(', ') };
  if (samePath.some((o) => o.method === 'POST')) {
    const bulk = samePath.some((o) => o.method === 'POST' && optionValue(o, 'bulk') === true)
      ? [NDJSON_MEDIA_TYPE]
      : [];
    headers['Accept-Post'] = [...new Set(Object.values(formats).flat()), ...bulk].join(', ');
  }
  const hasPatch = op.resource.operations.some((o) => o.method === 'PATCH' && !o.hidden);
  if (hasPatch && !op.isCollection && patchFormats.length) headers['Accept-Patch'] = patchFormats.join(', ');
  return headers;
}

export function send(ctx: Context, state: OperationState, routeHeaderValues: Record<string, string>): void {
  const op = state.operation;
  const status = responseStatus(state);
  ctx.status = status;
  ctx.set(routeHeaderValues);
  const query = ctx.querystring ? `?${ctx.querystring}` : '';
  if (op.method === 'POST' && state.iri && (status === 201 || (status >= 300 && status < 400)))
    ctx.set('Location', state.iri);
  const located = op.isCollection ? state.collectionIri : state.iri;
  if (op.method !== 'GET' && op.method !== 'HEAD' && located)
    ctx.set('Content-Location', `${located}.${state.output.name}${query}`);
  const noBody =
    status === 204 ||
    status === 205 ||
    status === 304 ||
    state.body === undefined ||
    optionValue(op, state.api.settings, 'serialize') === false;
  if (noBody) {
    ctx.body = null;
    ctx.status = status; // Koa turns a null body into 204 unless the status is set again
    ctx.remove('Content-Type');
    return;
  }
  // JSON:API allows no media type parameter but ext and profile. Set as it is: Koa's `type` setter would look
  // the value up in its MIME table on every response.
  const mediaType = state.output.mediaType;
  ctx.set('Content-Type', mediaType === JSONAPI_MEDIA_TYPE ? mediaType : `${mediaType}; charset=utf-8`);
  const cacheable = (op.method === 'GET' || op.method === 'HEAD') && status === 200;
  const etag = cacheable && cachingHeaders(ctx, state);
  if (state.body instanceof Readable) {
    ctx.body = state.body;
    return;
  }
  // Encoded once: the hash, Content-Length and the socket all take these bytes.
  const bytes = Buffer.from(jsonText(state.body));
  // API Platform's default http_cache.etag: successful GET/HEAD carry an ETag of the body, and
  // a matching If-None-Match is answered 304.
  if (etag) {
    const tag = `"${hash('sha1', bytes, 'base64url')}"`; // one-shot: no Hash object per response
    ctx.set('ETag', tag);
    if (matchesEtag(ctx.get('if-none-match'), tag)) {
      ctx.status = 304;
      ctx.body = null;
      return;
    }
  }
  ctx.body = bytes;
}

/**
 * Cache-Control, Vary and the cache tags of a successful GET/HEAD (cache-headers.ts, cache-tags.ts);
 * returns whether the response gets an ETag.
 */
function cachingHeaders(ctx: Context, state: OperationState): boolean {
  const headers = cacheHeadersOf(state.operation, state.api.settings);
  if (headers.cacheControl) ctx.set('Cache-Control', headers.cacheControl);
  if (headers.vary.length) addVary(ctx, headers);
  const invalidation = state.api.settings.httpCache.invalidation;
  if (invalidation.enabled) {
    const tags = responseTags(state, true);
    if (tags.length) ctx.set(invalidation.tagsHeader, tags.join(','));
  }
  return headers.etag;
}

/** Earlier Vary values remembered per operation: in practice two (with or without CORS's `Origin`). */
const MERGED_VARY_LIMIT = 16;

/** The operation's `vary` added to the response's Vary by `ctx.vary`, once per distinct earlier value. */
function addVary(ctx: Context, headers: ResolvedCacheHeaders): void {
  const before = String(ctx.response.get('Vary'));
  const merged = headers.mergedVary.get(before);
  if (merged !== undefined) {
    ctx.set('Vary', merged);
    return;
  }
  for (const name of headers.vary) ctx.vary(name);
  if (headers.mergedVary.size < MERGED_VARY_LIMIT) headers.mergedVary.set(before, String(ctx.response.get('Vary')));
}

/**
 * RFC 9110 §13.1.2 (weak comparison). Evaluated by us rather than Koa's `ctx.fresh`, which
 * ignores a conditional request carrying `Cache-Control: no-cache` (as fetch() adds): an origin
 * server answers the condition all the same.
 */
export function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
