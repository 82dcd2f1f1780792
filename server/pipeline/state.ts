/**
 * What one request carries through the pipeline, and the context handed to custom code
 * (its public shape is declared in types/apidsl.d.ts).
 */
import type { Format } from '../protocol/negotiation.js';
import type { QueryParams } from '../protocol/query.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Collection, Item } from '../store/types.js';
import type { Principal } from '../security/access.js';
import type { RelationReads } from '../security/relation-reads.js';
import type { ChangeKind, Runtime } from './runtime.js';

/**
 * A related item a request body's nested document writes (relations/nested-writes.ts): new (`previous` null) or
 * the stored one changed. Until stored, the relation naming it holds `token` in place of its IRI.
 */
export interface NestedWrite {
  resource: ResourceMetadata;
  item: Item;
  previous: Item | null;
  /** Where the document was in the body: `speaker`, `reviewers[1]`, `speaker.organisation`. */
  path: string;
  token: string;
  /** The document's place in the body, depth first: violations are reported in this order. */
  order: number;
  /** The IRI of the stored item changed (absent for a new one). */
  iri?: string;
  /** The `securityPostValidation` of the target's Patch, for a change of an item the parent does not own. */
  postValidation?: () => Promise<void>;
  /** The write scope of the target's Post or Patch (docs/scopes.md): the item as it is stored must hold to it. */
  scope?: (item: Item) => Promise<void>;
}

/** What a JSON:API request asks of the document besides filters, sort and page (representation/jsonapi-query.ts). */
export interface JsonApiRequest {
  /** Relationship paths (`['coauthors', 'publisher']`) whose items the document includes. */
  include: string[][];
  /** Per type, the attribute and relationship names its resource objects keep. */
  fields: Map<string, Set<string>>;
}

/** How a response that embeds related items writes the relations of each of its items, and what it read. */
export interface EmbeddedOutput {
  /** The relation output of one item shown (representation/normalize.ts, `RelationOutput`). */
  relationsOf(item: Item): (property: PropertyMetadata, value: unknown) => unknown;
  /** The IRIs of the related items looked up (found or not): the response's cache tags. */
  iris: ReadonlySet<string>;
  /** A streamed collection, whose related items are read as it is written: every resource it may embed. */
  streamedTargets?: readonly ResourceMetadata[];
}

/** An item of the `included` member: its resource, the operation whose shape it takes, its IRI (a path). */
export interface IncludedItem {
  resource: ResourceMetadata;
  via: OperationMetadata;
  item: Item;
  iri: string;
}

/** An item a write committed: stored (`saved`) or deleted (`removed`), for the "publish" stage. */
/**
 * A committed change. `resource`: an item of another resource than the operation's, changed by a referential
 * action of a delete (relations/referential-actions.ts); it is published as that resource publishes.
 */
export type Change = { kind: ChangeKind; item: Item; resource?: ResourceMetadata };

/** The request as custom code sees it. */
export interface PublicRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  query: QueryParams;
  body: unknown;
  /** Per-request attributes; `_api_response_status` set here overrides the status. */
  attributes: Map<string, unknown>;
}

export interface OperationState {
  api: ApiMetadata;
  operation: OperationMetadata;
  /** The collections, publisher and bus the request uses. */
  runtime: Runtime;
  /**
   * The store collection of the operation's resource, or its search index for an operation that reads it
   * (`elasticsearch`: the default provider reads through this, and only reads).
   */
  storeCollection: Collection;
  request: PublicRequest;
  /** Raw body reader (enforces the size limit). */
  readBody(): Promise<string>;
  /** The body as a JSON value, checked (json-body.ts): 400 with `syntaxDetail` when its text is not JSON. */
  readJsonBody(syntaxDetail: string): Promise<unknown>;
  contentType: string | undefined;
  /** Filter criteria: the URL's query, or the body of a QUERY request. */
  criteria: QueryParams;
  uriVariables: Record<string, string>;
  output: Format;
  /** Request path, extension included, for links. */
  path: string;
  /** `scheme://host[:port]` of the request (its checked Host header), for absolute URLs (urlGenerationStrategy). */
  origin: string;
  /** The item the stages work on: read, then deserialized, then written (null: none). */
  data: unknown;
  /** The item as read, before any change. */
  previousData: unknown;
  /** The page a collection operation read. */
  page?: Page;
  /** PUT with allowCreate that created the item. */
  created: boolean;
  /** The collection's IRI: the operation's path with its variables, no query, no extension. */
  collectionIri: string;
  /** The item's IRI once known (Location, Content-Location). */
  iri?: string;
  /** The response body, once serialized (undefined: no body). */
  body?: unknown;
  /** The related items the body's nested documents write with the item (relations/nested-writes.ts). */
  nestedWrites?: NestedWrite[];
  /** Items the write stored or removed (committed), for the "publish" stage. */
  changes?: Change[];
  /** The write dispatched the data to the message bus instead of storing it (202 by default). */
  dispatched?: boolean;
  /** Who sent the request (authenticated before routing). */
  principal: Principal;
  /** What a JSON:API request asks of the document (include, sparse fieldsets; representation/jsonapi-query.ts). */
  jsonApi?: JsonApiRequest;
  /** The items a JSON:API compound document includes (stages/include.ts). */
  included?: IncludedItem[];
  /** Per item shown, the properties whose `security` denies that user (left out of the output). */
  hiddenProperties?: WeakMap<Item, ReadonlySet<string>>;
  /** The related items the request's expressions read through (pipeline/guards.ts), read once per request. */
  relationReads?: RelationReads;
  /** The IRIs of to-many members the response leaves out: outside the reader's read scope (pipeline/scopes.ts). */
  hiddenMembers?: Set<string>;
  /** The related items the response embeds, read by the serialize stage (representation/embedding.ts). */
  embedded?: EmbeddedOutput;
  /** What the response is written as: the negotiated format's document, an adapter's values, a batch's member. */
  representation: Representation;
  /** What a conditional request's write must hold to (preconditions.ts): none for an unconditional one. */
  condition?: WriteCondition;
}

/**
 * What the pipeline writes the response as, chosen by whoever calls it:
 * - `document`: the negotiated format's document (HTTP, MCP);
 * - `values`: the item as a JSON-LD value without `@context` (an object with `@id`, `@type` and what the user may
 *   see), or for a collection `{ members, page }`: what an adapter that writes its own documents needs (GraphQL),
 *   with its own page `window` (cursors) in place of the page parameters and its `args` handed to custom code as
 *   `ctx.args`;
 * - `batch-member`: one item of a bulk batch (bulk.ts), whose JSON-LD body is a member of the batch's document,
 *   with no `@context` of its own.
 */
export type Representation =
  | { kind: 'document' }
  | { kind: 'values'; window?: PageWindow; args?: Record<string, unknown> }
  | { kind: 'batch-member' };

/** The negotiated format's document: what a request asks for unless its adapter says otherwise. */
export const DOCUMENT: Representation = { kind: 'document' };

/** The values an adapter asked for, if it did (a collection's page window and custom code's arguments with them). */
export const valuesOf = (state: OperationState): Extract<Representation, { kind: 'values' }> | undefined =>
  state.representation.kind === 'values' ? state.representation : undefined;

/**
 * A conditional write (preconditions.ts): `expected`, the stored item the request's `If-Match` named (the write
 * applies only while it is still stored so); `absent`, a creating PUT's `If-None-Match: *` (it only creates).
 */
export type WriteCondition = { expected: Item; absent?: undefined } | { absent: true; expected?: undefined };

/**
 * A page by position rather than number (GraphQL's `first`/`after`, `last`/`before`): at most `limit` items
 * from `offset`, or (`fromEnd`) the last `limit` items. A missing limit is the operation's page size; a limit
 * above the operation's maximum is clamped to it.
 */
export interface PageWindow {
  offset?: number;
  limit?: number;
  fromEnd?: boolean;
}

export const isItem = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a collection request asks for (pages/pagination.ts). */
export interface PageRequest {
  enabled: boolean;
  partial: boolean;
  page: number;
  itemsPerPage: number;
  /** A window's first position (`PageWindow`): the page starts there rather than at `(page - 1) * itemsPerPage`. */
  offset?: number;
  /** A window of the last `itemsPerPage` items: the offset follows from the count. */
  fromEnd?: boolean;
}

/** A page of results; `total` is undefined under partial pagination (no count query). */
export interface Page {
  items: unknown[];
  request: PageRequest;
  total?: number;
  /** Set for cursor pagination: its links, computed from the page's first and last items. */
  cursor?: CursorLinks;
  /** A partial paginator's own word on whether a next page exists. */
  hasNext?: boolean;
  /** `items` are the members' JSON-LD texts as the store rendered them (representation/rendering.ts), not items. */
  rendered?: boolean;
  /** Unpaginated store reads: the items, streamed (then `items` is empty and `total` unknown). */
  stream?: AsyncIterable<unknown>;
}

export interface CursorLinks {
  next?: string;
  previous?: string;
}
