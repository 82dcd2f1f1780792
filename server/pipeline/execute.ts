/**
 * The one entry into the pipeline for every adapter (docs/architecture.md, "A request's path"): an operation and
 * a plain description of the request in, a plain result out (status, headers, the document; an error as its
 * error document). The Koa route answers with it (server/http/); a GraphQL resolver or an MCP tool would too. No
 * adapter builds an `OperationState` itself, so none can leave out a stage.
 */
import { scopeSources } from '../../grammar/scope-plan.js';
import { scopedCollection } from './scopes.js';
import { scopedMemberRelations } from './scoped-members.js';
import type { OperationMetadata } from '../metadata/types.js';
import { optionValue, perOperation } from '../metadata/options.js';
import { answersWithBody, successStatus } from '../metadata/operation-facts.js';
import { rateLimitOf } from '../metadata/rate-limit.js';
import { readsIndex } from '../metadata/search-index.js';
import { HttpError } from '../protocol/errors.js';
import { filledPath, fillTemplate, fromRecord } from '../protocol/iri.js';
import { negotiateOutput } from '../protocol/negotiation.js';
import { buildLink, type QueryParams } from '../protocol/query.js';
import type { Principal } from '../security/access.js';
import { runPipeline, stagesOf } from './chain.js';
import { failureResponse } from './error-response.js';
import { writeCondition } from './preconditions.js';
import { countRequest } from './rate-limit.js';
import { checkedJsonValue, parseJsonBody } from './representation/json-body.js';
import { jsonApiQuery } from './representation/jsonapi-query.js';
import { JSONAPI_FORMAT, JSONAPI_MEDIA_TYPE } from './representation/jsonapi.js';
import { SERVABLE_FORMATS } from './representation/servable-formats.js';
import { DOCUMENT, type OperationState, type Representation } from './state.js';
import type { Runtime } from './runtime.js';
import type { ApiMetadata } from '../metadata/types.js';
import type { Item } from '../store/types.js';
import { itemDocument } from './representation/item-document.js';

export interface OperationRequest {
  method: string;
  /**
   * The path as sent, extension included (links and relative IRIs are made from it); none: the operation's path
   * filled with the URI variables (an adapter without URLs: GraphQL, MCP).
   */
  path?: string;
  /**
   * The query parameters as values (filters, pagination, order): HTTP parses its query string at its edge
   * (`parseQuery`), GraphQL and MCP give their arguments (`queryOf`).
   */
  query: QueryParams;
  /** The query string as sent, without `?` (HTTP): what the request's URL and a write's Content-Location repeat. */
  queryString?: string;
  /** The values of the route's variables (the identifier, sub-resource links) as matched. */
  uriVariables: Record<string, string>;
  /** The format extension of the path (`/books/1.jsonld`), if any. */
  extension?: string;
  /** Lower-case names. `accept` picks the output format, `content-type` the input's. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body's text, or its reader (which enforces the size limit), or the value an adapter without bodies of text
   * hands (GraphQL's input, MCP's arguments: `{ value }`, checked as a parsed text is); none: an empty body.
   */
  body?: string | (() => Promise<string>) | BodyValue;
  /** Who sends it (an adapter authenticates before it calls the pipeline). */
  principal: Principal;
  /** `scheme://host[:port]` the request was sent to, for absolute URLs. */
  origin: string;
  /** The peer's address (the socket's), which rate limits count by (rate-limit.ts); none: an in-process caller. */
  peer?: string;
  /** What the result's body is written as (state.ts, `Representation`); default: the negotiated format's document. */
  representation?: Representation;
  /** Made by the service itself, for no client (a GraphQL subscription's update): no rate limit counts it. */
  internal?: boolean;
}

export interface OperationResult {
  status: number;
  /** Location, Content-Location, Content-Type, or an error's own headers. */
  headers: Record<string, string>;
  /** The document: a JSON value, already encoded JSON (JsonText) or a stream of JSON text; undefined: no body. */
  body: unknown;
  /** The state the pipeline ended with (undefined when it failed): what an adapter's cache needs. */
  state?: OperationState;
  /** Why the request failed; `body` is then its error document (error-response.ts). */
  error?: HttpError;
}

/** A request whose path is known (`OperationRequest.path`, or the filled template). */
export type PathedRequest = OperationRequest & { path: string };

export async function executeOperation(
  runtime: Runtime,
  op: OperationMetadata,
  given: OperationRequest,
): Promise<OperationResult> {
  const request: PathedRequest =
    given.path === undefined ? { ...given, path: filledPath(op.path, given.uriVariables) } : (given as PathedRequest);
  const policy = request.internal ? undefined : rateLimitOf(op, runtime.api.settings);
  let limits: Record<string, string> | undefined;
  try {
    if (policy) limits = await countRequest(runtime, policy, request);
    const condition = await writeCondition(op, request, (get, read) => executeOperation(runtime, get, read));
    const state = operationState(runtime, op, request);
    state.storeCollection = scopedCollection(state, state.storeCollection);
    if (condition) state.condition = condition;
    await runPipeline(state);
    const result = successResult(state, request);
    if (limits) Object.assign(result.headers, limits);
    return result;
  } catch (e) {
    return failedResult(runtime, request, e, limits);
  }
}

/**
 * Why a result failed, for an adapter that writes its own answer (GraphQL, MCP): its error, or an error of the
 * status custom code set (`_api_response_status` of 400 or more); undefined for a success.
 */
export const failureOf = (result: OperationResult): HttpError | undefined =>
  result.error ?? (result.status >= 400 ? new HttpError(result.status, `HTTP ${result.status}`) : undefined);

/**
 * For an adapter that answers a request without the pipeline (a hit of its cache): counts it against the
 * operation's rate limit, as `executeOperation` does. The headers its answer adds, or the result to answer instead
 * (the 429) when the client is past the limit.
 */
export async function admitRequest(
  runtime: Runtime,
  op: OperationMetadata,
  request: OperationRequest,
): Promise<{ headers: Record<string, string> } | { refused: OperationResult }> {
  const policy = rateLimitOf(op, runtime.api.settings);
  try {
    return { headers: (policy && (await countRequest(runtime, policy, request))) || {} };
  } catch (e) {
    return { refused: failedResult(runtime, request, e) };
  }
}

/** The result of a request that failed: its error document, with the rate-limit headers it counted under. */
function failedResult(
  runtime: Runtime,
  request: Pick<OperationRequest, 'method' | 'path' | 'query' | 'queryString' | 'headers'>,
  thrown: unknown,
  limits?: Record<string, string>,
): OperationResult {
  const failed = failureResponse(
    runtime.api,
    thrown,
    { method: request.method, url: urlOf(request), accept: headerValue(request.headers.accept) },
    runtime,
  );
  return {
    status: failed.status,
    headers: { ...limits, ...failed.headers, 'Content-Type': failed.contentType },
    body: failed.document,
    error: failed.error,
  };
}

/** The request's URL: as sent, or for an adapter without URLs its path with the parameters in the query's syntax. */
function urlOf(request: Pick<OperationRequest, 'path' | 'query' | 'queryString'>): string {
  const path = request.path ?? '';
  if (request.queryString === undefined) return buildLink(path, request.query, [], false);
  return request.queryString ? `${path}?${request.queryString}` : path;
}

const headerValue = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value.join(', ') : value) || undefined;

/** The operation's `defaults`: values of URI variables its route does not hold. */
const routeDefaults = perOperation((op, _: void) => optionValue(op, 'defaults') ?? {});

/** The state a request starts the pipeline with (also the one each record of an import starts from: import.ts). */
export function operationState(runtime: Runtime, op: OperationMetadata, request: PathedRequest): OperationState {
  const { api } = runtime;
  const representation = request.representation ?? DOCUMENT;
  const output =
    representation.kind === 'values'
      ? VALUES_FORMAT
      : negotiateOutput(api.settings.formats, headerValue(request.headers.accept), request.extension, SERVABLE_FORMATS);
  const defaults = routeDefaults(op);
  const uriVariables: Record<string, string> = {};
  for (const name of op.uriVariables) {
    const value = request.uriVariables[name] ?? defaults[name];
    if (value !== undefined) uriVariables[name] = String(value);
  }
  const jsonApi = output.name === JSONAPI_FORMAT ? jsonApiQuery(api, op, request.query) : undefined;
  const query = jsonApi?.query ?? request.query;
  return {
    jsonApi: jsonApi?.request,
    api,
    runtime,
    operation: op,
    criteria: query,
    storeCollection:
      runtime.search && readsIndex(op, undefined)
        ? runtime.search.collectionOf(op.resource)
        : runtime.collectionOf(op.resource),
    request: {
      method: request.method,
      url: urlOf(request),
      headers: request.headers,
      query,
      body: undefined,
      attributes: new Map(),
    },
    ...bodyReaders(request.body),
    contentType: headerValue(request.headers['content-type']),
    uriVariables,
    output,
    path: request.path,
    origin: request.origin,
    collectionIri: fillTemplate(op.path, fromRecord(uriVariables)) ?? op.path,
    data: null,
    previousData: null,
    created: false,
    principal: request.principal,
    representation,
  };
}

/** Values are JSON-LD's: items carry their `@id` and `@type`. */
const VALUES_FORMAT = { name: 'jsonld', mediaType: 'application/ld+json' };

/** Status (runtime `_api_response_status` > the operation's `status` > the method's default) and headers. */
function successResult(state: OperationState, request: OperationRequest): OperationResult {
  const op = state.operation;
  const attribute = state.request.attributes.get('_api_response_status');
  const status = typeof attribute === 'number' && Number.isInteger(attribute) ? attribute : successStatus(op, state);
  const headers: Record<string, string> = {};
  if (op.method === 'POST' && state.iri && (status === 201 || (status >= 300 && status < 400)))
    headers.Location = state.iri;
  const located = op.isCollection ? state.collectionIri : state.iri;
  if (op.method !== 'GET' && op.method !== 'HEAD' && located) {
    const query = request.queryString ? `?${request.queryString}` : '';
    headers['Content-Location'] = `${located}.${state.output.name}${query}`;
  }
  const noBody =
    status === 204 ||
    status === 205 ||
    status === 304 ||
    state.body === undefined ||
    !answersWithBody(op, state.api.settings);
  if (noBody) return { status, headers, body: undefined, state };
  // JSON:API allows no media type parameter but ext and profile.
  const mediaType = state.output.mediaType;
  headers['Content-Type'] = mediaType === JSONAPI_MEDIA_TYPE ? mediaType : `${mediaType}; charset=utf-8`;
  return { status, headers, body: state.body, state };
}

/** The stages of an item Get that only read the item and show it. */
const READ_AND_SHOW = new Set(['read', 'publish', 'include', 'serialize']);

/**
 * For an adapter that shows many items of one item operation at once (GraphQL relations, read in one store
 * query): where that operation's pipeline would do nothing but read the item by its identifier and show it — a
 * GET whose only stages are read and serialize (no guard, no property security), with no provider, sub-resource
 * link or rate limit — the item's value as `executeOperation` with `representation: { kind: 'values' }` answers it.
 * Undefined where the pipeline must run for each item.
 */
export const plainItemValue = perOperation(
  (op, api: ApiMetadata): ((api: ApiMetadata, item: Item, origin: string) => Record<string, unknown>) | undefined => {
    const { settings } = api;
    if (op.isCollection || op.method !== 'GET' || op.hidden || op.provider || rateLimitOf(op, settings))
      return undefined;
    // A read scope is part of the read, and so is one on the members of its to-many relations: such an item
    // runs the pipeline (docs/scopes.md).
    if (scopeSources(optionValue(op, 'scope'))?.read !== undefined) return undefined;
    if (scopedMemberRelations(api, op.resource).length) return undefined;
    const byIdentifierOnly = op.uriVariables.length === 1 && op.uriVariables[0] === op.resource.identifier?.name;
    const stages = stagesOf(op, settings).map(({ name }) => name);
    if (!byIdentifierOnly || !stages.includes('read') || !stages.includes('serialize')) return undefined;
    if (!stages.every((name) => READ_AND_SHOW.has(name))) return undefined;
    return (api, item, origin) =>
      itemDocument(api, op, item, { jsonld: true, at: { origin, path: op.path }, member: true });
  },
);

/** A request body given as a value rather than as text. */
export interface BodyValue {
  value: unknown;
}

/**
 * The state's two ways to read the body: as text (a QUERY's form, an NDJSON batch) and as a JSON value. A text is
 * parsed with its checks (representation/json-body.ts); a value gets the same checks on a copy, without the round
 * trip through text.
 */
function bodyReaders(body: OperationRequest['body']): Pick<OperationState, 'readBody' | 'readJsonBody'> {
  if (typeof body === 'object') {
    const { value } = body;
    return {
      readBody: () => Promise.resolve(JSON.stringify(value) ?? ''),
      readJsonBody: () => Promise.resolve(checkedJsonValue(value)),
    };
  }
  const readBody = typeof body === 'function' ? body : () => Promise.resolve(body ?? '');
  return { readBody, readJsonBody: async (syntaxDetail) => parseJsonBody(await readBody(), syntaxDetail) };
}
