/**
 * The Koa route of one operation: the router's match checked against what the router cannot express (router.ts),
 * the request described for the pipeline's entry (pipeline/execute.ts), its result written (respond.ts), the
 * hub announced, and the response kept in the in-process cache where it may be (cached-route.ts).
 */
import type { Context, Next } from 'koa';
import type { OperationMetadata } from '../metadata/types.js';
import { executeOperation, type OperationRequest } from '../pipeline/execute.js';
import type { Runtime } from '../pipeline/state.js';
import { ANONYMOUS, type Principal } from '../security/access.js';
import { responseTags } from './cache-tags.js';
import { cacheKey, entryOf, replay } from './cached-route.js';
import { readBody } from './request-body.js';
import { send } from './respond.js';
import type { ResponseCache } from './response-cache.js';
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
}

export function operationRoute(op: OperationMetadata, setup: RouteSetup) {
  const { runtime, matcher, headers, cache, keyed } = setup;
  const bodyLimit = runtime.api.settings.bodySizeLimit;
  return async (ctx: Context, next: Next): Promise<void> => {
    const { _format: extension, ...params } = ctx.params as Record<string, string>;
    if (!matcher.accepts(ctx, params)) return next();
    const key = cache && ctx.state.principal === ANONYMOUS ? cacheKey(ctx, keyed) : undefined;
    const hit = key !== undefined && !setup.hitsAnsweredFirst ? cache!.get(key) : undefined;
    if (hit) return replay(ctx, hit);
    const began = cache?.begin() ?? 0;
    const result = await executeOperation(runtime, op, operationRequest(ctx, params, extension, bodyLimit));
    send(ctx, result, headers);
    if (result.error) return;
    setup.announceHub(ctx);
    const entry = key !== undefined ? entryOf(ctx, responseTags(result.state!, false)) : undefined;
    if (entry) cache!.set(key!, began, entry);
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
    queryString: ctx.querystring,
    uriVariables,
    extension,
    headers: ctx.headers,
    body: () => readBody(ctx, bodyLimit),
    principal: ctx.state.principal as Principal,
    origin: originOf(ctx),
  };
}
