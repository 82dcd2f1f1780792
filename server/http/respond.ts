/**
 * An operation's result (pipeline/execute.ts: status, Location, Content-Location, the document) written to the
 * Koa response, with what belongs to HTTP alone: the route's headers (Allow, Accept-Post, Accept-Patch), the
 * caching headers, the ETag and 304 to a matching If-None-Match.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { optionValue } from '../metadata/options.js';
import type { OperationMetadata } from '../metadata/types.js';
import { jsonText } from '../pipeline/representation/json-text.js';
import { NDJSON_MEDIA_TYPE } from '../pipeline/bulk.js';
import type { OperationResult } from '../pipeline/execute.js';
import { etagOf } from '../pipeline/preconditions.js';
import { cacheHeadersOf, type ResolvedCacheHeaders } from './cache-headers.js';
import { responseTags } from '../caching/tags.js';
import type { OperationState } from '../pipeline/state.js';

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

/** Writes an operation's result (pipeline/execute.ts) to the Koa response, an error result included. */
export function send(ctx: Context, result: OperationResult, routeHeaderValues: Record<string, string>): void {
  if (result.error) return sendError(ctx, result.status, result.headers, result.body);
  ctx.status = result.status;
  ctx.set(routeHeaderValues);
  ctx.set(result.headers);
  const state = result.state!;
  if (result.body === undefined) {
    ctx.body = null;
    ctx.status = result.status; // Koa turns a null body into 204 unless the status is set again
    ctx.remove('Content-Type');
    return;
  }
  const op = state.operation;
  const cacheable = (op.method === 'GET' || op.method === 'HEAD') && result.status === 200;
  const etag = cacheable && cachingHeaders(ctx, state);
  if (result.body instanceof Readable) {
    ctx.body = result.body;
    return;
  }
  // Encoded once: the hash, Content-Length and the socket all take these bytes.
  const bytes = Buffer.from(jsonText(result.body));
  // API Platform's default http_cache.etag: successful GET/HEAD carry an ETag of the body, and
  // a matching If-None-Match is answered 304.
  if (etag) {
    const tag = etagOf(bytes); // a conditional write compares its If-Match with this (pipeline/preconditions.ts)
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
 * An error document (pipeline/error-response.ts) as the response: its status and own headers, no Location or
 * Content-Location of the operation, and the Link that marks a JSON-LD error.
 */
export function sendError(ctx: Context, status: number, headers: Record<string, string>, document: unknown): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.remove('Content-Location');
  ctx.remove('Location');
  ctx.append('Link', '<http://www.w3.org/ns/hydra/error>; rel="http://www.w3.org/ns/json-ld#error"');
  ctx.body = JSON.stringify(document);
}

/**
 * Cache-Control, Vary and the cache tags of a successful GET/HEAD (cache-headers.ts, server/caching/tags.ts);
 * returns whether the response gets an ETag.
 */
function cachingHeaders(ctx: Context, state: OperationState): boolean {
  const headers = cacheHeadersOf(state.operation, state.api);
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
