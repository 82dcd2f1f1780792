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

function fieldMapping(p: PropertyMetadata, dialect: Dialect): FieldMapping | undefined {
  const indexed = { index: true, sortable: true, aggregatable: false };
  // ZincSearch needs its own flags (index, sortable); Elasticsearch refuses unknown ones.
  const flags = dialect === 'zincsearch' ? indexed : {};
  if (p.relation) return { type: 'keyword', ...flags };
  switch (p.type) {
    case 'int':
    case 'number':
      return dialect === 'zincsearch' ? { type: 'numeric', ...flags } : { type: p.type === 'int' ? 'long' : 'double' };
    case 'bool':
      return { type: dialect === 'zincsearch' ? 'bool' : 'boolean', ...flags };
    case 'datetime':
      // ZincSearch's default layout is RFC 3339 (fractions accepted); Elasticsearch's, strict_date_optional_time.
      return { type: 'date', ...flags };
    case 'date':
      return { type: 'date', format: dialect === 'zincsearch' ? '2006-01-02' : 'strict_date', ...flags };
    case 'string':
      if (p.identifier) return { type: 'keyword', ...flags };
      return { type: 'text', ...flags, fields: { keyword: { type: 'keyword', ...flags } } };
    default:
      return undefined; // json: in _source only
  }
}

/** The mapping an index is created with. */
export function indexMapping(resource: ResourceMetadata, dialect: Dialect): { properties: Record<string, unknown> } {
  const properties: Record<string, unknown> = {};
  for (const p of resource.properties) {
    const mapping = fieldMapping(p, dialect);
    if (mapping) properties[p.name] = mapping;
    else
      properties[p.name] =
        dialect === 'zincsearch' ? { type: 'text', index: false } : { type: 'object', enabled: false };
  }
  return { properties };
}
