/**
 * The two ways a GET is answered before the whole middleware chain (docs/architecture.md, "A request's path"),
 * each installed only under the one condition that makes it give the answer the chain would give:
 * - cache first: a hit of the in-process cache, before CORS, authentication and routing, where a request
 *   without `Authorization` or `Cookie` is surely anonymous (no custom authenticator, which may read any header);
 *   not the hits of a rate-limited operation, which its route counts before it answers them;
 * - direct routes: a GET of a path without placeholders, or a GET or POST of the GraphQL endpoint, handed to the
 *   route the router would pick for it, where nothing authenticates (every request is anonymous) and for a request
 *   without `Origin` (CORS would add `Vary: Origin` and nothing else; both are done here). The route's own checks
 *   (`host`, `schemes`) still run: a request they refuse goes down the chain, which routes it as always.
 */
import type { Context, Middleware, Next } from 'koa';
import type { ApiMetadata } from '../metadata/types.js';
import { ANONYMOUS } from '../security/access.js';
import { authenticates } from '../security/authenticate.js';
import { cacheKey, replay } from './cached-route.js';
import type { ResponseCache } from '../caching/response-cache.js';

/** Whether cache hits may be answered before authentication: nothing but missing credentials headers decides anonymity. */
export const answersHitsFirst = (api: ApiMetadata, cache: ResponseCache | undefined): boolean =>
  cache !== undefined && api.security.authenticator === undefined;

/** The cache-first middleware, or undefined where it would not be safe. */
export function cacheFirst(
  api: ApiMetadata,
  cache: ResponseCache | undefined,
  keyed: readonly string[],
): Middleware | undefined {
  if (!answersHitsFirst(api, cache)) return undefined;
  return (ctx: Context, next: Next): Promise<void> => {
    const key = cacheKey(ctx, keyed);
    const hit = key === undefined ? undefined : cache!.get(key);
    // A rate-limited operation's hit is left to its route, which counts it first.
    if (!hit || hit.counted) return next();
    replay(ctx, hit);
    return Promise.resolve();
  };
}

/** The direct-route middleware over `table` (router.ts `directTable`), or undefined where it would not be safe. */
export function directRoutes(
  api: ApiMetadata,
  table: Map<string, Map<string, Middleware>>,
  corsOn: boolean,
): Middleware | undefined {
  if (authenticates(api.security)) return undefined;
  return (ctx: Context, next: Next): Promise<void> => {
    const handler = table.get(ctx.method)?.get(ctx.path);
    if (handler === undefined || (corsOn && ctx.req.headers.origin !== undefined)) return next();
    if (corsOn) ctx.vary('Origin');
    ctx.state.principal = ANONYMOUS;
    ctx.params = {};
    return handler(ctx, next);
  };
}
