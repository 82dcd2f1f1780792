/**
 * One GraphQL-over-HTTP request answered (docs/graphql.md, "Transport and limits"), in the order and with the
 * answers of graphql-http's generic handler, which served it before (its audit of the specification runs in
 * test/http/graphql-transport.test.ts): the media type first (406 when none is acceptable), the parameters read by
 * graphql-http's own `parseRequestParams` (415, or a GraphQL error with 400), the document parsed and checked (kept
 * per text and per operation and variables: server/graphql/documents.ts), a subscription or a mutation sent by GET
 * refused with 405, then the operation run and its result encoded once. Written here because that handler, built for
 * any schema, cost a GraphQL page more than the page's own work: its answer was stringified with a replacer (slow in
 * V8) and every request went through its generic hooks.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  execute,
  getOperationAST,
  GraphQLError,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { parseRequestParams, type RequestParams } from 'graphql-http';
import { executeCompiled } from '../graphql/compiled.js';
import type { PreparedDocuments } from '../graphql/documents.js';
import type { GraphQlContext } from '../graphql/request-context.js';

export type GraphQlMediaType = 'application/graphql-response+json' | 'application/json';

/**
 * The request as this module reads it: `body` reads a POST's JSON body (called only for one), parsed or as text
 * (graphql-http parses a text, and refuses one that is not a JSON object).
 */
export interface GraphQlHttpRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: () => Promise<string | Record<string, unknown>>;
}

/** An answer: a body of null is a refusal without a GraphQL answer (406, 415), for the caller's error document. */
export interface GraphQlAnswer {
  body: string | null;
  status: number;
  statusText: string;
  headers?: Record<string, string>;
}

export interface GraphQlEndpoint {
  schema: GraphQLSchema;
  documents: PreparedDocuments;
  /** The limit rules for the operation and variables of a request (server/graphql/query-limits.ts). */
  limits: (params: RequestParams) => ValidationRule[];
  /** Every error of an answer passes here: it decides the message and `extensions.status` the client sees. */
  formatError: (err: Readonly<GraphQLError | Error>) => GraphQLError;
}

const NOT_ACCEPTABLE: GraphQlAnswer = {
  body: null,
  status: 406,
  statusText: 'Not Acceptable',
  headers: { accept: 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8' },
};

const refusedOverGet = (what: 'mutations' | 'subscriptions'): GraphQlAnswer => ({
  body: JSON.stringify({ errors: [{ message: `Cannot perform ${what} over GET` }] }),
  status: 405,
  statusText: 'Method Not Allowed',
  headers: { allow: 'POST' },
});

/** The answer to one request at `/graphql` (a GraphQL answer, or a refusal whose body is null). */
export async function answerGraphQl(
  endpoint: GraphQlEndpoint,
  req: GraphQlHttpRequest,
  context: () => GraphQlContext,
): Promise<GraphQlAnswer> {
  const mediaType = acceptedMediaType(req.headers.accept);
  if (!mediaType) return NOT_ACCEPTABLE;
  const respond = responder(endpoint, mediaType);
  let params: RequestParams;
  try {
    const read = await parseRequestParams({ ...req, raw: undefined, context: undefined });
    if (Array.isArray(read)) return { ...read[1], body: read[0] } as GraphQlAnswer; // 415
    params = read as RequestParams;
  } catch (err) {
    return respond(err as Error);
  }
  let document: DocumentNode;
  try {
    document = endpoint.documents.parse(params.query);
  } catch (err) {
    return respond(err as Error);
  }
  const operation = getOperationAST(document, params.operationName)?.operation;
  if (operation === 'subscription' && req.method === 'GET') return refusedOverGet('subscriptions');
  const invalid = endpoint.documents.validate(endpoint.schema, document, endpoint.limits(params));
  if (invalid.length) return respond([...invalid]);
  if (!operation) return respond([new GraphQLError('Unable to detect operation AST')]);
  if (operation === 'mutation' && req.method === 'GET') return refusedOverGet('mutations');
  const args = {
    schema: endpoint.schema,
    document,
    variableValues: params.variables,
    operationName: params.operationName,
    contextValue: context(),
  };
  // A subscription answers its item now (server/graphql/subscriptions.ts): graphql-js runs it as a query.
  return respond(await (operation === 'subscription' ? execute(args) : executeCompiled(args)));
}

/**
 * The media type of the answer, from `Accept` as graphql-http reads it: the first acceptable entry, in the order
 * written (no weights); none: undefined (406).
 */
function acceptedMediaType(accept: string | undefined): GraphQlMediaType | undefined {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8')
      return 'application/graphql-response+json';
    const json = mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*';
    if (json && (charset === 'charset=utf-8' || charset === 'charset=utf8')) return 'application/json';
  }
  return undefined;
}

/**
 * How a result, the errors of a refused request or an error of the request itself are answered: a result with 200;
 * errors of the document (syntax, validation, operation) with 200 in `application/json` and 400 in
 * `application/graphql-response+json`; any other error (parameters that cannot be read) with 400 in
 * `application/json`. Every error passes through `formatError` first, which makes it a GraphQLError: a plain
 * JSON.stringify encodes the answer.
 */
function responder(endpoint: GraphQlEndpoint, mediaType: GraphQlMediaType) {
  const contentType = { 'content-type': `${mediaType}; charset=utf-8` };
  return (answer: ExecutionResult | GraphQLError[] | Error): GraphQlAnswer => {
    if (answer instanceof Error) {
      const errors = [endpoint.formatError(answer)];
      const headers = { 'content-type': 'application/json; charset=utf-8' };
      if (!(answer instanceof GraphQLError))
        return { body: encode({ errors }), status: 400, statusText: 'Bad Request', headers };
      answer = [answer];
    }
    if (Array.isArray(answer)) {
      const body = encode({ errors: answer.map(endpoint.formatError) });
      if (mediaType === 'application/json') return { body, status: 200, statusText: 'OK', headers: contentType };
      return { body, status: 400, statusText: 'Bad Request', headers: contentType };
    }
    const result = answer.errors ? { ...answer, errors: answer.errors.map(endpoint.formatError) } : answer;
    return { body: encode(result), status: 200, statusText: 'OK', headers: contentType };
  };
}

const encode = (value: unknown): string => JSON.stringify(value);
