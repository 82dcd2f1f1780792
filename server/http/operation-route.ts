/**
 * The Koa route of one operation: the router's match checked against what the router cannot express (router.ts),
 * the request described for the pipeline's entry (pipeline/execute.ts), its result written (respond.ts), the
 * hub announced, and the response kept in the in-process cache where it may be (cached-route.ts). A hit of a
 * rate-limited operation is answered here, never before routing, once the pipeline's entry counted it.
 */
import type { Context, Next } from 'koa';
import type { OperationMetadata } from '../metadata/types.js';
import { admitRequest, executeOperation, type OperationRequest } from '../pipeline/execute.js';
import type { Runtime } from '../pipeline/runtime.js';
import { parseQuery } from '../protocol/query.js';
import { ANONYMOUS, type Principal } from '../security/access.js';
import { responseTags } from '../caching/tags.js';
import { cacheKey, entryOf, replay } from './cached-route.js';
import { readBody } from './request-body.js';
import { send } from './respond.js';
import type { CachedResponse, ResponseCache } from '../caching/response-cache.js';
import type { RouteMatcher } from './router.js';

/** `http://host:port` of the request, from its own Host header (absolute links use it); made once a request. */
export const originOf = (ctx: Context): string =>
  ((ctx.state.origin as string | undefined) ??= `${ctx.protocol}://${ctx.host}`);

export interface RouteSetup {
  runtime: Runtime;
  matcher: RouteMatcher;
  /** Allow, Accept-Post, Accept-Patch (respond.ts `routeHeaders`). */
  headers: Record<string, string>;
  /** Adds the hub's Link header when the operation's resource publishes. */
  announceHub(ctx: Context): void;
  /** The in-process cache, when this operation's responses may be kept in it. */
  cache?: ResponseCache;
  /** The request headers every cache key holds. */
  keyed: readonly string[];
  /** Whether a hit was already answered before routing (get-shortcuts.ts): then the route only fills the cache. */
  hitsAnsweredFirst: boolean;
  /** The operation is rate-limited: each hit is counted (and may be refused) before it is answered, by this route. */
  limited: boolean;
}

export function operationRoute(op: OperationMetadata, setup: RouteSetup) {
  const { runtime, matcher, headers, cache, keyed, limited } = setup;
  const bodyLimit = runtime.api.settings.bodySizeLimit;
  /** A hit of a rate-limited operation: counted first, then answered with the count's own headers, or refused. */
  const countedReplay = async (ctx: Context, hit: CachedResponse, request: OperationRequest): Promise<void> => {
    const admitted = await admitRequest(runtime, op, request);
    if ('refused' in admitted) return send(ctx, admitted.refused, headers);
    replay(ctx, hit);
    ctx.set(admitted.headers);
  };
  return async (ctx: Context, next: Next): Promise<void> => {
    const { _format: extension, ...params } = ctx.params as Record<string, string>;
    if (!matcher.accepts(ctx, params)) return next();
    const key = cache && ctx.state.principal === ANONYMOUS ? cacheKey(ctx, keyed) : undefined;
    const hit = key !== undefined && (limited || !setup.hitsAnsweredFirst) ? cache!.get(key) : undefined;
    if (hit)
      return limited ? countedReplay(ctx, hit, operationRequest(ctx, params, extension, bodyLimit)) : replay(ctx, hit);
    const began = cache?.begin() ?? 0;
    const result = await executeOperation(runtime, op, operationRequest(ctx, params, extension, bodyLimit));
    send(ctx, result, headers);
    if (result.error) return;
    setup.announceHub(ctx);
    const entry = key !== undefined ? entryOf(ctx, responseTags(result.state!, false)) : undefined;
    if (entry) cache!.set(key!, began, limited ? { ...entry, counted: true } : entry);
  };
}

/** A Koa request as the pipeline's entry takes it. */
function operationRequest(
  ctx: Context,
  uriVariables: Record<string, string>,
  extension: string | undefined,
  bodyLimit: number,
): OperationRequest {
  return {
    method: ctx.method,
    path: ctx.path,
    query: parseQuery(ctx.querystring),
    queryString: ctx.querystring,
    uriVariables,
    extension,
    headers: ctx.headers,
    body: () => readBody(ctx, bodyLimit),
    principal: ctx.state.principal as Principal,
    origin: originOf(ctx),
    peer: ctx.req.socket.remoteAddress,
  };
}
