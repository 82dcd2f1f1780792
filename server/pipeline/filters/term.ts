/**
 * The `term` filter (API Platform's Elasticsearch TermFilter): `?isbn=123` (or `?isbn[]=A&isbn[]=B`), the exact
 * value, read as the property's type; on a relation, an IRI or an identifier. The conditions are the `search`
 * filter's exact ones; only the search index answers them here (the checker keeps the kind to `elasticsearch` reads).
 */
import type { FilterKindModule } from './kind.js';
import { search } from './search.js';

export const term: FilterKindModule = {
  variables: search.variables,
  conditions: (ctx, prop, _setting, criteria) => search.conditions(ctx, prop, 'exact', criteria),
  documentedVariables: (settings, p) => search.documentedVariables(settings, p, 'exact'),
  namedValue: (p) => search.namedValue(p, 'exact'),
  bodyEntry: (settings, p) => search.bodyEntry(settings, p, 'exact'),
};
