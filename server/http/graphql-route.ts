/**
 * The GraphQL endpoint `/graphql` (docs/graphql.md, "Transport and limits"): GraphQL over HTTP by graphql-http's
 * generic handler (its Koa adapter reads the body without a limit), mounted on the router after authentication,
 * so each request's context carries the principal. `POST` with `application/json`, `GET ?query=` for queries
 * only; the answer is `application/graphql-response+json` when the client asks for it. The body is read within
 * `body_size_limit`, the query parsed within a bound on its tokens, and the limits (server/graphql/query-limits.ts)
 * checked before anything runs. A request graphql-http refuses without a GraphQL answer (405, 406, 415) gets our
 * error document; `GET /graphql` asked for HTML shows GraphiQL when it is on. graphql-http refuses subscriptions:
 * its `onSubscribe` hook answers them, after the same validation (docs/graphql.md, "Subscriptions").
 */
import { execute, getOperationAST, GraphQLError, type DocumentNode } from 'graphql';
import { createHandler, type Request, type RequestParams, type Response } from 'graphql-http';
import type { Context } from 'koa';
import { optionByName } from '../../grammar/catalogue/index.js';
import { graphQlContext, type GraphQlContext } from '../graphql/request-context.js';
import { executeCompiled } from '../graphql/compiled.js';
import { limitsFor, preparedDocuments, type PreparedDocuments } from '../graphql/documents.js';
import { limitRules } from '../graphql/query-limits.js';
import { graphQlSchema } from '../graphql/schema.js';
import type { Runtime } from '../pipeline/runtime.js';
import { HttpError, badRequest } from '../protocol/errors.js';
import type { Principal } from '../security/access.js';
import { registerGraphiql, wantsGraphiql } from './graphiql.js';
import { originOf } from './operation-route.js';
import { refuseLoneSurrogates } from '../pipeline/representation/json-body.js';
import { readBody } from './request-body.js';
import type { newRouter } from './router.js';

export const GRAPHQL_PATH = '/graphql';

const TOO_DEEP = 'The query is nested too deeply to be read.';
const BATCH_REFUSED = 'Batched operations are not supported: send one operation per request.';

/** Registers `/graphql` (and GraphiQL) when `graphql.enabled`; otherwise the path stays unrouted (404). */
export function mountGraphQl(router: ReturnType<typeof newRouter>, runtime: Runtime): void {
  const { api } = runtime;
  const settings = api.settings.graphql;
  if (!settings.enabled) return;
  const pageSize =
    api.settings.defaults.paginationItemsPerPage ?? (optionByName('paginationItemsPerPage')!.default as number);
  // A query of the most costly fields allowed, with arguments, fits: a longer token stream is refused by the parser.
  const documents = preparedDocuments(Math.max(10_000, 20 * settings.maxQueryComplexity));
  const schema = graphQlSchema(api);
  const limits = (request: { variables?: Readonly<Record<string, unknown>> | null; operationName?: string | null }) =>
    limitsFor(limitRules(settings, pageSize, request), request);
  const handle = createHandler<Context, Context, GraphQlContext & Record<PropertyKey, unknown>>({
    schema,
    parse: documents.parse,
    execute: executeCompiled,
    validate: documents.validate,
    // graphql-js's specified rules run in `documents.validate`, once per document.
    validationRules: (_req, args) => limits({ variables: args.variableValues, operationName: args.operationName }),
    context: (req) => requestContext(runtime, req.context) as GraphQlContext & Record<PropertyKey, unknown>,
    // A subscription runs here, checked as a query is (server/graphql/subscriptions.ts); anything else goes on.
    onSubscribe: async (req, params) => {
      const document = subscriptionDocument(documents, params);
      if (!document) return undefined;
      if (req.method === 'GET') return SUBSCRIPTION_OVER_GET;
      const invalid = documents.validate(schema, document, limits(params));
      if (invalid.length) return [...invalid];
      return execute({
        schema,
        document,
        variableValues: params.variables,
        operationName: params.operationName,
        contextValue: requestContext(runtime, req.context),
      });
    },
    formatError: errorFormatter(runtime),
  });
  const graphiqlPage = settings.graphiql ? registerGraphiql(router, api.title) : undefined;
  const bodyLimit = api.settings.bodySizeLimit;

  router.register(GRAPHQL_PATH, ['GET', 'POST'], async (ctx: Context) => {
    if (graphiqlPage && wantsGraphiql(ctx)) return graphiqlPage(ctx);
    // graphql-http turns a body that cannot be read into "Unparsable JSON body": a body too large (413) or a
    // batch (an array of operations, 400) is kept to answer with our error document instead.
    let unreadable: unknown;
    const request: Request<Context, Context> = {
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      body: () =>
        readBody(ctx, bodyLimit)
          .then((text) => {
            if (text.trimStart().startsWith('[')) throw badRequest(BATCH_REFUSED);
            refuseLoneSurrogates(text, parsedJson(text)); // in the variables, as in a REST body: 400
            return text;
          })
          .catch((e: unknown) => {
            unreadable = e;
            throw e;
          }),
      raw: ctx,
      context: ctx,
    };
    const [body, init] = await handle(request);
    if (unreadable) throw unreadable;
    if (body === null && init.status >= 400)
      throw new HttpError(init.status, init.statusText, { headers: init.headers });
    ctx.body = body;
    ctx.status = init.status;
    if (init.headers) ctx.set(init.headers);
  });
}

/** A subscription sent by GET answers as a mutation does: 405, `Allow: POST`. */
const SUBSCRIPTION_OVER_GET: Response = [
  JSON.stringify({ errors: [{ message: 'Cannot perform subscriptions over GET' }] }),
  { status: 405, statusText: 'Method Not Allowed', headers: { allow: 'POST' } },
];

/**
 * The request's document when the operation it runs is a subscription; anything else is left to graphql-http (a
 * text that does not name one is not parsed here, nor is one that does not parse: graphql-http answers that).
 */
function subscriptionDocument(documents: PreparedDocuments, params: RequestParams): DocumentNode | undefined {
  if (!params.query.includes('subscription')) return undefined;
  let document: DocumentNode;
  try {
    document = documents.parse(params.query);
  } catch {
    return undefined;
  }
  return getOperationAST(document, params.operationName)?.operation === 'subscription' ? document : undefined;
}

function requestContext(runtime: Runtime, ctx: Context): GraphQlContext {
  return graphQlContext({
    runtime,
    principal: ctx.state.principal as Principal,
    origin: originOf(ctx),
    headers: ctx.headers,
    peer: ctx.req.socket.remoteAddress,
  });
}

const locationOf = (err: GraphQLError) => ({
  nodes: err.nodes,
  source: err.source,
  positions: err.positions,
  path: err.path,
});

/**
 * A resolver's HttpError keeps its message and gets its status in `extensions.status`; any other error it throws
 * is a bug: logged, and its message kept from the client unless the server runs in debug mode. An error of the
 * request itself (graphql-http's: no query, JSON that is not an object; graphql-js's: syntax, validation,
 * variables, no such operation) gets status 400.
 */
function errorFormatter(runtime: Runtime) {
  return (err: Readonly<GraphQLError | Error>): GraphQLError => {
    // The parser's recursion overflows the stack on a query nested thousands deep (within the token bound).
    if (err instanceof RangeError) return new GraphQLError(TOO_DEEP, { extensions: { status: 400 } });
    if (!(err instanceof GraphQLError)) return new GraphQLError(err.message, { extensions: { status: 400 } });
    const original = err.originalError;
    // No resolver's error and no field: the request itself was refused (syntax, validation, variables, operation).
    if (original === undefined && err.path === undefined && err.extensions.status === undefined)
      return new GraphQLError(err.message, { ...locationOf(err), extensions: { ...err.extensions, status: 400 } });
    if (original === undefined || original instanceof GraphQLError) return err;
    const at = locationOf(err);
    if (original instanceof HttpError)
      return new GraphQLError(original.detail, { ...at, extensions: { ...err.extensions, status: original.status } });
    runtime.logger.error({ err: original, path: err.path }, 'GraphQL resolver failed');
    const message = runtime.debug ? err.message : 'Internal Server Error';
    return new GraphQLError(message, { ...at, extensions: { status: 500 } });
  };
}

/** The body's JSON value; undefined when it does not parse (graphql-http answers that). */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
