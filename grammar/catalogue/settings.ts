/**
 * Global settings of `config { … }`, by dotted path. The `defaults.*` rows are derived from the
 * options that carry a `globalName`, so their type and default are written once, in OPTIONS.
 */
import { OPTIONS } from './options.js';
import { SECURITY_SETTINGS } from './security-settings.js';
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
  ...SECURITY_SETTINGS,
  { path: 'body_size_limit', type: { kind: 'int', min: 1 }, default: 1048576,
    doc: 'Largest accepted request body, in bytes; a larger body answers 413.' },
];
