/**
 * Filters (docs/behaviour.md, "Filters and QUERY") turned into the store-neutral query: conditions and sort
 * clauses. Criteria come from the URL (GET) or the body (QUERY) in the same shape, through the
 * operation's `filters` (URL syntax: `title=…`, `price[gt]=…`, `order[title]=desc`, `exists[x]=true`)
 * and its `parameters` (a named parameter feeding one filter on one property); each filter kind's
 * module (index.ts) reads its own criteria. Malformed or unknown values are ignored, as API Platform does.
 */
import { optionValue, perOperation } from '../../metadata/options.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata } from '../../metadata/types.js';
import type { QueryParams } from '../../protocol/query.js';
import type { Condition, Sort } from '../../store/types.js';
import { filterKind } from './index.js';
import { asObject, type Ctx } from './values.js';

export interface FilterQuery {
  where: Condition[];
  sort: Sort;
}

const sortable = (p: PropertyMetadata | undefined): p is PropertyMetadata =>
  p !== undefined && !p.array && p.type !== 'json';

/** The conditions and sort clauses of an operation's filters and parameters for some criteria. */
/** An operation's `filters` and `parameters`, read once. */
const filterOptions = perOperation((op: OperationMetadata, _: void) => ({
  filters: optionValue(op, 'filters') ?? [],
  parameters: Object.entries(optionValue(op, 'parameters') ?? {}),
}));

export function filterQuery(api: ApiMetadata, op: OperationMetadata, criteria: QueryParams): FilterQuery {
  const options = filterOptions(op);
  const resource = op.resource;
  const ctx: Ctx = { api, resource };
  const propOf = (name: string): PropertyMetadata | undefined => resource.properties.find((p) => p.name === name);
  const where: Condition[] = [];
  const orders: { key: string; clause: Sort[number] }[] = [];
  const orderParam = asObject(criteria[api.settings.orderParameter]) ?? {};

  for (const name of options.filters) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const prop = propOf(propName);
      if (!prop) continue;
      const kind = filterKind(filter.kind);
      if (kind.orderClause) {
        if (propName in orderParam && sortable(prop)) {
          const clause = kind.orderClause(propName, setting, orderParam[propName]);
          if (clause) orders.push({ key: propName, clause });
        }
      } else where.push(...kind.conditions(ctx, prop, setting, criteria));
    }
  }

  for (const [param, spec] of options.parameters) {
    const filter = spec && api.filters.get(String(spec.filter));
    const propName = spec?.property ?? param;
    const prop = propOf(propName);
    if (!filter || !prop || criteria[param] === undefined) continue;
    const setting = filter.properties.find((p) => p.name === propName)?.setting;
    const kind = filterKind(filter.kind);
    if (kind.orderClause) {
      const clause = sortable(prop) ? kind.orderClause(propName, setting, criteria[param]) : undefined;
      if (clause) orders.push({ key: param, clause });
      continue;
    }
    // The parameter's value stands where the filter's own syntax puts it.
    const shaped = kind.namedCriteria?.(api.settings, propName, criteria[param]) ?? { [propName]: criteria[param] };
    where.push(...kind.conditions(ctx, prop, setting, shaped));
  }

  // Order keys in the order the client wrote them (their priority), each field once.
  const keyOrder = Object.keys(orderParam);
  const sorted = orders.sort((a, b) => {
    const ia = keyOrder.indexOf(a.key);
    const ib = keyOrder.indexOf(b.key);
    return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  });
  const sort: Sort = [];
  for (const { clause } of sorted) if (!sort.some((s) => s.field === clause.field)) sort.push(clause);
  return { where, sort };
}
