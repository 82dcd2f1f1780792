// Types for custom code referenced from a .api file ("./file.mjs#export"): providers,
// processors, controllers, metadata mutators, and the security authenticator and voters. Import them in JSDoc or TypeScript:
//   /** @param {import('apidsl').ProviderContext} ctx */

/** The request as custom code sees it. */
export interface ApiRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Query parameters, bracket keys parsed (`order[id]=desc` → { order: { id: 'desc' } }). */
  query: Record<string, unknown>;
  /** The parsed body, once the deserialize stage has read it. */
  body: unknown;
  /** Per-request attributes. `attributes.set('_api_response_status', 202)` sets this response's status. */
  attributes: Map<string, unknown>;
}

export interface ApiOperation {
  name: string;
  kind: 'GetCollection' | 'Post' | 'Get' | 'Put' | 'Patch' | 'Delete' | 'Query' | 'HttpOperation';
  method: string;
  /** The route, route prefix included (`/geo/places/{id}`). */
  uriTemplate: string;
  /** Short name of the resource. */
  resource: string;
  /** Options as written in the .api file (resource-level ones merged in), after mutators. */
  options: Readonly<Record<string, unknown>>;
}

export type Item = Record<string, unknown>;

/** A page of results with its total (the full paginator of docs/behaviour.md, "Collections and pagination"). */
export interface Paginator {
  items: Iterable<Item>;
  currentPage: number;
  itemsPerPage: number;
  /** Leave it out for a partial paginator (no count: no `totalItems`, no `first`/`last`). */
  totalItems?: number;
}

/** The authenticated user (`config { security }`): from a verified JWT or the authenticator. */
export interface User {
  identifier: string;
  /** The roles the credentials carry (before the role hierarchy). */
  roles: string[];
  /** The JWT payload, or the object the authenticator returned. */
  claims: Record<string, unknown>;
}

export interface ProviderContext {
  operation: ApiOperation;
  /** Who sent the request; null when it is anonymous. */
  user: User | null;
  /** Values of the route's placeholders (`{placeId}` → uriVariables.placeId), as strings. */
  uriVariables: Record<string, string>;
  /** The query parameters (the filters of the request). */
  filters: Record<string, unknown>;
  request: ApiRequest;
  /** A GraphQL operation's arguments (a custom query's, or a custom mutation's input); absent for REST. */
  args?: Record<string, unknown>;
  /**
   * Items of the operation's resource whose properties equal `equal` (every item for `{}`), at most `limit`;
   * or, given a resource name first, that resource's items matching `criteria`, with `{ limit, order }`.
   */
  find(equal?: Record<string, unknown>, limit?: number): Promise<Item[]>;
  find(resource: string, criteria?: Record<string, unknown>, options?: FindOptions): Promise<Item[]>;
  /** The stored item of `resource` with this identifier, or null. */
  get(resource: string, id: string | number): Promise<Item | null>;
  /** Throws the 422 of a violation at `path`, as validation does (the code may let it through). */
  violation(path: string, message: string): never;
}

/** How `ctx.find(resource, criteria, options)` limits and orders what it finds. */
export interface FindOptions {
  limit?: number;
  /** `{ property: 'asc' | 'desc' }`, in the order given. */
  order?: Record<string, 'asc' | 'desc'>;
}

export interface ProcessorContext extends ProviderContext {
  /** The stored item before this request changed it (null when there was none). */
  previousData: Item | null;
  /**
   * The default write: stores the item (creates or replaces it) and returns it as stored; given a resource name
   * first, stores an item of that resource. Inside the write's transaction (docs/custom-code.md).
   */
  persist(data: Item): Promise<Item>;
  persist(resource: string, item: Item): Promise<Item>;
  /** The default delete; given a resource name first, deletes that resource's item with this identifier. */
  remove(data: Item): Promise<void>;
  remove(resource: string, id: string | number): Promise<void>;
  /**
   * Adds `delta` to a number property atomically and returns the item as stored. Would it go below `min`, it
   * throws a 409 problem and writes nothing.
   */
  increment(
    resource: string,
    id: string | number,
    property: string,
    delta: number,
    options?: { min?: number },
  ): Promise<Item>;
}

export interface ControllerContext extends ProcessorContext {
  /** What the read stage found (the item, or a page for collection operations). */
  data: unknown;
}

/** `(ctx) => data | null | paginator`: null answers 404 (see throwOnNotFound). */
export type Provider = (
  ctx: ProviderContext,
) => Item | Item[] | Paginator | null | Promise<Item | Item[] | Paginator | null>;
/** `(data, ctx) => result`: replaces the default write. */
export type Processor = (data: Item | null, ctx: ProcessorContext) => unknown;
/** `(ctx) => data | paginator`. */
export type Controller = (ctx: ControllerContext) => unknown;
/** A custom GraphQL query's `resolver`: `(ctx) => item | items | paginator` (ctx.args holds its arguments). */
export type QueryResolver = Provider;
/** A custom GraphQL mutation's `resolver`: `(item, ctx) => item`, the item then stored as the mutation stores it. */
export type MutationResolver = (item: Item | null, ctx: ControllerContext) => Item | Promise<Item>;
/** `(metadata) => metadata`, run once at load. Resource metadata: `shortName` and the resource's options; operation metadata: `name`, `kind`, `method`, `uriTemplate` and the options. */
export type Mutator = (metadata: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The request as the authenticator sees it (header names in lower case; no body). */
export interface AuthenticationRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
}
/**
 * `(request) => user | null`: null means anonymous; an object needs `identifier` (string or number) and
 * may give `roles`; throwing rejects the request with 401.
 */
export type Authenticator = (
  request: AuthenticationRequest,
) =>
  | { identifier: string | number; roles?: string[]; [claim: string]: unknown }
  | null
  | Promise<{ identifier: string | number; roles?: string[]; [claim: string]: unknown } | null>;
/** `(attribute, subject, user) => true | false | undefined` (undefined abstains); one true grants. */
export type Voter = (
  attribute: string,
  subject: unknown,
  user: User | null,
) => boolean | undefined | Promise<boolean | undefined>;
