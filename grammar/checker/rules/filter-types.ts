/**
 * A filter on a property of a type its kind has no meaning for (a range on a string, a search on `json`,
 * an order on a list, a boolean on an int, a date on a number) is refused where the filter names the
 * property: served, it would be ignored or match nothing. The types each kind takes are the catalogue's
 * (`propertyTypes` of grammar/catalogue/filters.ts), which the runtime's filter modules implement.
 */
import type * as A from '../../ast.js';
import { filterKind, type FilterPropertyType } from '../../catalogue/index.js';
import type { ModelFilter, ModelProperty, ModelResource } from '../../model.js';
import type { CheckContext } from '../check-context.js';

const SCALAR_TYPES: readonly string[] = ['int', 'number', 'string', 'bool', 'datetime', 'date', 'json'];

/** The property's base type as the filter kinds name it, or undefined for a type the checker reports elsewhere. */
function filterType(ctx: CheckContext, prop: ModelProperty): FilterPropertyType | undefined {
  if (!prop.type) return undefined;
  if (SCALAR_TYPES.includes(prop.type)) return prop.type as FilterPropertyType;
  return ctx.model.resources.has(prop.type) ? 'relation' : undefined;
}

/** What to use instead, after the refusal. */
function hint(kind: string, type: FilterPropertyType, list: boolean): string {
  switch (kind) {
    case 'range':
      return type === 'string' && !list ? ': use a search filter to match text, or an order filter to sort it' : '';
    case 'search':
      return ': an exists filter applies to it';
    case 'order':
      return list ? ': a list has no single value to sort by' : ': a json value has no order';
    case 'boolean':
      return type === 'bool' ? ': a search filter matches a list element by element' : ': use a search filter';
    case 'date':
      if (type === 'int' || type === 'number') return ': use a range filter';
      return type === 'string' ? ': declare it datetime or date' : '';
    default:
      return '';
  }
}

/**
 * Reports `property` under `filter` (a declaration of `kind`) when the kind does not apply to its type, at
 * `at` (the name in the filter's `properties`, or a parameter's `property`). `reported` keeps each finding once.
 */
export function checkFilterPropertyType(
  ctx: CheckContext,
  resource: ModelResource,
  filter: ModelFilter,
  property: { name: string; range: A.Range },
  reported: Set<string>,
): void {
  const kind = filter.kind === undefined ? undefined : filterKind(filter.kind);
  const prop = resource.properties.get(property.name);
  const type = prop && filterType(ctx, prop);
  if (!kind || !prop || !type) return;
  if (kind.propertyTypes.types.includes(type) && (kind.propertyTypes.lists || !prop.array)) return;
  const key = `type\u0000${property.range.start}\u0000${resource.name}\u0000${property.name}`;
  if (reported.has(key)) return;
  reported.add(key);
  const written = `${prop.type}${prop.array ? '[]' : ''}`;
  const applies = kind.propertyTypes.doc.replace(/`/g, ''); // the catalogue's text is Markdown
  ctx.report(
    'filter-property-type',
    property.range,
    `${kind.name} filter '${filter.name}' applies to ${applies}, but '${property.name}' of '${resource.name}' is ${written}${hint(kind.name, type, prop.array)}`,
  );
}
