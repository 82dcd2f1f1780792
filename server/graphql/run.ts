/**
 * Runs a GraphQL operation through the pipeline's one entry (pipeline/execute.ts), as the Koa route runs a REST
 * one: the same stages, security and validation. A failure becomes a GraphQL error carrying the HTTP status and,
 * for a 422, the violations (docs/graphql.md, "Errors").
 */
import { GraphQLError } from 'graphql';
import type { OperationMetadata } from '../metadata/types.js';
import { notFound, type HttpError } from '../protocol/errors.js';
import { executeOperation, failureOf, type OperationRequest, type OperationResult } from '../pipeline/execute.js';
import { problemOf } from '../pipeline/error-response.js';
import type { PageWindow } from '../pipeline/state.js';
import type { QueryParams } from '../protocol/query.js';
import type { GraphQlContext } from './request-context.js';

export interface GraphQlCall {
  uriVariables?: Record<string, string>;
  /** Query parameters as values (filters, a page connection's page): `queryOf`. */
  query?: QueryParams;
  window?: PageWindow;
  /** A write's body (JSON), sent as JSON-LD (a PATCH merges it). */
  body?: unknown;
  args?: Record<string, unknown>;
  /** An update's or delete's `ifMatch`: the request's If-Match (pipeline/preconditions.ts). */
  ifMatch?: string;
}

/** The operation's result as values (`representation: { kind: 'values' }`); a failure throws its GraphQL error. */
export async function runOperation(ctx: GraphQlContext, op: OperationMetadata, call: GraphQlCall): Promise<unknown> {
  const result = await execute(ctx, op, call);
  const failure = failureOf(result);
  if (failure) throw graphQlError(failure);
  return result.body;
}

/** As runOperation, but a 404 answers null (API Platform's item query for an IRI that does not exist). */
export async function runOrNull(ctx: GraphQlContext, op: OperationMetadata, call: GraphQlCall): Promise<unknown> {
  const result = await execute(ctx, op, call);
  if (result.status === 404) return null;
  const failure = failureOf(result);
  if (failure) throw graphQlError(failure);
  return result.body ?? null;
}

/**
 * The HTTP request's headers an operation inherits: not those of its body, nor its conditions (an operation's come
 * from the mutation's own `ifMatch`, never from the HTTP request that carried the document), nor `accept`.
 */
const NOT_INHERITED = new Set(['accept', 'content-length', 'content-type', 'if-match', 'if-none-match']);

/** An operation's headers, built without `delete` (which would leave V8 a slow dictionary object). */
function headersOf(ctx: GraphQlContext, call: GraphQlCall): OperationRequest['headers'] {
  const headers: OperationRequest['headers'] = { accept: 'application/ld+json' };
  for (const name in ctx.headers) if (!NOT_INHERITED.has(name)) headers[name] = ctx.headers[name];
  if (call.ifMatch !== undefined) headers['if-match'] = call.ifMatch;
  // A PATCH merges whatever its media type (the deserialize stage reads values' bodies so).
  if (call.body !== undefined) headers['content-type'] = 'application/ld+json';
  return headers;
}

function execute(ctx: GraphQlContext, op: OperationMetadata, call: GraphQlCall): Promise<OperationResult> {
  const hasBody = call.body !== undefined;
  const headers = headersOf(ctx, call);
  return executeOperation(ctx.batched, op, {
    method: op.method,
    query: call.query ?? {},
    uriVariables: call.uriVariables ?? {},
    headers,
    ...(hasBody ? { body: { value: call.body } } : {}),
    principal: ctx.principal,
    origin: ctx.origin,
    ...(ctx.peer ? { peer: ctx.peer } : {}),
    representation: {
      kind: 'values',
      ...(call.window ? { window: call.window } : {}),
      ...(call.args ? { args: call.args } : {}),
    },
    ...(ctx.internal ? { internal: true } : {}),
  });
}

/** The GraphQL error of a failed operation: the detail, status and violations its error document states. */
function graphQlError(error: HttpError): GraphQLError {
  const { status, detail, violations } = problemOf(error);
  const extensions: Record<string, unknown> = { status };
  if (violations) extensions.violations = violations.map((v) => ({ path: v.propertyPath, message: v.message }));
  return new GraphQLError(detail, { extensions });
}

/** An error the GraphQL layer itself raises (a malformed argument): status 400 unless said otherwise. */
export const argumentError = (message: string, status = 400): GraphQLError =>
  new GraphQLError(message, { extensions: { status } });

/** Update or delete of an IRI that names no item of the resource: REST's 404 (the same words), as an error. */
export const notFoundError = (): GraphQLError => new GraphQLError(notFound().detail, { extensions: { status: 404 } });
