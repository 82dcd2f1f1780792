/**
 * The GraphQL endpoint `/graphql` (docs/graphql.md, "Transport and limits"), mounted on the router after
 * authentication, so each request's context carries the principal: GraphQL over HTTP (graphql-over-http.ts), `POST`
 * with `application/json`, `GET ?query=` for queries only; the answer is `application/graphql-response+json` when
 * the client asks for it. The body is read within `body_size_limit`, the query parsed within a bound on its tokens,
 * and the limits (server/graphql/query-limits.ts) checked before anything runs. A request refused without a GraphQL
 * answer (406, 415) gets our error document; `GET /graphql` asked for HTML shows GraphiQL when it is on.
 */
import { GraphQLError } from 'graphql';
import type { Context } from 'koa';
import { optionByName } from '../../grammar/catalogue/index.js';
import { graphQlContext, type GraphQlContext } from '../graphql/request-context.js';
import { limitsFor, preparedDocuments } from '../graphql/documents.js';
import { limitRules } from '../graphql/query-limits.js';
import { graphQlSchema } from '../graphql/schema.js';
import type { Runtime } from '../pipeline/runtime.js';
import { HttpError, badRequest } from '../protocol/errors.js';
import type { Principal } from '../security/access.js';
import { registerGraphiql, wantsGraphiql } from './graphiql.js';
import { answerGraphQl, type GraphQlEndpoint, type GraphQlHttpRequest } from './graphql-over-http.js';
import { originOf } from './operation-route.js';
import { refuseLoneSurrogates } from '../pipeline/representation/json-body.js';
import { readBody } from './request-body.js';
import type { Endpoint, newRouter } from './router.js';

export const GRAPHQL_PATH = '/graphql';

const TOO_DEEP = 'The query is nested too deeply to be read.';
const BATCH_REFUSED = 'Batched operations are not supported: send one operation per request.';

/**
 * Registers `/graphql` (and GraphiQL) when `graphql.enabled`, and returns the endpoint (for the direct-route
 * shortcut, get-shortcuts.ts); otherwise the path stays unrouted (404).
 */
export function mountGraphQl(router: ReturnType<typeof newRouter>, runtime: Runtime): Endpoint[] {
  const { api } = runtime;
  const settings = api.settings.graphql;
  if (!settings.enabled) return [];
  const pageSize =
    api.settings.defaults.paginationItemsPerPage ?? (optionByName('paginationItemsPerPage')!.default as number);
  const endpoint: GraphQlEndpoint = {
    schema: graphQlSchema(api),
    // A query of the most costly fields allowed, with arguments, fits: a longer token stream is refused by the parser.
    documents: preparedDocuments(Math.max(10_000, 20 * settings.maxQueryComplexity)),
    limits: (params) => limitsFor(limitRules(settings, pageSize, params), params),
    formatError: errorFormatter(runtime),
  };
  const graphiqlPage = settings.graphiql ? registerGraphiql(router, api.title) : undefined;
  const bodyLimit = api.settings.bodySizeLimit;

  const handler = async (ctx: Context): Promise<void> => {
    if (graphiqlPage && wantsGraphiql(ctx)) return graphiqlPage(ctx);
    // A body that cannot be read becomes "Unparsable JSON body" in graphql-http's reading of the parameters: a
    // body too large (413) or a batch (an array of operations, 400) is kept to answer with our error document.
    let unreadable: unknown;
    const request: GraphQlHttpRequest = {
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      body: () =>
        readBody(ctx, bodyLimit)
          .then((text) => {
            if (text.trimStart().startsWith('[')) throw badRequest(BATCH_REFUSED);
            const value = parsedJson(text);
            refuseLoneSurrogates(text, value); // in the variables, as in a REST body: 400
            // Parsed once; a text that is not a JSON object is graphql-http's to refuse, with its words.
            return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : text;
          })
          .catch((e: unknown) => {
            unreadable = e;
            throw e;
          }),
    };
    const answer = await answerGraphQl(endpoint, request, () => requestContext(runtime, ctx));
    if (unreadable) throw unreadable;
    if (answer.body === null) throw new HttpError(answer.status, answer.statusText, { headers: answer.headers });
    ctx.body = answer.body;
    ctx.status = answer.status;
    if (answer.headers) ctx.set(answer.headers);
  };
  const methods = ['GET', 'POST'];
  router.register(GRAPHQL_PATH, methods, handler);
  return [{ path: GRAPHQL_PATH, methods, handler }];
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
