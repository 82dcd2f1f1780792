/**
 * Global settings of `config { … }`, by dotted path. The `defaults.*` rows are derived from the
 * options that carry a `globalName`, so their type and default are written once, in OPTIONS.
 */
import { OPTIONS } from './options.js';
import type { SettingSpec, ValueType } from './types.js';

const STRING: ValueType = { kind: 'string' };
const MEDIA_TYPES: ValueType = { kind: 'map', of: { kind: 'list', of: STRING } };

const GLOBAL_DEFAULTS: SettingSpec[] = OPTIONS.filter((o) => o.globalName !== undefined).map((o) => ({
  path: `defaults.${o.globalName}`,
  type: o.type,
  default: o.default,
  doc: `Global default of \`${o.name}\`: ${o.doc}`,
}));

export const SETTINGS: readonly SettingSpec[] = [
  ...GLOBAL_DEFAULTS,
  { path: 'collection.pagination.page_parameter_name', type: STRING, default: 'page',
    doc: 'Name of the page query parameter (can be renamed, for example to `_page`).' },
  { path: 'collection.pagination.enabled_parameter_name', type: STRING, default: 'pagination',
    doc: 'Name of the client pagination toggle parameter.' },
  { path: 'collection.pagination.items_per_page_parameter_name', type: STRING, default: 'itemsPerPage',
    doc: 'Name of the client page-size parameter.' },
  { path: 'collection.pagination.partial_parameter_name', type: STRING, default: 'partial',
    doc: 'Name of the client partial toggle parameter.' },
  { path: 'collection.order_parameter_name', type: STRING, default: 'order',
    doc: 'Name of the query parameter of order filters (`?order[title]=desc`).' },
  { path: 'collection.exists_parameter_name', type: STRING, default: 'exists',
    doc: 'Name of the query parameter of exists filters (`?exists[publishedAt]=true`).' },
  { path: 'collection.order', type: { kind: 'enum', values: ['ASC', 'DESC'], caseInsensitive: true }, default: 'ASC',
    doc: 'Direction of the default sort by identifier, when neither the operation `order` nor a filter sorts.' },
  { path: 'formats', type: MEDIA_TYPES,
    default: { jsonld: ['application/ld+json'], json: ['application/json'] },
    doc: 'Input/output formats and their media types, in preference order (the first is used for `*/*`).' },
  { path: 'patch_formats', type: { kind: 'list', of: STRING }, default: [],
    doc: 'Media types PATCH accepts; empty: PATCH answers 415 and `apidsl check` warns on Patch operations.' },
  { path: 'error_formats', type: MEDIA_TYPES,
    default: { jsonproblem: ['application/problem+json'], jsonld: ['application/ld+json'] },
    doc: 'Formats of error documents and their media types, in preference order.' },
  { path: 'hydra_prefix', type: { kind: 'bool' }, default: false,
    doc: 'true: `hydra:`-prefixed collection keys (`hydra:member`…); false: unprefixed `member`, `totalItems`, `view`.' },
  { path: 'path_segment_name_generator', type: { kind: 'enum', values: ['underscore', 'dash'] }, default: 'underscore',
    doc: 'How resource names become path segments: `BookReview` → `/book_reviews` (underscore) or `/book-reviews` (dash).' },
  { path: 'body_size_limit', type: { kind: 'int', min: 1 }, default: 1048576,
    doc: 'Largest accepted request body, in bytes; a larger body answers 413.' },
  { path: 'trusted_hosts', type: { kind: 'list', of: STRING }, default: [],
    doc: 'Patterns (case-insensitive regular expressions, as Symfony\'s `trusted_hosts`; anchor them with `^…$`) '
      + 'the host of the Host header must match, else 400 `Untrusted Host`. Empty: any host that is a valid '
      + '`host[:port]` (an invalid one always answers 400).' },
  { path: 'server.headers_timeout', type: { kind: 'int', min: 100 }, default: 10_000,
    doc: 'Milliseconds a client has to send the request line and headers; then the connection is answered 408 and '
      + 'closed (slow-header clients). Capped at `server.request_timeout`.' },
  { path: 'server.request_timeout', type: { kind: 'int', min: 100 }, default: 30_000,
    doc: 'Milliseconds a client has to send a whole request, body included (a slow body, or a `Content-Length` '
      + 'larger than what is sent); then 408 and the connection is closed.' },
  { path: 'server.keep_alive_timeout', type: { kind: 'int', min: 100 }, default: 5_000,
    doc: 'Milliseconds an idle keep-alive connection is kept open after a response.' },
  { path: 'server.max_connections', type: { kind: 'int', min: 1 }, default: 1024,
    doc: 'Open connections the server accepts at once; further ones are closed at once until some end.' },
];
