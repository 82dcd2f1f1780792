/**
 * Every option of a resource or an operation: API Platform's operation options, its routing
 * options, `strictQueryParameterValidation` and the resource-only `routePrefix`. One row per option;
 * docs/options.md is generated from this table.
 */
import {
  GRAPHQL_KINDS,
  OPERATION_KINDS,
  type FieldSpec,
  type GraphQlKindName,
  type OperationKind,
  type OptionSpec,
  type Placement,
  type ValueOf,
  type ValueType,
} from './types.js';
import { ASSERTIONS } from './properties.js';

const STRING = { kind: 'string' } as const satisfies ValueType;
const BOOL = { kind: 'bool' } as const satisfies ValueType;
const INT = { kind: 'int' } as const satisfies ValueType;
const PHP_ARRAY = { kind: 'phpArray' } as const satisfies ValueType;
const EXPRESSION = { kind: 'expression' } as const satisfies ValueType;
/** A serializer context: Symfony's keys that apidsl reads are typed, other keys are taken as written. */
const DENORMALIZATION_CONTEXT = {
  kind: 'record',
  open: true,
  emptyList: true,
  fields: {
    groups: {
      type: { kind: 'oneOf', of: [{ kind: 'string' }, { kind: 'list', of: { kind: 'string' } }] },
      doc: 'The serialization groups whose properties a body may set.',
    },
    allow_extra_attributes: {
      type: { kind: 'bool' },
      doc: 'false: a body holding attributes the operation does not take answers 400 (default true: they are ignored).',
    },
  },
} as const satisfies ValueType;
const CODE_REF = { kind: 'codeRef' } as const satisfies ValueType;

/** Kinds that do not answer a collection document: filters, order and pagination do nothing there. */
const NOT_LISTING: readonly OperationKind[] = ['Post', 'Get', 'Put', 'Patch', 'Delete'];

/** On the resource (as the default of its operations) and on every operation kind. */
const EVERYWHERE: Placement = { resource: true, operations: OPERATION_KINDS };
/** Like EVERYWHERE, but only effective on listing kinds (GetCollection, Query, HttpOperation). */
const LISTING: Placement = { resource: true, operations: OPERATION_KINDS, ineffectiveOn: NOT_LISTING };
/** Routing options: per operation, never on the resource. */
const PER_OPERATION: Placement = { resource: false, operations: OPERATION_KINDS };

// GraphQL operation kinds an option is allowed on (`placement.graphql`); routing options are on none of them.
const GQL_ALL = GRAPHQL_KINDS;
const GQL_COLLECTION: readonly GraphQlKindName[] = ['QueryCollection'];
const GQL_QUERIES: readonly GraphQlKindName[] = ['Query', 'QueryCollection'];
/** Those that read an input (deserialize, validate it). */
const GQL_INPUT: readonly GraphQlKindName[] = ['Mutation'];
const GQL_WRITES: readonly GraphQlKindName[] = ['Mutation', 'DeleteMutation'];
/** EVERYWHERE, and on these GraphQL kinds. */
const everywhereAnd = (graphql: readonly GraphQlKindName[]): Placement => ({ ...EVERYWHERE, graphql });
/** LISTING, and on QueryCollection. */
const LISTING_AND_GQL: Placement = { ...LISTING, graphql: GQL_COLLECTION };

const CURSOR_FIELD = {
  kind: 'record',
  fields: {
    field: { type: STRING, required: true, doc: 'Property the cursor is built on.' },
    direction: {
      type: { kind: 'enum', values: ['ASC', 'DESC'], caseInsensitive: true },
      required: true,
      doc: 'Sort direction of the cursor field.',
    },
  },
} as const satisfies ValueType;

const LINK = {
  kind: 'record',
  open: true,
  fields: {
    parameterName: { type: STRING, doc: 'URI variable the link binds.' },
    fromClass: { type: STRING, doc: 'Resource the variable comes from.' },
    toClass: {
      type: STRING,
      doc: "Resource the variable points to (not supported yet: always the operation's resource).",
      unsupported: {},
    },
    fromProperty: { type: STRING, doc: 'Property of fromClass holding the relation.' },
    toProperty: { type: STRING, doc: 'Property of toClass holding the relation.' },
    identifiers: { type: { kind: 'list', of: STRING }, doc: 'Identifier properties.' },
    compositeIdentifier: {
      type: BOOL,
      doc: 'Whether the identifiers form one composite variable (not supported yet).',
      unsupported: {},
    },
    expandedValue: { type: STRING, doc: 'Value of the variable once expanded (not supported yet).', unsupported: {} },
    security: {
      type: EXPRESSION,
      doc: "Access expression on the linked object: not supported yet, so the checker refuses it (use the operation's `security`).",
      unsupported: { refuse: true },
    },
    securityMessage: { type: STRING, doc: 'Message paired with security (not supported yet).', unsupported: {} },
  },
} as const satisfies ValueType;

/** `args` and `extraArgs`: GraphQL arguments by name. */
const GRAPHQL_ARGUMENTS = {
  kind: 'map',
  of: {
    kind: 'record',
    fields: {
      type: {
        type: { kind: 'string', format: 'graphQlType' },
        required: true,
        doc: "The argument's GraphQL type: `String`, `Int`, `Float`, `Boolean`, `ID` or `Iterable`, in lists and non-null as needed (`String!`, `[ID]`).",
      },
      description: { type: STRING, doc: 'Shown in the GraphQL schema.' },
    },
  },
} as const satisfies ValueType;

const PARAMETER = {
  kind: 'record',
  fields: {
    filter: { type: { kind: 'filterRef' }, required: true, doc: 'Declared filter that applies the criterion.' },
    property: { type: STRING, doc: 'Property the filter is applied to (default: the parameter name).' },
    required: { type: BOOL, doc: 'The parameter must be present (400 otherwise).' },
    description: { type: STRING, doc: 'Shown in the OpenAPI and Hydra documentation.' },
    security: {
      type: EXPRESSION,
      doc: 'Access expression checked when the request gives the parameter: denied, 401 (anonymous) or 403.',
    },
    securityMessage: { type: STRING, doc: "The problem's detail when the parameter's `security` denies." },
  },
} as const satisfies ValueType;

/** The object form of `mercure` (API Platform's Mercure attribute options). */
const MERCURE_OPTIONS = {
  kind: 'record',
  fields: {
    topics: {
      type: { kind: 'list', of: STRING },
      doc:
        'Topics of the updates, replacing the item IRI; one that starts with `@=` is an expression of `object` ' +
        '(the item, its to-one relations readable through) calling `iri()` and `escape()`: `"@=iri(object)"`, ' +
        "`\"@='/users/' ~ object.owner ~ '/orders'\"`.",
    },
    private: { type: BOOL, doc: 'Private updates: only subscribers whose JWT allows a topic receive them.' },
    type: { type: STRING, doc: 'SSE event type of the updates (default: none, `message`).' },
    retry: { type: { kind: 'int', min: 0 }, doc: 'Reconnection delay (ms) announced to subscribers.' },
  },
} as const satisfies ValueType;

/** API Platform's `cacheHeaders`: the Cache-Control and Vary of the operation's successful GET/HEAD responses. */
export const CACHE_HEADERS = {
  kind: 'record',
  fields: {
    max_age: { type: { kind: 'int', min: 0 }, doc: '`max-age` (seconds) of the Cache-Control header.' },
    shared_max_age: {
      type: { kind: 'int', min: 0 },
      doc: '`s-maxage` (seconds): how long shared caches (Varnish, Souin, a CDN) keep the response; left out when `public` is false.',
    },
    vary: {
      type: { kind: 'list', of: STRING },
      doc: 'Request headers added to `Vary` (besides `Accept`), replacing `http_cache.vary`.',
    },
    public: { type: BOOL, doc: '`public` (true) or `private` (false) in Cache-Control; unset: neither.' },
    etag: {
      type: BOOL,
      doc: 'An ETag of the body and 304 to a matching If-None-Match (default `http_cache.etag`, true).',
    },
    stale_while_revalidate: {
      type: { kind: 'int', min: 0 },
      doc: '`stale-while-revalidate` (seconds) of the Cache-Control header.',
    },
  },
} as const satisfies ValueType;

/** The fields of `rateLimit`, also the settings of `config { rate_limit }` (settings.ts). */
export const RATE_LIMIT_FIELDS = {
  limit: {
    type: { kind: 'int', min: 1 },
    doc: 'Requests a client may make per interval (default `rate_limit.limit`; none: no limit).',
  },
  interval: {
    type: { kind: 'string', format: 'interval' },
    doc: 'The window: `"N second(s)|minute(s)|hour(s)"` (default `rate_limit.interval`, `"1 minute"`).',
  },
  by: {
    type: { kind: 'enum', values: ['ip', 'user'] },
    doc: 'Count per client address (`"ip"`) or per authenticated user (`"user"`; anonymous requests by address); default `rate_limit.by`.',
  },
  for: {
    type: { kind: 'enum', values: ['all', 'anonymous', 'authenticated'] },
    doc: 'Whose requests the limit counts: `"anonymous"` ones only, `"authenticated"` ones only, or `"all"` (the default); the others are not limited.',
  },
} as const satisfies Record<string, FieldSpec>;

const STAGE_NOTE = 'default true; the runtime skips the stage where the kind has nothing to do for it';

const OPTION_TABLE = [
  // ---- Operation options (API Platform's operation options) ----
  {
    name: 'links',
    group: 'operation',
    type: { kind: 'list', of: LINK },
    placement: EVERYWHERE,
    doc: "Binds URI variables to relations: `{ parameterName, fromClass, toProperty | fromProperty, identifiers }` (API Platform's Link).",
  },
  {
    name: 'shortName',
    group: 'operation',
    type: STRING,
    placement: EVERYWHERE,
    doc: "Short name of the resource (JSON-LD `@type`, context, generated path); default the resource name. On an operation, that operation's alone: the `@type` of the items it returns, its `@context` (`/contexts/<shortName>`, served), its generated path (without `uriTemplate`) and its schema names in the OpenAPI and Hydra documentation; the resource's other operations keep the resource's.",
  },
  {
    name: 'class',
    effect: { kind: 'compatibility' },
    group: 'operation',
    type: STRING,
    placement: EVERYWHERE,
    doc: 'PHP class of the resource in API Platform; kept in metadata.',
  },
  {
    name: 'paginationEnabled',
    group: 'operation',
    type: BOOL,
    placement: LISTING_AND_GQL,
    default: true,
    globalName: 'pagination_enabled',
    doc: 'Enables/disables pagination for the collection operation.',
  },
  {
    name: 'paginationItemsPerPage',
    group: 'operation',
    type: { kind: 'int', min: 0 },
    placement: LISTING_AND_GQL,
    default: 30,
    globalName: 'pagination_items_per_page',
    doc: 'Items per page.',
  },
  {
    name: 'paginationMaximumItemsPerPage',
    group: 'operation',
    type: { kind: 'int', min: 0 },
    placement: LISTING_AND_GQL,
    globalName: 'pagination_maximum_items_per_page',
    doc: 'Maximum items per page; a larger client `itemsPerPage` is clamped to it.',
  },
  {
    name: 'paginationPartial',
    group: 'operation',
    type: BOOL,
    placement: LISTING_AND_GQL,
    default: false,
    globalName: 'pagination_partial',
    doc: 'Enables partial pagination: no total count query, no `totalItems`, no `last` link.',
  },
  {
    name: 'paginationClientEnabled',
    group: 'operation',
    type: BOOL,
    placement: LISTING_AND_GQL,
    default: false,
    globalName: 'pagination_client_enabled',
    doc: 'Lets the client enable/disable pagination (`?pagination=`).',
  },
  {
    name: 'paginationClientItemsPerPage',
    group: 'operation',
    type: BOOL,
    placement: LISTING_AND_GQL,
    default: false,
    globalName: 'pagination_client_items_per_page',
    doc: 'Lets the client set the page size (`?itemsPerPage=`).',
  },
  {
    name: 'paginationClientPartial',
    group: 'operation',
    type: BOOL,
    placement: LISTING_AND_GQL,
    default: false,
    globalName: 'pagination_client_partial',
    doc: 'Lets the client toggle partial pagination (`?partial=`).',
  },
  {
    name: 'paginationFetchJoinCollection',
    effect: { kind: 'compatibility' },
    group: 'operation',
    type: BOOL,
    placement: LISTING,
    doc: 'Overrides the guess of whether counting needs an extra query for joined collections; kept in metadata.',
  },
  {
    name: 'paginationUseOutputWalkers',
    effect: { kind: 'compatibility' },
    group: 'operation',
    type: BOOL,
    placement: LISTING,
    doc: 'Overrides the guess of whether the relational paginator uses output walkers; kept in metadata.',
  },
  {
    name: 'paginationViaCursor',
    group: 'operation',
    type: { kind: 'list', of: CURSOR_FIELD },
    placement: LISTING,
    doc: 'Cursor pagination on these fields; a range and an order filter on each field must be among the filters.',
  },
  {
    name: 'order',
    group: 'operation',
    type: PHP_ARRAY,
    placement: LISTING_AND_GQL,
    doc: 'Default sort, e.g. `{ title: "DESC" }` or `["title"]` (ascending); unset: by identifier (`collection.order`).',
  },
  {
    name: 'mcp',
    group: 'operation',
    type: BOOL,
    placement: EVERYWHERE,
    default: true,
    doc: 'false: the operation (on a resource: each of its operations) is no tool of the MCP endpoint (`config mcp`, docs/mcp.md).',
  },
  {
    name: 'description',
    group: 'operation',
    type: STRING,
    placement: everywhereAnd(GQL_ALL),
    doc: 'Human description, shown in the Hydra and OpenAPI documentation.',
  },
  {
    name: 'normalizationContext',
    group: 'operation',
    type: PHP_ARRAY,
    placement: everywhereAnd(GQL_ALL),
    doc:
      'Output serializer context: `groups` selects properties by their `groups` (and embeds the relations whose target has ' +
      "properties in them); `enable_max_depth: true` applies the relations' `maxDepth`; `hydra_prefix` overrides the setting.",
  },
  {
    name: 'denormalizationContext',
    group: 'operation',
    type: DENORMALIZATION_CONTEXT,
    placement: everywhereAnd(GQL_INPUT),
    globalName: 'denormalization_context',
    doc:
      'Input serializer context: `groups` selects the writable properties by their `groups`; `allow_extra_attributes: false` ' +
      'refuses (400) a body holding attributes the operation does not take (undeclared, read-only or outside the groups). ' +
      'The global default is merged under it key by key.',
  },
  {
    name: 'collectDenormalizationErrors',
    group: 'operation',
    type: BOOL,
    placement: everywhereAnd(GQL_INPUT),
    default: false,
    doc: 'Reports every type error of the input at once (422 violation list) instead of failing on the first, relation IRIs that name no item included.',
  },
  {
    name: 'security',
    group: 'operation',
    type: EXPRESSION,
    placement: everywhereAnd(GQL_ALL),
    doc: 'Access expression, checked before processing.',
  },
  {
    name: 'securityMessage',
    group: 'operation',
    type: STRING,
    placement: everywhereAnd(GQL_ALL),
    doc: 'Message paired with `security`.',
  },
  {
    name: 'securityPostDenormalize',
    group: 'operation',
    type: EXPRESSION,
    placement: everywhereAnd(GQL_INPUT),
    doc: 'Access expression checked after the input is denormalized.',
  },
  {
    name: 'securityPostDenormalizeMessage',
    group: 'operation',
    type: STRING,
    placement: everywhereAnd(GQL_INPUT),
    doc: 'Message paired with `securityPostDenormalize`.',
  },
  {
    name: 'securityPostValidation',
    group: 'operation',
    type: EXPRESSION,
    placement: everywhereAnd(GQL_INPUT),
    doc: 'Access expression checked after validation.',
  },
  {
    name: 'securityPostValidationMessage',
    group: 'operation',
    type: STRING,
    placement: everywhereAnd(GQL_INPUT),
    doc: 'Message paired with `securityPostValidation`.',
  },
  {
    name: 'scope',
    group: 'operation',
    type: {
      kind: 'oneOf',
      of: [
        EXPRESSION,
        {
          kind: 'record',
          fields: {
            read: { type: EXPRESSION, doc: 'The items a request may read: every query of the operation holds it.' },
            write: {
              type: EXPRESSION,
              doc: 'What a write must hold to, for the stored item and for the item as it would be stored (default: `read`).',
            },
          },
        },
      ],
    },
    placement: EVERYWHERE,
    doc:
      'Row-level scope (docs/scopes.md): an expression on `object` compiled into every query of the operation, or ' +
      '`{ read, write }`. An item outside the read scope is not there (404, left out of pages and counts); a write ' +
      "outside the write scope answers 403. An operation's own replaces the resource's.",
  },
  {
    name: 'scopeMessage',
    group: 'operation',
    type: STRING,
    placement: EVERYWHERE,
    doc: 'The 403 detail when a write leaves the write `scope` (default `Access Denied.`).',
  },
  {
    name: 'deprecationReason',
    group: 'operation',
    type: STRING,
    placement: everywhereAnd(GQL_ALL),
    doc: 'Marks the operation deprecated with this message.',
  },
  {
    name: 'filters',
    group: 'operation',
    type: { kind: 'list', of: { kind: 'filterRef' } },
    placement: LISTING_AND_GQL,
    doc: 'Names of filters available on the collection routes.',
  },
  {
    name: 'validationContext',
    group: 'operation',
    type: PHP_ARRAY,
    placement: everywhereAnd(GQL_INPUT),
    doc: 'Validation context, e.g. `{ groups: ["Default", "create"] }` (validation groups).',
  },
  {
    name: 'input',
    group: 'operation',
    type: { kind: 'oneOf', of: [PHP_ARRAY, STRING, { kind: 'false' }] },
    placement: everywhereAnd(GQL_INPUT),
    doc: 'Input data representation; `false` disables it (no request body is read).',
  },
  {
    name: 'output',
    group: 'operation',
    type: { kind: 'oneOf', of: [PHP_ARRAY, STRING, { kind: 'false' }] },
    placement: everywhereAnd(GQL_ALL),
    doc: 'Output data representation; `false` disables it (no response body).',
  },
  {
    name: 'mercure',
    group: 'operation',
    type: { kind: 'oneOf', of: [BOOL, MERCURE_OPTIONS, STRING] },
    placement: everywhereAnd(GQL_ALL),
    unsupported: {
      valueKinds: ['string'],
      message: 'a string (an expression in API Platform) is not supported yet; write true or { topics, private, … }',
    },
    doc: 'Publishes every create, update and delete to the hub of `config mercure`: `true` or `{ topics, private, type, retry }` (a string is not supported yet).',
  },
  {
    name: 'messenger',
    group: 'operation',
    type: { kind: 'oneOf', of: [BOOL, { kind: 'enum', values: ['input', 'persist'] }] },
    placement: everywhereAnd(GQL_WRITES),
    doc:
      '`true`: the validated item is dispatched to the message bus (`config messenger`) instead of being stored (202); ' +
      '`"input"`: the request body as received is dispatched; `"persist"`: stored, then dispatched.',
  },
  {
    name: 'elasticsearch',
    group: 'operation',
    type: BOOL,
    placement: EVERYWHERE,
    doc:
      'Get and GetCollection read from the search index of `config elasticsearch` (Elasticsearch, OpenSearch or an engine ' +
      'speaking their API), which every write of the resource keeps up to date after the store commits (docs/elasticsearch.md).',
  },
  {
    name: 'urlGenerationStrategy',
    group: 'operation',
    type: { kind: 'int', min: 0, max: 3 },
    placement: EVERYWHERE,
    default: 1,
    globalName: 'url_generation_strategy',
    doc:
      "How IRIs and links are written (API Platform's UrlGeneratorInterface): `1` absolute path `/books/1`, `0` absolute URL " +
      "`http://host/books/1` (the request's scheme and Host), `2` path relative to the request's (`books/1` from `/books`, " +
      "`../authors/2` from `/books/1`), `3` network path `//host/books/1`; item IRIs follow their item Get's, relations their target's.",
  },
  {
    name: 'read',
    group: 'operation',
    type: BOOL,
    placement: everywhereAnd(GQL_ALL),
    default: true,
    doc: `Pipeline stage switch: load the data through the provider (${STAGE_NOTE}, e.g. Post without URI variables).`,
  },
  {
    name: 'deserialize',
    group: 'operation',
    type: BOOL,
    placement: everywhereAnd(GQL_INPUT),
    default: true,
    doc: `Pipeline stage switch: decode the request body (${STAGE_NOTE}, e.g. Get, Delete).`,
  },
  {
    name: 'validate',
    group: 'operation',
    type: BOOL,
    placement: everywhereAnd(GQL_INPUT),
    default: true,
    doc: `Pipeline stage switch: check the input against the property constraints (${STAGE_NOTE}).`,
  },
  {
    name: 'write',
    group: 'operation',
    type: BOOL,
    placement: everywhereAnd(GQL_WRITES),
    default: true,
    doc: `Pipeline stage switch: persist through the processor (${STAGE_NOTE}, e.g. Get, GetCollection, Query).`,
  },
  {
    name: 'serialize',
    group: 'operation',
    type: BOOL,
    placement: everywhereAnd(GQL_ALL),
    default: true,
    doc: 'Pipeline stage switch: encode the result into the response body (default true).',
  },
  {
    name: 'fetchPartial',
    effect: { kind: 'compatibility' },
    group: 'operation',
    type: BOOL,
    placement: EVERYWHERE,
    doc: 'Doctrine partial fetching of the serialized fields in API Platform; kept in metadata.',
  },
  {
    name: 'forceEager',
    effect: { kind: 'compatibility' },
    group: 'operation',
    type: BOOL,
    placement: EVERYWHERE,
    doc: 'Forces Doctrine eager loading of relations in API Platform; kept in metadata.',
  },
  {
    name: 'priority',
    group: 'operation',
    type: INT,
    placement: EVERYWHERE,
    doc: 'Route priority: among routes matching the same path, the higher priority is tried first (default 0).',
  },
  {
    name: 'name',
    group: 'operation',
    type: STRING,
    placement: { resource: false, operations: OPERATION_KINDS, graphql: GQL_ALL },
    doc: 'Operation name (same as the name after the kind); default `_api_<path>_<method>`.',
  },
  {
    name: 'provider',
    group: 'operation',
    type: CODE_REF,
    placement: everywhereAnd(GQL_ALL),
    doc: 'Supplies the data of the operation: `"./file.mjs#export"`.',
  },
  {
    name: 'processor',
    group: 'operation',
    type: CODE_REF,
    placement: everywhereAnd(GQL_WRITES),
    doc: 'Persists or processes the data, replacing the default write: `"./file.mjs#export"`.',
  },
  {
    name: 'stateOptions',
    group: 'operation',
    type: { kind: 'map', of: { kind: 'any' } },
    placement: EVERYWHERE,
    doc:
      'Options for the state provider and processor: `{ index: "books_v2" }` names the search index of an `elasticsearch` ' +
      'resource (docs/elasticsearch.md); `{ table: "books" }` names the table of the resource on the PostgreSQL store ' +
      '(default: the resource name in snake case; docs/postgresql.md); other keys (e.g. another entity class in API ' +
      'Platform) are kept in metadata only.',
  },
  {
    name: 'extraProperties',
    effect: { kind: 'compatibility' },
    group: 'operation',
    type: PHP_ARRAY,
    placement: EVERYWHERE,
    doc: 'Free-form extra metadata for extensions and custom code; kept in metadata.',
  },

  {
    name: 'cacheHeaders',
    group: 'operation',
    type: CACHE_HEADERS,
    placement: { resource: true, operations: OPERATION_KINDS, ineffectiveOn: ['Post', 'Put', 'Patch', 'Delete'] },
    doc:
      'HTTP cache headers of successful GET/HEAD responses: `{ max_age, shared_max_age, vary, public, etag, stale_while_revalidate }`, ' +
      'each field over its `http_cache` default (docs/behaviour.md, "HTTP cache").',
  },

  // ---- Beyond API Platform's options ----
  {
    name: 'rateLimit',
    group: 'operation',
    type: { kind: 'oneOf', of: [{ kind: 'false' }, { kind: 'record', fields: RATE_LIMIT_FIELDS }] },
    placement: EVERYWHERE,
    doc:
      'Requests each client may make to the operation per interval: `{ limit, interval, by, for }`, each field over ' +
      '`config rate_limit`; past it 429 with `Retry-After` (docs/behaviour.md, "Rate limits"). `false`: no limit.',
  },
  {
    name: 'strictQueryParameterValidation',
    group: 'operation',
    type: BOOL,
    placement: LISTING,
    default: false,
    doc: 'Unknown query (or QUERY body) parameters answer 400.',
  },
  {
    name: 'bulk',
    group: 'operation',
    type: BOOL,
    placement: { resource: false, operations: ['Post'] },
    default: false,
    doc:
      'A JSON array (or `application/x-ndjson` lines) posted to the collection creates every item, all or none, each through ' +
      'the stages of a single POST; 422 violations name the item (`[3].title`); at most `bulk_max_items`. See docs/data.md "Bulk writes".',
  },
  {
    name: 'requireIfMatch',
    group: 'operation',
    type: BOOL,
    placement: { resource: true, operations: ['Put', 'Patch', 'Delete'], graphql: GQL_WRITES },
    default: false,
    doc:
      'A write that names no version (no `If-Match`; GraphQL and MCP: no `ifMatch`) answers 428 Precondition Required, ' +
      'so no client overwrites a change it has not seen (docs/behaviour.md, "Conditional writes"). A creating ' +
      'Put may send `If-None-Match: *` instead.',
  },

  // ---- GraphQL operations' own options (in a resource's graphql block) ----
  {
    name: 'resolver',
    group: 'operation',
    type: CODE_REF,
    placement: { resource: false, operations: [], graphql: ['Query', 'QueryCollection', 'Mutation'] },
    doc:
      'The code of a custom GraphQL operation (a named one): `"./file.mjs#export"`. A Query\'s resolver returns the item, ' +
      "a QueryCollection's the items (or a page), a Mutation's receives the item read by `id` with its input applied and " +
      'returns the item to write; a named Query or QueryCollection needs one.',
  },
  {
    name: 'args',
    group: 'operation',
    type: GRAPHQL_ARGUMENTS,
    placement: { resource: false, operations: [], graphql: GQL_ALL },
    doc:
      'The arguments of the GraphQL field, replacing its default ones (for a mutation: the fields of its input), ' +
      '`{ isbn: { type: "String!", description: "…" } }`; the resolver receives their values.',
  },
  {
    name: 'extraArgs',
    group: 'operation',
    type: GRAPHQL_ARGUMENTS,
    placement: { resource: false, operations: [], graphql: GQL_ALL },
    doc: 'Arguments added to the default ones of the GraphQL field (for a mutation: fields added to its input), written as `args`.',
  },
  {
    name: 'nested',
    group: 'operation',
    type: BOOL,
    placement: { resource: false, operations: [], graphql: GQL_QUERIES },
    default: false,
    doc: 'The Query or QueryCollection gets no root field: it only resolves the type where a relation reaches it.',
  },
  {
    name: 'paginationType',
    group: 'operation',
    type: { kind: 'enum', values: ['page', 'cursor'] },
    placement: { resource: true, operations: [], graphql: GQL_COLLECTION },
    default: 'cursor',
    doc:
      'How a GraphQL QueryCollection pages: `cursor`, a cursor connection (`first`, `last`, `before`, `after`; `edges`, ' +
      '`pageInfo`, `totalCount`), or `page`, a page connection (`page`, `itemsPerPage`; `collection`, `paginationInfo`). ' +
      'On the resource: the default of its QueryCollections.',
  },

  // ---- Routing options ----
  {
    name: 'uriTemplate',
    group: 'routing',
    type: { kind: 'uriTemplate' },
    placement: PER_OPERATION,
    doc: 'Path of the operation, replacing the generated one; placeholders such as `{id}` may use `requirements`.',
  },
  {
    name: 'itemUriTemplate',
    group: 'routing',
    type: { kind: 'uriTemplate' },
    placement: { resource: false, operations: ['GetCollection', 'Post'] },
    doc: 'The `uriTemplate` of the item operation that generates the item IRIs in this response.',
  },
  {
    name: 'method',
    group: 'routing',
    type: { kind: 'httpMethod' },
    placement: PER_OPERATION,
    doc: 'HTTP method; implied by the kind, required on HttpOperation.',
  },
  {
    name: 'requirements',
    group: 'routing',
    type: { kind: 'map', of: STRING },
    placement: PER_OPERATION,
    doc: 'Map from path variable to the regular expression it must match.',
  },
  {
    name: 'defaults',
    group: 'routing',
    type: { kind: 'map', of: { kind: 'any' } },
    placement: PER_OPERATION,
    doc: 'Default values of route variables; a trailing placeholder with a default may be left out of the URL.',
  },
  {
    name: 'options',
    effect: { kind: 'compatibility' },
    group: 'routing',
    type: { kind: 'map', of: { kind: 'any' } },
    placement: PER_OPERATION,
    doc: 'Route options (Symfony routing); kept in metadata.',
  },
  {
    name: 'schemes',
    group: 'routing',
    type: { kind: 'list', of: STRING },
    placement: PER_OPERATION,
    doc: 'URL schemes the route accepts, for example `["https"]`.',
  },
  {
    name: 'host',
    group: 'routing',
    type: STRING,
    placement: PER_OPERATION,
    doc: 'Host the route matches; may contain placeholders.',
  },
  {
    name: 'status',
    group: 'routing',
    type: { kind: 'int', min: 100, max: 599 },
    placement: PER_OPERATION,
    doc: 'Static success status; a runtime `_api_response_status` wins over it, and it over the default status.',
  },
  {
    name: 'controller',
    group: 'routing',
    type: { kind: 'codeRef', builtins: ['NotFoundAction'] },
    placement: PER_OPERATION,
    doc: 'Handler of the route: `"./file.mjs#export"`, or `"NotFoundAction"` (answers 404).',
  },
  {
    name: 'allowCreate',
    group: 'routing',
    type: BOOL,
    placement: { resource: false, operations: ['Put'] },
    default: false,
    doc: 'A PUT on a missing item creates it with the identifier from the URI (201).',
  },
  {
    name: 'throwOnNotFound',
    group: 'routing',
    type: BOOL,
    placement: PER_OPERATION,
    doc: 'true: 404 whenever nothing is found; false: go on with null data; unset: 404 except on Post and upserting Put.',
  },
  {
    name: 'parameters',
    group: 'routing',
    type: { kind: 'map', of: PARAMETER },
    placement: { resource: false, operations: OPERATION_KINDS, ineffectiveOn: NOT_LISTING },
    doc:
      'Named criteria, read from the query string (or the QUERY body), each applying a `filter` to a `property`; ' +
      "a parameter's `security` (message: `securityMessage`) is checked when the request gives it: denied, 401 to an anonymous user, 403 to another.",
  },

  // ---- Resource-level settings ----
  {
    name: 'assert',
    group: 'resource',
    type: ASSERTIONS,
    placement: { resource: true, operations: [] },
    doc:
      "Rules on the whole item that answer 422 (Symfony's Expression constraint on a class): as the property constraint " +
      '`assert`, with `value` the item itself; the violation has an empty property path.',
  },
  {
    name: 'unique',
    group: 'resource',
    type: { kind: 'list', of: { kind: 'list', of: STRING } },
    placement: { resource: true, operations: [] },
    doc:
      'Property lists whose values together no two items may share, `[["shop", "sku"]]` (UniqueEntity with several ' +
      'fields): a unique index of the store; the 422 violation is on the first property; an item with a null among them is not checked.',
  },
  {
    name: 'routePrefix',
    group: 'resource',
    type: STRING,
    placement: { resource: true, operations: [] },
    doc: 'Path prefix applied to every operation of the resource (`/geo` turns `/places` into `/geo/places`).',
  },
  {
    name: 'renamedFrom',
    group: 'resource',
    type: STRING,
    placement: { resource: true, operations: [] },
    doc:
      'The name this resource had in the previous version of the file: `apidsl diff` reports a rename (and the ' +
      'migration that moves the stored items) instead of a removal and an addition (docs/diff.md).',
  },
] as const satisfies readonly OptionSpec[];

/** One row of the table, with its literal types. */
export type OptionRow = (typeof OPTION_TABLE)[number];
/** The name of an option of the catalogue. */
export type OptionName = OptionRow['name'];
/** The value option `N` takes, derived from its catalogue type (after `A.toPlain`). */
export type OptionValue<N extends OptionName> = ValueOf<Extract<OptionRow, { name: N }>['type']>;
/** Options that `config { defaults { … } }` may set for every operation (they carry a `globalName`). */
export type GlobalOptionName = Extract<OptionRow, { globalName: string }>['name'];
/** Options with a catalogue default: their effective value is always set. */
export type DefaultedOptionName = Extract<OptionRow, { default: unknown }>['name'];
/** Option `N`'s effective value: unset only when the catalogue gives it no default. */
export type EffectiveOptionValue<N extends OptionName> = N extends DefaultedOptionName
  ? OptionValue<N>
  : OptionValue<N> | undefined;
/** Every option the checker accepts, with what it may be written on and what it means. */
export const OPTIONS: readonly (OptionSpec & { name: OptionName })[] = OPTION_TABLE;
