/**
 * Filters (docs/behaviour.md, "Filters and QUERY") turned into the store-neutral query: conditions and sort
 * clauses. Criteria come from the URL (GET) or the body (QUERY) in the same shape, through the
 * operation's `filters` (URL syntax: `title=…`, `price[gt]=…`, `order[title]=desc`, `exists[x]=true`)
 * and its `parameters` (a named parameter feeding one filter on one property); each filter kind's
 * module (index.ts) reads its own criteria. Malformed or unknown values are ignored, as API Platform does.
 * A criterion on a related item's property (`author.name`, paths.ts) is made against the target resource and kept
 * apart (`related`): related.ts turns it into a condition on the relation once it has read the matching targets.
 */
import { optionValue, perOperation } from '../../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../../metadata/types.js';
import type { QueryParams } from '../../protocol/query.js';
import type { Condition, Sort } from '../../store/types.js';
import { filterKind } from './index.js';
import { filterTarget, type FilterTarget } from './paths.js';
import { asObject } from './values.js';

/** Conditions on the items a relation path leads to (`author.name=…`: on the authors, fields of Author). */
export interface RelatedCriterion {
  /** The query parameter it came from (`author.name`, or a named parameter's name): a refusal names it. */
  parameter: string;
  target: FilterTarget;
  where: Condition[];
}

export interface FilterQuery {
  where: Condition[];
  sort: Sort;
  /** Criteria on related items, to be resolved into conditions on the relations (related.ts). */
  related: RelatedCriterion[];
}

/** The stores sort by the item's own fields only: a related item's property never sorts (the checker refuses it). */
const sortable = ({ prop, via }: FilterTarget): boolean => via.length === 0 && !prop.array && prop.type !== 'json';

/** An operation's `filters` and `parameters`, read once. */
const filterOptions = perOperation((op: OperationMetadata, _: void) => ({
  filters: optionValue(op, 'filters') ?? [],
  parameters: Object.entries(optionValue(op, 'parameters') ?? {}),
}));

/** The conditions and sort clauses of an operation's filters and parameters for some criteria. */
export function filterQuery(api: ApiMetadata, op: OperationMetadata, criteria: QueryParams): FilterQuery {
  const options = filterOptions(op);
  const resource = op.resource;
  const where: Condition[] = [];
  const related: RelatedCriterion[] = [];
  const orders: { key: string; clause: Sort[number] }[] = [];
  const orderParam = asObject(criteria[api.settings.orderParameter]) ?? {};
  // The conditions of one criterion: on the item itself, or kept apart for a related item's property.
  const condition = (parameter: string, target: FilterTarget, made: Condition[]): void => {
    if (target.via.length === 0) where.push(...made);
    else if (made.length) related.push({ parameter, target, where: made.map((c) => renamed(c, target)) });
  };

  for (const name of options.filters) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const target = filterTarget(api, resource, propName);
      if (!target) continue;
      const kind = filterKind(filter.kind);
      if (kind.orderClause) {
        if (propName in orderParam && sortable(target)) {
          const clause = kind.orderClause(propName, setting, orderParam[propName]);
          if (clause) orders.push({ key: propName, clause });
        }
      } else
        condition(
          propName,
          target,
          kind.conditions({ api, resource: target.resource }, target.prop, setting, criteria),
        );
    }
  }

  for (const [param, spec] of options.parameters) {
    const filter = spec && api.filters.get(String(spec.filter));
    const propName = spec?.property ?? param;
    const target = filterTarget(api, resource, propName);
    if (!filter || !target || criteria[param] === undefined) continue;
    const setting = filter.properties.find((p) => p.name === propName)?.setting;
    const kind = filterKind(filter.kind);
    if (kind.orderClause) {
      const clause = sortable(target) ? kind.orderClause(propName, setting, criteria[param]) : undefined;
      if (clause) orders.push({ key: param, clause });
      continue;
    }
    // The parameter's value stands where the filter's own syntax puts it.
    const shaped = kind.namedCriteria?.(api.settings, propName, criteria[param]) ?? { [propName]: criteria[param] };
    condition(param, target, kind.conditions({ api, resource: target.resource }, target.prop, setting, shaped));
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
  return { where, sort, related };
}

/** A condition made on the path (`author.name`) as one on the target's own field (`name`). */
function renamed(c: Condition, target: FilterTarget): Condition {
  if ('conditions' in c) return { ...c, conditions: c.conditions.map((x) => renamed(x, target)) };
  return { ...c, field: c.field === target.prop.name ? target.own.name : c.field };
}
