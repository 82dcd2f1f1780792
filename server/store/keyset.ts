// The order of a query and keyset pagination, once for every store: the total order a query reads in, and
// "strictly after this tuple" as store-neutral conditions that each store's query compiler reads like any other.
import type { CollectionSpec, Condition, Query, Sort } from './types.js';

/**
 * The field name of the store's own key in the conditions made here (never a valid field name): the
 * identifier, or the internal key of a collection without one. It ends every total order.
 */
export const STORE_KEY = '#key';

/** One term of a total order: a sort field, or STORE_KEY. */
export interface OrderTerm {
  field: string;
  direction: 'asc' | 'desc';
}

/** Whether `field` (a sort field or STORE_KEY) is the store's key. */
export const isStoreKey = (spec: CollectionSpec, field: string): boolean =>
  field === STORE_KEY || field === spec.identifier?.field;

/** Checks that the store can order by `field`: a known field that holds no JSON. */
function checkSortable(spec: CollectionSpec, field: string): void {
  if (field === spec.identifier?.field) return;
  const type = Object.hasOwn(spec.fields, field) ? spec.fields[field] : undefined;
  if (type === undefined) throw new TypeError(`unknown field ${spec.name}.${field}`);
  if (type === 'json' || type === 'array')
    throw new TypeError(`${spec.name}.${field} holds JSON: only 'exists' applies to it`);
}

/** The sort's terms, each field checked. */
export function sortTerms(spec: CollectionSpec, sort: Sort = []): OrderTerm[] {
  for (const s of sort) checkSortable(spec, s.field);
  return sort.map((s) => ({ field: s.field, direction: s.direction }));
}

/**
 * The total order a query reads in: the sort, then the store's key when the sort lacks the identifier (in the
 * last field's direction), so equal sort values still come back in a stable order.
 */
export function orderTerms(spec: CollectionSpec, sort: Sort = []): OrderTerm[] {
  const terms = sortTerms(spec, sort);
  if (!terms.some((t) => isStoreKey(spec, t.field)))
    terms.push({ field: STORE_KEY, direction: sort.at(-1)?.direction ?? 'asc' });
  return terms;
}

/**
 * The condition of `q.after`: items strictly after its values in `q.sort` order (with `inclusive`, the items equal
 * to them too); undefined without a cursor.
 */
export function afterCondition(spec: CollectionSpec, q: Query): Condition | undefined {
  if (!q.after) return undefined;
  const sort = q.sort ?? [];
  const values = q.after.values;
  if (sort.length === 0 || values.length !== sort.length) {
    throw new TypeError(`'after' needs one value per sort field (${sort.length}), got ${values.length}`);
  }
  return tupleAfter(spec, sortTerms(spec, sort), values, q.after.inclusive === true);
}

/**
 * Items beyond `value` on one field in `direction` (with `orEqual`, or equal to it); undefined when none is. Nulls
 * sort smallest: beyond every value in desc, behind every value in asc.
 */
function beyondOf(spec: CollectionSpec, term: OrderTerm, value: unknown, orEqual: boolean): Condition | undefined {
  const { field, direction } = term;
  if (direction === 'asc') {
    if (value === null) return orEqual ? { op: 'and', conditions: [] } : { op: 'exists', field, exists: true };
    return { op: orEqual ? 'gte' : 'gt', field, value };
  }
  if (value === null) return orEqual ? { op: 'exists', field, exists: false } : undefined;
  const below: Condition = { op: orEqual ? 'lte' : 'lt', field, value };
  return isStoreKey(spec, field) ? below : { op: 'or', conditions: [below, { op: 'exists', field, exists: false }] };
}

/**
 * Items strictly after `values` in the order of `terms` (with `inclusive`, or equal to them), as a tuple
 * comparison expanded field by field: OR over i of (f1 = v1 AND … AND f(i-1) = v(i-1) AND fi beyond vi), where
 * "beyond" is `gt` for asc and `lt` for desc (`gte` and `lte` on the last field when inclusive). Stores cannot
 * seek on an OR, so a redundant bound on the first field (`gte` for asc, `lte` for desc) is ANDed in front; a
 * desc cursor on a field that may be null gets none (nulls follow every value), so its index is read from the
 * top. Only the store's key is known never to be null.
 */
export function tupleAfter(spec: CollectionSpec, terms: OrderTerm[], values: unknown[], inclusive = false): Condition {
  const equal = (i: number): Condition =>
    values[i] === null
      ? { op: 'exists', field: terms[i]!.field, exists: false }
      : { op: 'eq', field: terms[i]!.field, value: values[i] };
  const disjuncts: Condition[] = [];
  terms.forEach((term, i) => {
    const beyond = beyondOf(spec, term, values[i], inclusive && i === terms.length - 1);
    if (beyond) disjuncts.push({ op: 'and', conditions: [...terms.slice(0, i).map((_, j) => equal(j)), beyond] });
  });
  const after: Condition = { op: 'or', conditions: disjuncts };
  const first = terms[0]!;
  const nullable = !isStoreKey(spec, first.field);
  const seekable = terms.length > 1 && values[0] !== null && (first.direction === 'asc' || !nullable);
  if (!seekable) return after;
  const seek: Condition = { op: first.direction === 'asc' ? 'gte' : 'lte', field: first.field, value: values[0] };
  return { op: 'and', conditions: [seek, after] };
}

/** A query's limit or offset, checked: absent, or a non-negative safe integer. */
export function nonNegative(n: number | undefined, what: string): number | undefined {
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) throw new TypeError(`invalid ${what} ${n}`);
  return n;
}
