/**
 * The Koa application of an API: headers every response carries, errors turned into their
 * documents, CORS, one route per operation running the pipeline, the entrypoint and contexts,
 * 204 to a plain OPTIONS on a known path and 404/405 for what no route takes.
 */
import Koa, { type Context, type Middleware, type Next } from 'koa';
import type { Logger } from 'pino';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { optionValue } from '../metadata/options.js';
import { runPipeline } from '../pipeline/chain.js';
import type { OperationState } from '../pipeline/state.js';
import { ANONYMOUS, principalOf, type Principal } from '../security/access.js';
import { authenticate, authenticates } from '../security/authenticate.js';
import { storageSpec } from '../pipeline/representation/rendering.js';
import { deleteTransaction, type Transaction } from '../pipeline/relations/referential-actions.js';
import {
  errorDocument as jsonApiErrorDocument,
  JSONAPI_FORMAT,
  JSONAPI_MEDIA_TYPE,
} from '../pipeline/representation/jsonapi.js';
import { constraintViolationDocument } from '../pipeline/validation/violations.js';
import type { Collection, Store } from '../store/types.js';
import { corsMiddleware } from './cors.js';
import { heldBack, InvalidatingCollection, invalidation } from './cache-invalidation.js';
import { responseTags } from './cache-tags.js';
import { cacheableOperation, cachedResponses, cacheKey, entryOf, keyedHeaders, replay } from './cached-route.js';
import { purger } from './purgers.js';
import { ResponseCache } from './response-cache.js';
import { onPeerWrite } from '../cluster/invalidation.js';
import { startAsyncRuntime } from './async-runtime.js';
import { HUB_PATH } from '../realtime/hub.js';
import { contextDocument, entrypoint } from './documents.js';
import { hydraDocumentation } from './hydra-docs.js';
import { registerDocumentation } from './docs-html.js';
import { HttpError, notFound } from '../protocol/errors.js';
import { fillTemplate, fromRecord } from '../protocol/iri.js';
import { errorFlavour, negotiateOutput } from '../protocol/negotiation.js';
import { errorDocument, errorResource, errorResourcePage } from '../protocol/problem.js';
import { parseQuery } from '../protocol/query.js';
import { jsonApiQuery } from '../pipeline/representation/jsonapi-query.js';
import { checkHost, trustedHostPatterns } from '../protocol/host.js';
import { readBody, settleUnreadBody } from './request-body.js';
import { routeHeaders, send } from './respond.js';
import {
  newRouter,
  routeMatcher,
  routeOrder,
  routerPath,
  routeTemplates,
  staticGetRoutes,
  type RouteMatcher,
} from './router.js';

export interface AppOptions {
  logger: Logger;
  /** Include stack traces of unexpected errors in 500 responses. */
  debug?: boolean;
}

const DOCS_REL = 'http://www.w3.org/ns/hydra/core#apiDocumentation';

/** `http://host:port` of the request, from its own Host header (absolute links use it); made once a request. */
const originOf = (ctx: Context): string =>
  ((ctx.state.origin as string | undefined) ??= `${ctx.protocol}://${ctx.host}`);

export async function createApp(api: ApiMetadata, store: Store, options: AppOptions): Promise<Koa> {
  const httpCache = api.settings.httpCache;
  const cache = httpCache.inProcessMaxBytes > 0 ? new ResponseCache(httpCache.inProcessMaxBytes) : undefined;
  const purge = purger(httpCache.invalidation, options.logger);
  // Only when something caches: otherwise writes pay nothing.
  const invalidate = cache || purge ? invalidation(cache, purge) : undefined;
  if (cache) onPeerWrite((tags) => cache.invalidate(tags));
  const collections = new Map<string, Collection>();
  for (const r of api.resources) {
    const collection = await store.collection(storageSpec(r));
    collections.set(r.shortName, invalidate ? new InvalidatingCollection(collection, r, invalidate) : collection);
  }
  const operations = api.resources.flatMap((r) => r.operations);
  const matchers = new Map<OperationMetadata, RouteMatcher>(operations.map((o) => [o, routeMatcher(o)]));
  const inStore = deleteTransaction(store);
  const transaction: Transaction | undefined = inStore && ((run) => heldBack(invalidate, () => inStore(run)));
  const runtime = startAsyncRuntime(api, store, collections, options.logger, transaction);

  const keyed = keyedHeaders(operations, api.settings);
  // A hit is answered before CORS, authentication and routing where a request without credentials headers is
  // surely anonymous (cached-route.ts); else the route looks the cache up once the user is known.
  const answersHitsFirst = cache !== undefined && api.security.authenticator === undefined;

  const router = newRouter();
  const operationPaths = new Set<string | RegExp>(operations.map((o) => routerPath(o.path)));
  const handlers = new Map<Middleware, OperationMetadata>();
  for (const op of routeOrder(operations)) {
    const headers = routeHeaders(op, operations, api.settings.formats, api.settings.patchFormats);
    const matcher = matchers.get(op)!;
    const cached = cache && cacheableOperation(op, api.settings) ? cache : undefined;
    const handler = async (ctx: Context, next: Next): Promise<void> => {
      const { _format: extension, ...params } = ctx.params as Record<string, string>;
      if (!matcher.accepts(ctx, params)) return next();
      const key = cached && ctx.state.principal === ANONYMOUS ? cacheKey(ctx, keyed) : undefined;
      const hit = key !== undefined && !answersHitsFirst ? cached!.get(key) : undefined;
      if (hit) return replay(ctx, hit);
      const began = cached?.begin() ?? 0;
      const state = newState(ctx, api, op, collections, transaction, params, extension, options.logger);
      await runPipeline(state);
      send(ctx, state, headers);
      runtime.announceHub(ctx, op);
      const entry = key !== undefined ? entryOf(ctx, responseTags(state, false)) : undefined;
      if (entry) cached!.set(key!, began, entry);
    };
    handlers.set(handler, op);
    router.register(routeTemplates(op).map(routerPath), [op.method], handler);
  }
  router.get('/', (ctx) => sendDocument(ctx, entrypoint(api)));
  router.get('/index.:format', (ctx) => sendDocument(ctx, entrypoint(api), ctx.params.format));
  router.get('/docs.jsonld', (ctx) => sendDocument(ctx, hydraDocumentation(api, originOf(ctx)), 'jsonld'));
  // `/docs.json` (OpenAPI), `/docs` (HTML, OpenAPI or Hydra by Accept) and the HTML reference's assets.
  registerDocumentation(router, api, (ctx) => hydraDocumentation(api, originOf(ctx)), options.logger);
  router.get('/contexts/:name{.:format}', (ctx) => {
    const doc = contextDocument(api, ctx.params.name, originOf(ctx));
    if (!doc) throw notFound();
    sendDocument(ctx, doc, ctx.params.format);
  });
  runtime.mount(router);
  router.get('/errors/:status{.:format}', (ctx) => sendErrorResource(ctx, api));

  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(requestLog(options.logger));
  if (answersHitsFirst) app.use(cachedResponses(cache, keyed));
  app.use(everyResponse(api, options));
  const cors = corsMiddleware(api.settings.cors);
  if (!authenticates(api.security)) app.use(directRoutes(staticGetRoutes(router, handlers), cors !== undefined));
  if (cors) app.use(cors);
  app.use(authentication(api, options.logger));
  app.use(router.routes());
  app.use((ctx) => {
    const allowed = [
      ...new Set(operations.filter((o) => !o.hidden && matchers.get(o)!.matchesPath(ctx.path)).map((o) => o.method)),
    ];
    // The documentation routes (entrypoint, /docs…, contexts) answer GET and HEAD.
    // (An operation's own route may match the path and still refuse it: its `requirements`; that stays a 404.)
    if (
      allowed.length === 0 &&
      router.match(ctx.path, 'GET').pathAndMethod.some((layer) => !operationPaths.has(layer.path))
    ) {
      allowed.push('GET');
    }
    const target = `${ctx.method} ${originOf(ctx)}${ctx.path}`;
    if (allowed.length === 0) throw new HttpError(404, `No route found for "${target}"`);
    if (ctx.method === 'OPTIONS') {
      // A plain OPTIONS (a preflight from an allowed origin never gets here) lists the methods.
      ctx.set('Allow', ['OPTIONS', 'HEAD', ...allowed.filter((m) => m !== 'HEAD')].join(', '));
      ctx.status = 204;
      return;
    }
    throw new HttpError(405, `No route found for "${target}": Method Not Allowed (Allow: ${allowed.join(', ')})`, {
      headers: { Allow: allowed.join(', ') },
    });
  });
  return app;
}

/** One log line a request, and a request body nobody read drained or cut off (request-body.ts). */
function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    // Checked first: the line's fields cost something to gather even when pino drops it.
    const logged = logger.isLevelEnabled('info');
    const started = logged ? performance.now() : 0;
    try {
      await next();
    } finally {
      settleUnreadBody(ctx);
      if (logged)
        logger.info(
          {
            method: ctx.method,
            url: ctx.url,
            status: ctx.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
          },
          'request',
        );
    }
  };
}

/**
 * GETs of a path without placeholders, answered by the operation the router would pick for it without going
 * through CORS, authentication and the router (docs/architecture.md, "A request's path"). Installed only where
 * nothing authenticates, so that authentication would make every request anonymous, and taken only by a request
 * without `Origin`, to which CORS adds `Vary: Origin` and nothing else; both are done here. The route's own
 * checks (`host`, `schemes`) still run: a request they refuse goes down the chain, which routes it as always.
 */
function directRoutes(table: Map<string, Middleware>, corsOn: boolean) {
  return (ctx: Context, next: Next): Promise<void> => {
    const handler = ctx.method === 'GET' ? table.get(ctx.path) : undefined;
    if (handler === undefined || (corsOn && ctx.req.headers.origin !== undefined)) return next();
    if (corsOn) ctx.vary('Origin');
    ctx.state.principal = ANONYMOUS;
    ctx.params = {};
    return handler(ctx, next);
  };
}

/**
 * What every response gets: API Platform's common headers, errors included (docs/behaviour.md, "Representations");
 * errors turned into their documents.
 */
function everyResponse(api: ApiMetadata, options: AppOptions) {
  const trustedHosts = trustedHostPatterns(api.settings.trustedHosts);
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.set('Vary', 'Accept');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'deny');
    try {
      // The Host header goes into Link, @vocab and the documentation: checked before anything uses it.
      checkHost(ctx.req.headers.host ?? '', trustedHosts);
      ctx.set('Link', `<${originOf(ctx)}/docs.jsonld>; rel="${DOCS_REL}"`);
      await next();
    } catch (e) {
      const error = e instanceof HttpError ? e : unexpected(e, options);
      if (!(e instanceof HttpError) || error.status >= 500)
        options.logger.error({ err: e, method: ctx.method, url: ctx.url }, 'request failed');
      const flavour = errorFlavour(ctx.get('accept') || undefined);
      const jsonApi = wantsJsonApi(api.settings.formats, ctx.get('accept') || undefined);
      const violations = error.options.violations;
      let body;
      if (jsonApi) body = jsonApiErrorDocument(error);
      else if (violations)
        body = constraintViolationDocument(violations, {
          hydraPrefix: api.settings.hydraPrefix,
          jsonld: flavour === 'hydra',
        });
      else body = errorDocument(error, flavour, api.settings.hydraPrefix);
      ctx.status = error.status;
      ctx.set(error.options.headers ?? {});
      ctx.remove('Content-Location');
      ctx.remove('Location');
      ctx.append('Link', '<http://www.w3.org/ns/hydra/error>; rel="http://www.w3.org/ns/json-ld#error"');
      if (jsonApi) ctx.set('Content-Type', JSONAPI_MEDIA_TYPE);
      else ctx.type = 'application/problem+json; charset=utf-8';
      ctx.body = JSON.stringify(body);
    }
  };
}

/**
 * Who sent the request, decided before routing so that invalid credentials answer 401 on every
 * route (docs/behaviour.md, "Security").
 */
function authentication(api: ApiMetadata, logger: Logger) {
  const security = api.security;
  if (!authenticates(security)) {
    return (ctx: Context, next: Next): Promise<void> => {
      ctx.state.principal = ANONYMOUS;
      return next();
    };
  }
  return async (ctx: Context, next: Next): Promise<void> => {
    // The Mercure hub authorizes its subscribers and publishers with its own JWTs (another key).
    if (ctx.path === HUB_PATH) {
      ctx.state.principal = ANONYMOUS;
      return next();
    }
    const request = () => ({
      method: ctx.method,
      url: ctx.url,
      path: ctx.path,
      headers: ctx.headers,
      query: parseQuery(ctx.querystring),
    });
    ctx.state.principal = principalOf(security, await authenticate(security, ctx.headers, request, logger));
    return next();
  };
}

/** Errors are JSON:API error documents when the client's Accept picks the configured JSON:API format. */
function wantsJsonApi(formats: Record<string, string[]>, accept: string | undefined): boolean {
  if (!formats[JSONAPI_FORMAT] || !accept) return false;
  try {
    return negotiateOutput(formats, accept, undefined).name === JSONAPI_FORMAT;
  } catch {
    return false;
  }
}

/** Anything not thrown as an HttpError is a bug: 500, with details only in debug mode. */
function unexpected(e: unknown, options: AppOptions): HttpError {
  const err = e as { status?: number; expose?: boolean; message?: string; stack?: string };
  if ((e as Error)?.name === 'StoreUnavailableError')
    return new HttpError(503, 'The data store cannot be reached; retry later.', { headers: { 'Retry-After': '5' } });
  // Errors from Koa and body parsing carry a client status (400, 413…); keep it.
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500)
    return new HttpError(err.status, err.expose && err.message ? err.message : 'Bad Request');
  return new HttpError(500, options.debug ? String(err?.stack ?? err) : 'Internal Server Error');
}

function newState(
  ctx: Context,
  api: ApiMetadata,
  op: OperationMetadata,
  collections: Map<string, Collection>,
  transaction: Transaction | undefined,
  params: Record<string, string>,
  extension: string | undefined,
  logger: Logger,
): OperationState {
  const output = negotiateOutput(api.settings.formats, ctx.get('accept') || undefined, extension);
  const defaults = optionValue(op, 'defaults') ?? {};
  const uriVariables: Record<string, string> = {};
  for (const name of op.uriVariables) {
    const value = params[name] ?? defaults[name];
    if (value !== undefined) uriVariables[name] = String(value);
  }
  const parsed = parseQuery(ctx.querystring);
  const jsonApi = output.name === JSONAPI_FORMAT ? jsonApiQuery(api, op, parsed) : undefined;
  const query = jsonApi?.query ?? parsed;
  return {
    jsonApi: jsonApi?.request,
    api,
    operation: op,
    criteria: query,
    storeCollection: collections.get(op.resource.shortName)!,
    collectionOf: (resource) => collections.get(resource.shortName)!,
    transaction,
    request: {
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      query,
      body: undefined,
      attributes: new Map(),
    },
    readBody: () => readBody(ctx, api.settings.bodySizeLimit),
    contentType: ctx.get('content-type') || undefined,
    uriVariables,
    output,
    path: ctx.path,
    origin: originOf(ctx),
    collectionIri: fillTemplate(op.path, fromRecord(uriVariables)) ?? op.path,
    data: null,
    previousData: null,
    created: false,
    principal: ctx.state.principal as Principal,
    logger,
  };
}

function sendDocument(ctx: Context, doc: unknown, extension?: string): void {
  const format = negotiateOutput(
    { jsonld: ['application/ld+json'], json: ['application/json'] },
    ctx.get('accept') || undefined,
    extension,
  );
  ctx.type = `${format.mediaType}; charset=utf-8`;
  ctx.body = JSON.stringify(doc);
}

const ERROR_EXTENSIONS = new Set(['jsonld', 'json', 'html']);

/** `GET /errors/{status}`: the error resource every error document's `type` names, served with its own status. */
function sendErrorResource(ctx: Context, api: ApiMetadata): void {
  const status = Number(ctx.params.status);
  if (!/^[45]\d\d$/.test(ctx.params.status)) throw notFound();
  const extension = ctx.params.format as string | undefined;
  if (extension !== undefined && !ERROR_EXTENSIONS.has(extension))
    throw notFound(`Format "${extension}" is not supported`);
  const accept = ctx.get('accept') || undefined;
  ctx.status = status;
  const browser =
    extension === undefined &&
    ctx.accepts('application/ld+json', 'application/problem+json', 'application/json', 'text/html') === 'text/html';
  if (extension === 'html' || browser) {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = errorResourcePage(status);
    return;
  }
  let flavour = errorFlavour(accept);
  if (extension === 'json') flavour = 'problem';
  else if (extension === 'jsonld') flavour = 'hydra';
  ctx.type = 'application/problem+json; charset=utf-8';
  ctx.body = JSON.stringify(errorResource(status, flavour, api.settings.hydraPrefix));
}
