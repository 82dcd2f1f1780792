/**
 * How a resource's items are laid out in its search index: one document per item, its `_source` the stored item
 * itself, keyed by the identifier (`_id`). Each property gets a field type the engine can filter and sort on:
 * strings are analysed `text` (for `match`) with a `keyword` sub-field (for `term`, bounds and sorting, as
 * Elasticsearch's own dynamic mapping does); relations (IRIs) are keywords; dates and date-times are dates;
 * `json` values are kept in `_source` only.
 */
import type { PropertyMetadata, ResourceMetadata } from '../metadata/types.js';

/** What speaks the API: ZincSearch writes date formats as Go layouts, Elasticsearch and OpenSearch as Java's. */
export type Dialect = 'elasticsearch' | 'zincsearch';

/** The field a condition or a sort on property `p` reads: the keyword sub-field of a string, else the field. */
export function exactField(p: PropertyMetadata | undefined, name: string): string {
  return p && isText(p) ? `${name}.keyword` : name;
}

/** Whether the property is analysed text (a string that is no relation, nor an identifier). */
export const isText = (p: PropertyMetadata): boolean => p.type === 'string' && !p.relation && !p.identifier;

/** Whether `term` cannot match the property (dates): equality is then asked as a closed range. */
export const isDate = (p: PropertyMetadata | undefined): boolean => p?.type === 'datetime' || p?.type === 'date';

type FieldMapping = Record<string, unknown>;

/** Elasticsearch's and OpenSearch's field types, without flags: they refuse unknown ones. */
function elasticsearchField(p: PropertyMetadata): FieldMapping {
  if (p.relation) return { type: 'keyword' };
  switch (p.type) {
    case 'int':
      return { type: 'long' };
    case 'number':
      return { type: 'double' };
    case 'bool':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'date' }; // its default format, strict_date_optional_time, reads RFC 3339
    case 'date':
      return { type: 'date', format: 'strict_date' };
    case 'string':
      return p.identifier ? { type: 'keyword' } : { type: 'text', fields: { keyword: { type: 'keyword' } } };
    default:
      return { type: 'object', enabled: false }; // json: in _source only
  }
}

/** ZincSearch's field types: its own names, each field flagged indexed and sortable (its defaults are not). */
function zincsearchField(p: PropertyMetadata): FieldMapping {
  const flags = { index: true, sortable: true, aggregatable: false };
  if (p.relation) return { type: 'keyword', ...flags };
  switch (p.type) {
    case 'int':
    case 'number':
      return { type: 'numeric', ...flags };
    case 'bool':
      return { type: 'bool', ...flags };
    case 'datetime':
      return { type: 'date', ...flags }; // its default layout is RFC 3339, fractions accepted
    case 'date':
      return { type: 'date', format: '2006-01-02', ...flags };
    case 'string':
      if (p.identifier) return { type: 'keyword', ...flags };
      return { type: 'text', ...flags, fields: { keyword: { type: 'keyword', ...flags } } };
    default:
      return { type: 'text', index: false }; // json: in _source only
  }
}

const FIELD_OF: Record<Dialect, (p: PropertyMetadata) => FieldMapping> = {
  elasticsearch: elasticsearchField,
  zincsearch: zincsearchField,
};

/** The mapping an index is created with (test/search/mapping.test.ts shows it for each engine and type). */
export function indexMapping(resource: ResourceMetadata, dialect: Dialect): { properties: Record<string, unknown> } {
  return { properties: Object.fromEntries(resource.properties.map((p) => [p.name, FIELD_OF[dialect](p)])) };
}
