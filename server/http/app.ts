/**
 * The Koa application of an API, assembled from its parts (docs/architecture.md, "A request's path"): the request
 * log, the GET shortcuts (get-shortcuts.ts), the common headers and error documents (every-response.ts), CORS,
 * authentication, one route per operation (operation-route.ts), the document routes, the Mercure hub, the admin
 * (admin-page.ts), the GraphQL endpoint (graphql-route.ts), the MCP endpoint (mcp-route.ts), and what no route takes (unrouted.ts).
 */
import Koa, { type Middleware } from 'koa';
import type { OperationMetadata } from '../metadata/types.js';
import { rateLimitOf } from '../metadata/rate-limit.js';
import { RATE_LIMIT_HEADERS } from '../pipeline/rate-limit.js';
import type { Runtime } from '../pipeline/runtime.js';
import { mountAdmin } from './admin-page.js';
import { authentication } from './authentication.js';
import { cacheableOperation, keyedHeaders } from './cached-route.js';
import { corsMiddleware } from './cors.js';
import { registerDocumentRoutes } from './document-routes.js';
import { everyResponse } from './every-response.js';
import { answersHitsFirst, cacheFirst, directRoutes } from './get-shortcuts.js';
import { mountSdk } from './sdk-route.js';
import { hubAnnouncement, mountHub } from './mercure-hub.js';
import { operationRoute } from './operation-route.js';
import { requestLog } from './request-log.js';
import { routeHeaders } from './respond.js';
import type { ResponseCache } from '../caching/response-cache.js';
import {
  directTable,
  newRouter,
  routeMatcher,
  routeOrder,
  routerPath,
  routeTemplates,
  type Endpoint,
} from './router.js';
import { unrouted } from './unrouted.js';

export async function createApp(runtime: Runtime, cache: ResponseCache | undefined): Promise<Koa> {
  const { api, logger } = runtime;
  const operations = api.resources.flatMap((r) => r.operations);
  const matchers = new Map(operations.map((o) => [o, routeMatcher(o)]));
  const keyed = keyedHeaders(operations, api);
  const hitsAnsweredFirst = answersHitsFirst(api, cache);

  const router = newRouter();
  const handlers = new Map<Middleware, OperationMetadata>();
  for (const op of routeOrder(operations)) {
    const handler = operationRoute(op, {
      runtime,
      matcher: matchers.get(op)!,
      headers: routeHeaders(op, operations, api.settings.formats, api.settings.patchFormats),
      announceHub: hubAnnouncement(runtime, op),
      cache: cache && cacheableOperation(op, api) ? cache : undefined,
      keyed,
      hitsAnsweredFirst,
      limited: rateLimitOf(op, api.settings) !== undefined,
    });
    handlers.set(handler, op);
    router.register(routeTemplates(op).map(routerPath), [op.method], handler);
  }
  registerDocumentRoutes(router, api, logger);
  mountHub(router, runtime);
  mountAdmin(router, api);
  // Imported only for a file that enables them: their libraries (graphql, the MCP SDK) would make up a good part
  // of every start.
  const endpoints: Endpoint[] = [];
  if (api.settings.graphql.enabled)
    endpoints.push(...(await import('./graphql-route.js')).mountGraphQl(router, runtime));
  if (api.settings.mcp.enabled) (await import('./mcp-route.js')).mountMcp(router, runtime);
  if (api.settings.client.serve) mountSdk(router, api);

  const app = new Koa({ proxy: false });
  app.silent = true;
  const limited = operations.some((op) => rateLimitOf(op, api.settings) !== undefined);
  const cors = corsMiddleware(api.settings.cors, limited ? RATE_LIMIT_HEADERS : []);
  const layers: (Middleware | undefined)[] = [
    // In this order: each one runs before the ones below it.
    requestLog(logger),
    cacheFirst(api, cache, keyed),
    everyResponse(api, logger, runtime.debug),
    directRoutes(api, directTable(router, handlers, endpoints), cors !== undefined),
    cors,
    authentication(api, logger),
    router.routes() as Middleware,
    unrouted(router, operations, matchers),
  ];
  for (const layer of layers) if (layer) app.use(layer);
  return app;
}
