/**
 * Global settings of `config { … }`, by dotted path. The `defaults.*` rows are derived from the
 * options that carry a `globalName`, so their type and default are written once, in OPTIONS.
 */
import { OPTIONS, RATE_LIMIT_FIELDS } from './options.js';
import { SECURITY_SETTINGS } from './security-settings.js';
import type { SettingSpec, ValueType } from './types.js';

const STRING: ValueType = { kind: 'string' };
/** Any port of `localhost` or `127.0.0.1`, over http or https: what API Platform's distribution allows. */
const LOCAL_ORIGINS = '^https?://(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$';
const CORS_ALLOW_HEADERS = ['Content-Type', 'Authorization', 'If-Match', 'If-None-Match'];
const CORS_EXPOSE_HEADERS = ['Link', 'Location', 'Content-Location', 'ETag'];
const INT: ValueType = { kind: 'int', min: 0 };
const TRANSPORT: ValueType = { kind: 'enum', values: ['sync', 'embedded', 'amqp'] };
const MEDIA_TYPES: ValueType = { kind: 'map', of: { kind: 'list', of: STRING } };

const GLOBAL_DEFAULTS: SettingSpec[] = OPTIONS.filter((o) => o.globalName !== undefined).map((o) => ({
  path: `defaults.${o.globalName}`,
  type: o.type,
  default: o.default,
  doc: `Global default of \`${o.name}\`: ${o.doc}`,
}));

export const SETTINGS: readonly SettingSpec[] = [
  ...GLOBAL_DEFAULTS,
  {
    path: 'collection.pagination.page_parameter_name',
    type: STRING,
    default: 'page',
    doc: 'Name of the page query parameter (can be renamed, for example to `_page`).',
  },
  {
    path: 'collection.pagination.enabled_parameter_name',
    type: STRING,
    default: 'pagination',
    doc: 'Name of the client pagination toggle parameter.',
  },
  {
    path: 'collection.pagination.items_per_page_parameter_name',
    type: STRING,
    default: 'itemsPerPage',
    doc: 'Name of the client page-size parameter.',
  },
  {
    path: 'collection.pagination.partial_parameter_name',
    type: STRING,
    default: 'partial',
    doc: 'Name of the client partial toggle parameter.',
  },
  {
    path: 'collection.order_parameter_name',
    type: STRING,
    default: 'order',
    doc: 'Name of the query parameter of order filters (`?order[title]=desc`).',
  },
  {
    path: 'collection.exists_parameter_name',
    type: STRING,
    default: 'exists',
    doc: 'Name of the query parameter of exists filters (`?exists[publishedAt]=true`).',
  },
  {
    path: 'collection.order',
    type: { kind: 'enum', values: ['ASC', 'DESC'], caseInsensitive: true },
    default: 'ASC',
    doc: 'Direction of the default sort by identifier, when neither the operation `order` nor a filter sorts.',
  },
  {
    path: 'formats',
    type: MEDIA_TYPES,
    default: { jsonld: ['application/ld+json'], json: ['application/json'] },
    doc: 'Input/output formats and their media types, in preference order (the first is used for `*/*`).',
  },
  {
    path: 'patch_formats',
    type: { kind: 'list', of: STRING },
    default: [],
    doc: 'Media types PATCH accepts; empty: PATCH answers 415 and `apidsl check` warns on Patch operations.',
  },
  {
    path: 'error_formats',
    type: MEDIA_TYPES,
    default: { jsonproblem: ['application/problem+json'], jsonld: ['application/ld+json'] },
    doc: 'Formats of error documents and their media types, in preference order.',
  },
  {
    path: 'hydra_prefix',
    type: { kind: 'bool' },
    default: false,
    doc: 'true: `hydra:`-prefixed collection keys (`hydra:member`…); false: unprefixed `member`, `totalItems`, `view`.',
  },
  {
    path: 'path_segment_name_generator',
    type: { kind: 'enum', values: ['underscore', 'dash'] },
    default: 'underscore',
    doc: 'How resource names become path segments: `BookReview` → `/book_reviews` (underscore) or `/book-reviews` (dash).',
  },
  ...SECURITY_SETTINGS,
  {
    path: 'body_size_limit',
    type: { kind: 'int', min: 1 },
    default: 1048576,
    doc: 'Largest accepted request body, in bytes; a larger body answers 413.',
  },
  {
    path: 'bulk_max_items',
    type: { kind: 'int', min: 1 },
    default: 1000,
    doc: 'Most items one request may create on a `bulk: true` operation; a larger batch answers 413.',
  },
  {
    path: 'cors.allow_origin',
    type: { kind: 'list', of: STRING },
    default: [LOCAL_ORIGINS],
    doc:
      'Origins a browser page may call the API from: exact origins (`"https://app.example.com"`), regular ' +
      'expressions starting with `^` (matched against the whole `Origin` header), or `"*"` for any origin. The default ' +
      'allows `localhost` and `127.0.0.1` on any port, over http or https; `[]` turns CORS off.',
  },
  {
    path: 'cors.allow_headers',
    type: { kind: 'list', of: STRING },
    default: CORS_ALLOW_HEADERS,
    doc: 'Request headers a preflight allows (`Access-Control-Allow-Headers`); `["*"]` allows any header.',
  },
  {
    path: 'cors.expose_headers',
    type: { kind: 'list', of: STRING },
    default: CORS_EXPOSE_HEADERS,
    doc: 'Response headers a page may read besides the safelisted ones (`Access-Control-Expose-Headers`).',
  },
  {
    path: 'cors.max_age',
    type: { kind: 'int', min: 0 },
    default: 3600,
    doc: 'Seconds a browser may cache a preflight answer (`Access-Control-Max-Age`); 0 sends no such header.',
  },
  {
    path: 'cors.credentials',
    type: { kind: 'bool' },
    default: false,
    doc:
      'true: cookies and `Authorization` from the browser are allowed (`Access-Control-Allow-Credentials: true`); ' +
      'the allowed origin is then echoed, never `*`.',
  },

  // ---- HTTP cache (docs/behaviour.md, "HTTP cache") ----
  {
    path: 'http_cache.etag',
    type: { kind: 'bool' },
    default: true,
    doc: 'Successful GET/HEAD responses carry an ETag of their body; a matching If-None-Match answers 304.',
  },
  { path: 'http_cache.max_age', type: INT, doc: 'Default `max-age` (seconds) of `cacheHeaders`; unset: none.' },
  { path: 'http_cache.shared_max_age', type: INT, doc: 'Default `s-maxage` (seconds) of `cacheHeaders`; unset: none.' },
  {
    path: 'http_cache.vary',
    type: { kind: 'list', of: STRING },
    default: ['Content-Type', 'Authorization', 'Origin'],
    doc: 'Request headers added to `Vary` of successful GET/HEAD responses, besides `Accept` (which every response varies on).',
  },
  {
    path: 'http_cache.public',
    type: { kind: 'bool' },
    doc: 'Default `public` (true) or `private` (false) of `cacheHeaders`; unset: neither.',
  },
  {
    path: 'http_cache.stale_while_revalidate',
    type: INT,
    doc: 'Default `stale-while-revalidate` (seconds) of `cacheHeaders`; unset: none.',
  },
  {
    path: 'http_cache.in_process.max_bytes',
    type: INT,
    default: 0,
    doc:
      'Bytes of responses the built-in response cache keeps (least recently used dropped first); 0 turns it off. ' +
      'Only anonymous GETs without `Authorization` or `Cookie`, of operations whose output depends on no user, are kept; ' +
      'every write drops the pages it touches, on every worker, before its response.',
  },
  {
    path: 'http_cache.invalidation.enabled',
    type: { kind: 'bool' },
    default: false,
    doc: 'Tags GET responses with the IRIs they show (`tags_header`) and sends purge requests to `urls` on every write.',
  },
  {
    path: 'http_cache.invalidation.urls',
    type: { kind: 'list', of: STRING },
    default: [],
    doc: 'Purge endpoints of the external caches (Varnish, Souin), e.g. `["http://varnish:80"]`.',
  },
  {
    path: 'http_cache.invalidation.purger',
    type: { kind: 'enum', values: ['varnish-ban', 'varnish-xkey', 'souin'] },
    default: 'varnish-ban',
    doc: 'Purge request format: `varnish-ban` (BAN, `ApiPlatform-Ban-Regex`), `varnish-xkey` (PURGE, `xkey`) or `souin` (PURGE, `Surrogate-Key`).',
  },
  {
    path: 'http_cache.invalidation.tags_header',
    type: STRING,
    default: 'Cache-Tags',
    doc: 'Response header listing the IRIs a GET response shows (comma-separated).',
  },
  {
    path: 'http_cache.invalidation.timeout',
    type: { kind: 'int', min: 1 },
    default: 2000,
    doc: 'Milliseconds a purge request may take; a failed or late purge is logged and never fails the write.',
  },

  // ---- More than one process or machine ----
  {
    path: 'cluster.redis',
    type: STRING,
    doc:
      'Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS) shared by every instance of the service: ' +
      "cache invalidations, the built-in Mercure hub's updates and rate-limit counters reach every instance through it. " +
      'The APIDSL_REDIS_URL environment variable overrides it (and sets it when absent).',
  },

  // ---- GraphQL (docs/graphql.md) ----
  {
    path: 'graphql.enabled',
    type: { kind: 'bool' },
    default: false,
    doc: 'Serve the GraphQL API at `/graphql` (off: it answers 404 and resources have no GraphQL operations).',
  },
  {
    path: 'graphql.graphiql',
    type: { kind: 'bool' },
    default: true,
    doc: 'GraphiQL at `/graphql/graphiql` (and for `GET /graphql` asked for HTML), served from the package’s own files.',
  },
  {
    path: 'graphql.introspection',
    type: { kind: 'bool' },
    default: true,
    doc: 'Answer introspection queries; false refuses them with an error.',
  },
  {
    path: 'graphql.max_query_depth',
    type: INT,
    default: 20,
    doc: 'Deepest selection a query may have; a deeper one is refused with an error before it runs.',
  },
  {
    path: 'graphql.max_query_complexity',
    type: INT,
    default: 500,
    doc: 'Most fields a query may select, each field and alias counting 1 (not multiplied by page sizes: nested lists are bounded by the items they hold, docs/graphql.md); a costlier query is refused before it runs.',
  },
  {
    path: 'graphql.nesting_separator',
    type: STRING,
    default: '_',
    doc: 'Joins the parts of a GraphQL filter argument on a related item’s property: `author_name` for the filter property `author.name` (docs/graphql.md, "Filters").',
  },

  // ---- The admin (docs/admin.md) ----
  {
    path: 'admin.enabled',
    type: { kind: 'bool' },
    default: true,
    doc: 'Serve API Platform Admin over this API’s Hydra documentation at `admin.path` (off: that path answers 404). A copy of apidsl whose admin is not built (a clone before `npm run build:admin`) answers there a page saying how to build it.',
  },
  {
    path: 'admin.path',
    type: STRING,
    default: '/admin',
    doc: 'Where the admin answers: a path starting with `/`.',
  },
  {
    path: 'admin.title',
    type: STRING,
    doc: 'The admin’s title; unset: the API’s title.',
  },

  // ---- MCP (docs/mcp.md) ----
  {
    path: 'mcp.enabled',
    type: { kind: 'bool' },
    default: false,
    doc: 'Serve the operations as the tools of a Model Context Protocol endpoint (Streamable HTTP) at `mcp.path` (off: that path answers 404).',
  },
  {
    path: 'mcp.path',
    type: STRING,
    default: '/mcp',
    doc: 'Where the MCP endpoint answers: a path starting with `/`.',
  },

  // ---- The typed client (docs/client.md) ----
  {
    path: 'client.serve',
    type: { kind: 'bool' },
    default: false,
    doc: 'Serve the typed TypeScript client package `apidsl client` writes at `GET /sdk.tgz` (`npm install http://host/sdk.tgz`); off: that path answers 404.',
  },

  // ---- Rate limits (docs/behaviour.md, "Rate limits") ----
  {
    path: 'rate_limit.limit',
    type: RATE_LIMIT_FIELDS.limit.type,
    doc:
      "Requests each client may make to each operation per `interval`, the default of every operation's `rateLimit`; " +
      'unset: no limit (operations may still set their own). Past it: 429 with `Retry-After`.',
  },
  {
    path: 'rate_limit.interval',
    type: RATE_LIMIT_FIELDS.interval.type,
    default: '1 minute',
    doc: 'The window requests are counted over: `"N second(s)|minute(s)|hour(s)"`.',
  },
  {
    path: 'rate_limit.by',
    type: RATE_LIMIT_FIELDS.by.type,
    default: 'ip',
    doc: 'Who a count belongs to: `"ip"` (the client address) or `"user"` (the authenticated user; anonymous requests by address).',
  },
  {
    path: 'rate_limit.trusted_proxies',
    type: { kind: 'list', of: { kind: 'string', format: 'ipRange' } },
    default: [],
    doc:
      'Addresses or CIDR ranges of the reverse proxies in front (`["127.0.0.1", "10.0.0.0/8"]`): from these peers the ' +
      'client address is read from `X-Forwarded-For`; from any other peer the header is ignored.',
  },

  // ---- Real-time updates (Mercure) ----
  {
    path: 'mercure.hub',
    type: STRING,
    doc: '`"builtin"`: the service is its own hub at `/.well-known/mercure`; a URL: updates are POSTed to that external hub.',
  },
  {
    path: 'mercure.public_url',
    type: STRING,
    doc: "Hub URL announced to subscribers (Link header, docs); default: the built-in hub's URL, or `hub`.",
  },
  {
    path: 'mercure.publisher_jwt_env',
    type: STRING,
    default: 'MERCURE_PUBLISHER_JWT',
    doc: 'Environment variable holding the JWT sent to an external hub when publishing.',
  },
  {
    path: 'mercure.publisher_jwt_secret_env',
    type: STRING,
    default: 'MERCURE_PUBLISHER_JWT_KEY',
    doc:
      'Environment variable holding the HS256 key of publisher JWTs: signs ours when no ready JWT is set; ' +
      'the built-in hub verifies POSTed updates with it (no key: it refuses them).',
  },
  {
    path: 'mercure.subscriber_jwt_secret_env',
    type: STRING,
    default: 'MERCURE_SUBSCRIBER_JWT_KEY',
    doc: 'Environment variable holding the HS256 key the built-in hub verifies subscriber JWTs with (no key: no private update is delivered).',
  },
  {
    path: 'mercure.history_size',
    type: INT,
    default: 1000,
    doc: 'Updates the built-in hub keeps for `Last-Event-ID` replay (oldest dropped first).',
  },
  {
    path: 'mercure.heartbeat',
    type: INT,
    default: 15,
    doc: "Seconds between the built-in hub's keep-alive comments on idle subscriptions (0: none).",
  },
  {
    path: 'mercure.subscriber_buffer',
    type: { kind: 'int', min: 1024 },
    default: 1048576,
    doc: 'Bytes a slow subscriber may leave unread before the built-in hub closes its connection.',
  },
  {
    path: 'mercure.publish_retries',
    type: INT,
    default: 5,
    doc: 'Attempts after a failed POST to an external hub (delays 0.2 s, 0.4 s, … up to 10 s); then the update is dropped and logged.',
  },
  // ---- Asynchronous writes (Messenger) ----
  {
    path: 'messenger.transport',
    type: TRANSPORT,
    default: 'sync',
    doc: 'Default transport of messages: `sync` (handled in the request), `embedded` (queue in the SQLite store) or `amqp`.',
  },
  {
    path: 'messenger.routing',
    type: { kind: 'map', of: TRANSPORT },
    doc: 'Transport per message class (resource name), e.g. `{ Book: "amqp" }`; others use `transport`.',
  },
  {
    path: 'messenger.handlers',
    type: { kind: 'map', of: { kind: 'codeRef' } },
    doc: 'Handler per message class: `{ Book: "./handlers.mjs#onBook" }`, called with (message, ctx).',
  },
  { path: 'messenger.queue', type: STRING, default: 'messages', doc: 'Queue name (embedded queue table, AMQP queue).' },
  {
    path: 'messenger.failure_queue',
    type: STRING,
    doc: 'Where messages go once their retries are spent; default: the queue name followed by `.failed`.',
  },
  {
    path: 'messenger.amqp.dsn',
    type: STRING,
    default: 'amqp://guest:guest@127.0.0.1:5672/%2f',
    doc: 'AMQP broker URL; the MESSENGER_TRANSPORT_DSN environment variable overrides it.',
  },
  {
    path: 'messenger.retry.max_retries',
    type: INT,
    default: 3,
    doc: 'Retries of a message whose handler failed, before it goes to the failure queue.',
  },
  { path: 'messenger.retry.delay', type: INT, default: 1000, doc: 'Milliseconds before the first retry.' },
  {
    path: 'messenger.retry.multiplier',
    type: { kind: 'number', min: 1 },
    default: 2,
    doc: 'Factor applied to the delay at each further retry.',
  },
  {
    path: 'messenger.retry.max_delay',
    type: INT,
    default: 0,
    doc: 'Largest retry delay in milliseconds (0: no limit).',
  },
  {
    path: 'messenger.redeliver_timeout',
    type: { kind: 'int', min: 1 },
    default: 30,
    doc: 'Embedded queue: seconds after which a message taken by a consumer that stopped answering is delivered again.',
  },
  // ---- Search index (docs/elasticsearch.md) ----
  {
    path: 'elasticsearch.hosts',
    type: { kind: 'list', of: STRING },
    default: ['http://127.0.0.1:9200'],
    doc: 'URLs of the search engine (Elasticsearch, OpenSearch, or one speaking their API); APIDSL_ELASTICSEARCH_URL overrides them.',
  },
  {
    path: 'elasticsearch.username_env',
    type: STRING,
    doc: 'Name of the environment variable holding the user name of HTTP basic authentication (none: no authentication).',
  },
  {
    path: 'elasticsearch.password_env',
    type: STRING,
    doc: 'Name of the environment variable holding the password of HTTP basic authentication.',
  },
  {
    path: 'elasticsearch.index_prefix',
    type: STRING,
    default: '',
    doc: 'Prefix of every index name (`shop_` makes `shop_book`); APIDSL_ELASTICSEARCH_INDEX_PREFIX overrides it (set, even empty).',
  },
  {
    path: 'elasticsearch.timeout',
    type: { kind: 'int', min: 50 },
    default: 1000,
    doc:
      'Milliseconds a request to the engine may take: a read past it answers 503; a write waits at most this long for ' +
      'the index to take its change (then goes on; the index is repaired by `apidsl reindex`).',
  },
  {
    path: 'trusted_hosts',
    type: { kind: 'list', of: STRING },
    default: [],
    doc:
      "Patterns (case-insensitive regular expressions, as Symfony's `trusted_hosts`; anchor them with `^…$`) " +
      'the host of the Host header must match, else 400 `Untrusted Host`. Empty: any host that is a valid ' +
      '`host[:port]` (an invalid one always answers 400).',
  },
  {
    path: 'server.headers_timeout',
    type: { kind: 'int', min: 100 },
    default: 10_000,
    doc:
      'Milliseconds a client has to send the request line and headers; then the connection is answered 408 and ' +
      'closed (slow-header clients). Capped at `server.request_timeout`.',
  },
  {
    path: 'server.request_timeout',
    type: { kind: 'int', min: 100 },
    default: 30_000,
    doc:
      'Milliseconds a client has to send a whole request, body included (a slow body, or a `Content-Length` ' +
      'larger than what is sent); then 408 and the connection is closed.',
  },
  {
    path: 'server.keep_alive_timeout',
    type: { kind: 'int', min: 100 },
    default: 5_000,
    doc: 'Milliseconds an idle keep-alive connection is kept open after a response.',
  },
  {
    path: 'server.max_connections',
    type: { kind: 'int', min: 1 },
    default: 1024,
    doc: 'Open connections the server accepts at once; further ones are closed at once until some end.',
  },
];
