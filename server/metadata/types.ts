/**
 * Runtime metadata: what the interpreter knows about every resource and operation once the
 * `.api` file is loaded (defaults applied, mutators run, custom code imported). Built once by
 * load.ts; read by routing, the pipeline, serialization and documentation.
 */
import type { OperationKind } from '../../grammar/catalogue/types.js';
import type { GlobalOptionName, OptionValue } from '../../grammar/catalogue/index.js';
import type { FilterKindName } from '../../grammar/catalogue/filters.js';
import type { ON_DELETE_ACTIONS } from '../../grammar/catalogue/properties.js';
import type { CompiledExpression } from '../expression/evaluate.js';
import type { CollectionSpec, FieldRules } from '../store/types.js';
import type { MercureSettings, MessengerSettings } from './async-settings.js';
import type { CodeFunction } from './code.js';

/** Global settings of `config`, resolved with their defaults. */
export interface Settings {
  pageParameter: string;
  enabledParameter: string;
  itemsPerPageParameter: string;
  partialParameter: string;
  orderParameter: string;
  existsParameter: string;
  defaultOrder: 'ASC' | 'DESC';
  /** Output/input formats in preference order: name → media types. */
  formats: Record<string, string[]>;
  patchFormats: string[];
  errorFormats: Record<string, string[]>;
  hydraPrefix: boolean;
  bodySizeLimit: number;
  /** `bulk_max_items`: most items one bulk POST may create. */
  bulkMaxItems: number;
  cors: CorsSettings;
  /** `trusted_hosts`: patterns the Host header must match (none: any valid host). */
  trustedHosts: string[];
  /** Limits of the HTTP server, in milliseconds and connections (the `server` settings). */
  server: ServerLimits;
  /** Global defaults of operation options, by option name (`paginationItemsPerPage` → 30). */
  defaults: { readonly [N in GlobalOptionName]?: OptionValue<N> };
  httpCache: HttpCacheSettings;
  /** `config { rate_limit { … } }`: the defaults of every operation's `rateLimit`, and the trusted proxies. */
  rateLimit: RateLimitSettings;
  /** `config mercure`; undefined when no hub is set (then `mercure` options have no effect). */
  mercure?: MercureSettings;
  messenger: MessengerSettings;
  /** `config cluster` (docs/deployment.md). */
  cluster: ClusterSettings;
  /** `config graphql` (docs/graphql.md). */
  graphql: GraphQlSettings;
  /** `config mcp` (docs/mcp.md). */
  mcp: McpSettings;
  /** `config client` (docs/client.md): `serve` answers the typed client package at `GET /sdk.tgz`. */
  client: { serve: boolean };
  /** `config admin` (docs/admin.md). */
  admin: AdminSettings;
  /** `config elasticsearch` (docs/elasticsearch.md). */
  searchIndex: SearchIndexSettings;
}

/** `config { elasticsearch { … } }`, with its defaults and the environment's values. */
export interface SearchIndexSettings {
  /** APIDSL_ELASTICSEARCH_URL (comma-separated), else `hosts`. */
  hosts: string[];
  /** HTTP basic authentication, from the variables `username_env` and `password_env` name. */
  username?: string;
  password?: string;
  /** APIDSL_ELASTICSEARCH_INDEX_PREFIX when set (even empty), else `index_prefix`. */
  indexPrefix: string;
  /** Milliseconds a request to the engine may take. */
  timeout: number;
}

/** `config { admin { … } }`: API Platform Admin at `path` (docs/admin.md). */
export interface AdminSettings {
  /** Default true. */
  enabled: boolean;
  /** Default `/admin`. */
  path: string;
  /** Default: the API's title. */
  title?: string;
}

/** `config { mcp { … } }`: the Model Context Protocol endpoint (docs/mcp.md). */
export interface McpSettings {
  /** Default false: no endpoint, and `apidsl mcp` refuses to start. */
  enabled: boolean;
  /** Default `/mcp`. */
  path: string;
}

/** `config { graphql { … } }`, with its defaults (docs/graphql.md). */
export interface GraphQlSettings {
  /** Default false: `/graphql` answers 404 and no resource has GraphQL operations. */
  enabled: boolean;
  /** Default true: GraphiQL at `/graphql/graphiql`. */
  graphiql: boolean;
  /** Default true; false refuses introspection queries. */
  introspection: boolean;
  /** Default 20. */
  maxQueryDepth: number;
  /** Default 500. */
  maxQueryComplexity: number;
  /** Default `_`: the filter argument of `author.name` is `author_name`. */
  nestingSeparator: string;
}

/** What the instances of one service share besides the store. */
export interface ClusterSettings {
  /** APIDSL_REDIS_URL, else `cluster.redis`; undefined: no Redis (one instance, or workers through their primary). */
  redisUrl?: string;
}

/** `config { rate_limit { … } }` (docs/behaviour.md, "Rate limits"). */
export interface RateLimitSettings {
  /** Unset: operations are limited only where their own `rateLimit` gives a limit. */
  limit?: number;
  /** `"N second(s)|minute(s)|hour(s)"`. */
  interval: string;
  by: 'ip' | 'user';
  /** Addresses and CIDR ranges of the proxies whose `X-Forwarded-For` is believed. */
  trustedProxies: string[];
}

/** `config { cors { … } }`: which browser pages on other origins may call the API. */
export interface CorsSettings {
  allowOrigin: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAge: number;
  credentials: boolean;
}

/** `config { http_cache { … } }` (docs/behaviour.md, "HTTP cache"). */
export interface HttpCacheSettings {
  /** Defaults of the `cacheHeaders` fields, in the option's own snake_case names. */
  headers: CacheHeaders;
  /** Bytes the in-process response cache may hold; 0: off. */
  inProcessMaxBytes: number;
  invalidation: {
    enabled: boolean;
    urls: string[];
    purger: 'varnish-ban' | 'varnish-xkey' | 'souin';
    tagsHeader: string;
    timeout: number;
  };
}

/** The `cacheHeaders` option (and its `http_cache` defaults). */
export interface CacheHeaders {
  max_age?: number;
  shared_max_age?: number;
  vary?: string[];
  public?: boolean;
  etag?: boolean;
  stale_while_revalidate?: number;
}

export interface ServerLimits {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  maxConnections: number;
}

/** The value constraints (`default`, `minimum` … `enum`) are the store's FieldRules: one list of them. */
export interface PropertyMetadata extends FieldRules {
  /**
   * `format` (STRING_FORMATS of the catalogue), checked on each value of a string property. This and the six
   * constraints below are validation only, not FieldRules: stored items are not re-checked when they change.
   */
  format?: string;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  /** Bounds on the number of elements of a list (`T[]`), and whether they must differ. */
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  /** `unique: true`: no two items may hold the same value (a unique index of the store; 422 on a repeat). */
  unique?: boolean;
  /** The `assert` constraints of the property, in the order written. */
  asserts?: Assertion[];
  name: string;
  /** Base type: int, number, string, bool, datetime, date, json, or a resource name (relation). */
  type: string;
  array: boolean;
  /** Target resource of a relation (the property holds its IRIs). */
  relation?: string;
  /** A relation's referential action when its target item is deleted (docs/behaviour.md); default restrict. */
  onDelete?: OnDeleteAction;
  /** A to-many relation whose items belong to the item listing them (orphanRemoval; relations/owned-items.ts). */
  owned?: boolean;
  /** A relation's Symfony MaxDepth: how many levels deep it is embedded when the operation enables max depth. */
  maxDepth?: number;
  identifier: boolean;
  required: boolean;
  /** False when `nullable: false` rejects an explicit null. */
  nullable: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  groups?: string[];
  /**
   * Validation constraints written in object form, by constraint name (`maxLength`): their validation
   * groups (`Default` when the form gives none) and custom message. Others are in `Default`.
   */
  validation?: Record<string, { groups: string[]; message?: string }>;
  description?: string;
  /** Property `security`: who may see it (compiled at load). */
  security?: CompiledExpression;
  /** Property `securityPostDenormalize`: who may change it. */
  securityPostDenormalize?: CompiledExpression;
  /** A denied write answers 403 instead of keeping the stored value. */
  throwOnAccessDenied?: boolean;
  /** True when any validation constraint is declared (API Platform 4.4 then answers type errors with 422). */
  constrained: boolean;
  /**
   * A value the server gives a created item that has none (docs/behaviour.md, "Values the server sets"):
   * `now` (`default: now`), or an expression's value (`default: { expression: "user.identifier" }`).
   */
  serverDefault?: 'now' | CompiledExpression;
  /** `onUpdate: now`: the time of every write that stores the item, create and update. */
  onUpdate?: 'now';
  /** `renamedFrom`: its name in the previous version of the file (`apidsl diff`, docs/diff.md). */
  renamedFrom?: string;
}

export type { CodeFunction } from './code.js';

export interface OperationMetadata {
  name: string;
  kind: OperationKind;
  /** Upper-case HTTP method. */
  method: string;
  resource: ResourceMetadata;
  /**
   * The operation's `shortName` (default the resource's): the `@type` and context of what it returns, its
   * generated route and its schema names (docs/behaviour.md, "Operation shortName").
   */
  shortName: string;
  /** Route template, route prefix included: `/geo/places/{id}`. */
  path: string;
  uriVariables: string[];
  /** A collection operation: it answers a collection document (GetCollection, Query). */
  isCollection: boolean;
  /** Automatic IRI routes: always 404, in no documentation. */
  hidden: boolean;
  /** The 404 detail of a hidden route. */
  hiddenDetail?: string;
  /**
   * Options as written (resource-level values merged under the operation's own) and as
   * mutators left them. Global and catalogue defaults apply at use: see options.ts.
   */
  options: Readonly<Record<string, unknown>>;
  provider?: CodeFunction;
  processor?: CodeFunction;
  controller?: CodeFunction | 'NotFoundAction';
  /**
   * The REST operation this one is another face of (a GraphQL operation without a resolver, and a REST operation
   * of its resource of the same kind): they share that operation's rate limit and count.
   */
  faceOf?: OperationMetadata;
}

/** One `assert` constraint (Symfony's Expression constraint), on a property or on the whole item. */
export interface Assertion {
  expression: CompiledExpression;
  /** The violation message; undefined: Symfony's "This value is not valid.". */
  message?: string;
  /** The validation groups it belongs to. */
  groups: string[];
}

export interface ResourceMetadata {
  /** The name the file declares (`resource Book`); `shortName` is the one it is known by (`@type`, paths, store). */
  name: string;
  shortName: string;
  /** The resource's `assert` constraints (on the whole item), in the order written. */
  asserts?: Assertion[];
  description?: string;
  properties: PropertyMetadata[];
  identifier?: PropertyMetadata;
  /** `/geo/places`. */
  collectionPath: string;
  /** `/geo/places/{id}`; undefined without an identifier. */
  itemPath?: string;
  /** Registered operations in declaration order, hidden ones last. */
  operations: OperationMetadata[];
  /** Resource-level options after resource mutators. */
  options: Readonly<Record<string, unknown>>;
  storage: CollectionSpec;
  /**
   * Its GraphQL operations (declared in its `graphql { … }` block, or API Platform's defaults), in declaration
   * order; empty while `config graphql.enabled` is false.
   */
  graphQlOperations: GraphQlOperationMetadata[];
}

export type GraphQlKind = 'Query' | 'QueryCollection' | 'Mutation' | 'DeleteMutation' | 'Subscription';

/** A GraphQL argument declared by `args` or `extraArgs`: its GraphQL type as written (`String!`, `[ID]`). */
export interface GraphQlArgument {
  type: string;
  description?: string;
}

/** One GraphQL operation of a resource (docs/graphql.md). */
export interface GraphQlOperationMetadata {
  kind: GraphQlKind;
  /** As written (`create`, `update`, `delete`, `byIsbn`); undefined for an unnamed Query, QueryCollection or Subscription. */
  name?: string;
  /**
   * Its root field: `book`, `books`, `createBook`, `updateBook`, `deleteBook`, `updateBookSubscribe`,
   * `byIsbnBook` (a named operation: name + shortName), `cheapBooks` (a named QueryCollection: name + plural).
   */
  fieldName: string;
  /**
   * What the pipeline runs for it (pipeline/execute.ts): never routed, in no REST documentation, not in
   * `resource.operations`. Its kind: Get (Query, Subscription), GetCollection (QueryCollection), Post (`create`, and a
   * custom Mutation whose `args` have no `id`), Patch (`update` and other Mutations), Delete (DeleteMutation). Its
   * path the resource's collection or item path, its options the resource-level ones merged under its own, as for
   * REST; its name `_graphql_<fieldName>`.
   */
  operation: OperationMetadata;
  /** `resolver`: a custom query's `(ctx) => item | items | paginator`, a custom mutation's `(item, ctx) => item`. */
  resolver?: CodeFunction;
  /**
   * The REST operation it mirrors (catalogue `graphQlTwinKinds`): Get, GetCollection, Post, Patch or else Put,
   * Delete. Without security expressions of its own, `operation` runs the twin's (docs/graphql.md).
   */
  twin?: OperationMetadata;
  /** `args`: replace the operation's default arguments (or input fields, for a mutation). */
  args?: Record<string, GraphQlArgument>;
  /** `extraArgs`: added to the default arguments. */
  extraArgs?: Record<string, GraphQlArgument>;
  /**
   * A Query or QueryCollection that only resolves the type where a relation reaches it (API Platform's `nested`):
   * no root field. The loader adds nested ones for a resource without a Query or QueryCollection.
   */
  nested: boolean;
}

export type FilterKind = FilterKindName;

export type OnDeleteAction = (typeof ON_DELETE_ACTIONS)[number];

/** A declared filter: its kind and, per property, the setting of a map-form `properties`. */
export interface FilterMetadata {
  name: string;
  kind: FilterKind;
  properties: { name: string; setting?: string }[];
  description?: string;
}

/** Bearer JWT verification of `config { security { jwt } }`, resolved at load. */
export interface JwtMetadata {
  /** Verifies a compact JWT (signature, algorithm, time claims, issuer, audience); resolves with its payload or throws. */
  verify(token: string): Promise<Record<string, unknown>>;
  /** Accepted signature algorithms, pinned by the key type. */
  algorithms: string[];
  issuer?: string;
  audience?: string;
  rolesClaim: string;
  userClaim: string;
  /** The environment variable of the shared secret, when HS* tokens are verified. */
  secretEnv?: string;
  /** Why no token can be verified (the secret variable is unset): every Bearer token is then rejected. */
  unusable?: string;
  /** The shared secret is shorter than an accepted HS algorithm needs (RFC 7518 §3.2): `serve` warns. */
  weakSecret?: string;
}

/** `config { security { … } }` resolved at load: authentication, role hierarchy, voters. */
export interface SecurityMetadata {
  jwt?: JwtMetadata;
  /** Custom authentication: `(request) => user | null`. */
  authenticator?: CodeFunction;
  /** Each role of the hierarchy → every role it grants, itself included (transitively, cycles safe). */
  roleHierarchy: Map<string, readonly string[]>;
  /** `(attribute, subject, user) => true | false | undefined`, asked in order. */
  voters: CodeFunction[];
}

export interface ApiMetadata {
  security: SecurityMetadata;
  title: string;
  version?: string;
  description?: string;
  settings: Settings;
  resources: ResourceMetadata[];
  filters: Map<string, FilterMetadata>;
  /** Message handlers of `config messenger.handlers`, by message class. */
  messageHandlers: Map<string, CodeFunction>;
  resource(name: string): ResourceMetadata | undefined;
}
