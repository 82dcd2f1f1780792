/**
 * Cursor pagination (`paginationViaCursor`), correct where API Platform is not (its issues
 * #7799, #6477). The cursor is the tuple of the cursor fields plus the identifier as
 * tie-breaker, written in links in the range-filter form
 * (`id[lt]=8` for a DESC cursor's next page). Bounds on every field of the tuple are read as
 * one tuple comparison, so ties are never skipped or repeated; a bound against the cursor
 * direction (`id[gt]` on a DESC cursor) asks for the page just before it, read backwards.
 * Every page is an indexed keyset scan (never an offset), with exact `next`/`previous`.
 */
import { buildLink, without, type QueryParams } from '../../protocol/query.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import type { PropertyMetadata } from '../../metadata/types.js';
import type { Condition, Item, Query, Sort } from '../../store/types.js';
import { filterQuery } from '../filters/query.js';
import { relatedConditions } from '../filters/related.js';
import { typedValue } from '../filters/values.js';
import type { CursorLinks, OperationState, Page, PageRequest } from '../state.js';

type Direction = 'asc' | 'desc';

export interface CursorField {
  field: string;
  direction: Direction;
}

/** Forward and backward operators of a direction. */
const OPS: Record<Direction, { forward: 'gt' | 'lt'; backward: 'gt' | 'lt' }> = {
  asc: { forward: 'gt', backward: 'lt' },
  desc: { forward: 'lt', backward: 'gt' },
};

/** The cursor of an operation, or undefined when it paginates by page. */
/** The operation's `paginationViaCursor` fields, read once (undefined: none). */
const declaredCursor = perOperation((op, settings) => {
  const declared = optionValue(op, settings, 'paginationViaCursor');
  return Array.isArray(declared) && declared.length > 0 ? declared : undefined;
});

export function cursorOf(state: OperationState): CursorField[] | undefined {
  const declared = declaredCursor(state.operation, state.api.settings);
  if (declared === undefined) return undefined;
  // The client's order[field] may turn a cursor field around; the links follow it.
  const order = state.criteria[state.api.settings.orderParameter];
  const clientOrder = order && typeof order === 'object' ? (order as Record<string, unknown>) : {};
  const fields: CursorField[] = declared.map((c) => {
    const field = String(c.field);
    const client = String(clientOrder[field] ?? '').toLowerCase();
    const declaredDirection: Direction = String(c.direction).toLowerCase() === 'asc' ? 'asc' : 'desc';
    const direction: Direction = client === 'asc' || client === 'desc' ? client : declaredDirection;
    return { field, direction };
  });
  const id = state.operation.resource.identifier?.name;
  if (id && !fields.some((f) => f.field === id))
    fields.push({ field: id, direction: fields[fields.length - 1].direction });
  return fields;
}

interface Bound {
  values: unknown[];
  backward: boolean;
}

/**
 * A tuple bound: every cursor field bounded by its forward operator (a next page) or every
 * one by its backward operator (a previous page). Anything else is left to the range filters.
 */
function boundOf(state: OperationState, fields: CursorField[]): Bound | undefined {
  const props = (name: string): PropertyMetadata | undefined =>
    state.operation.resource.properties.find((p) => p.name === name);
  for (const backward of [false, true]) {
    const values: unknown[] = [];
    for (const f of fields) {
      const given = state.criteria[f.field];
      const ops =
        given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : undefined;
      const op = backward ? OPS[f.direction].backward : OPS[f.direction].forward;
      const prop = props(f.field);
      const value =
        ops && prop ? typedValue({ api: state.api, resource: state.operation.resource }, prop, ops[op]) : undefined;
      if (value === undefined) break;
      values.push(value);
    }
    if (values.length === fields.length) return { values, backward };
  }
  return undefined;
}

const reversed = (sort: Sort): Sort =>
  sort.map((s) => ({ field: s.field, direction: s.direction === 'asc' ? 'desc' : 'asc' }));
const tuple = (item: Item, fields: CursorField[]): unknown[] => fields.map((f) => item[f.field] ?? null);

/** Criteria without the strict bounds (`lt`, `gt`) of the cursor fields: those are the cursor. */
function withoutCursorOps(criteria: QueryParams, fields: CursorField[]): QueryParams {
  const out: QueryParams = { ...criteria };
  for (const f of fields) {
    const given = out[f.field];
    if (!given || typeof given !== 'object' || Array.isArray(given)) continue;
    const rest = { ...(given as Record<string, unknown>) };
    delete rest.lt;
    delete rest.gt;
    if (Object.keys(rest).length) out[f.field] = rest;
    else delete out[f.field];
  }
  return out;
}

/** One page of a cursor-paginated collection, with exact links. */
export async function readCursorPage(
  state: OperationState,
  fields: CursorField[],
  request: PageRequest,
  uriWhere: Condition[],
): Promise<Page> {
  const bound = boundOf(state, fields);
  // The bound's operators are the cursor, not range filters; the client's other bounds on the
  // same fields (`id[gte]=3`) stay filters.
  const criteria = bound ? withoutCursorOps(state.criteria, fields) : state.criteria;
  const filtered = filterQuery(state.api, state.operation, criteria);
  const where = [...uriWhere, ...filtered.where, ...(await relatedConditions(state, filtered.related))];
  const sort: Sort = fields.map((f) => ({ field: f.field, direction: f.direction }));
  const n = request.itemsPerPage;
  const store = state.storeCollection;
  /**
   * The rows of `q`, for a full paginator the total of the same moment (Collection.findPage), and whether `probe`
   * finds a row (when the rows are not empty): in one statement where the store reads both at once.
   */
  const read = async (
    q: Query,
    probe: Query | undefined,
  ): Promise<{ rows: Item[]; total?: number; probed: boolean }> => {
    if (n === 0) return { rows: [], total: request.partial ? undefined : await store.count(where), probed: false };
    if (probe && request.partial && store.findAndProbe) {
      const { items: rows, probed } = await store.findAndProbe(q, probe);
      return { rows, probed };
    }
    const { items: rows, total } = request.partial
      ? { items: await store.find(q), total: undefined }
      : await store.findPage(q);
    return { rows: rows!, total, probed: probe !== undefined && rows!.length > 0 && (await store.exists(probe)) };
  };
  // The probe for the link the other way: a row at or before the bound (in the page's order) lies before the
  // page's first row, there being none between the bound and it; so it needs no row of the page.
  const probe = (order: Sort): Query | undefined =>
    bound && { where, sort: order, after: { values: bound.values, inclusive: true } };
  let items: Item[];
  let hasNext: boolean;
  let hasPrevious: boolean;
  let total: number | undefined;
  if (!bound || !bound.backward) {
    const after = bound ? { after: { values: bound.values } } : {};
    const { rows, total: all, probed } = await read({ where, sort, limit: n + 1, ...after }, probe(reversed(sort)));
    hasNext = rows.length > n;
    items = rows.slice(0, n);
    hasPrevious = items.length > 0 && probed;
    total = all;
  } else {
    const q = { where, sort: reversed(sort), limit: n + 1, after: { values: bound.values } };
    const { rows, total: all, probed } = await read(q, probe(sort));
    hasPrevious = rows.length > n;
    items = rows.slice(0, n).reverse();
    hasNext = items.length > 0 && probed;
    total = all;
  }
  const links: CursorLinks = {};
  if (hasNext) links.next = cursorLink(state, fields, tuple(items[items.length - 1], fields), false);
  if (hasPrevious) links.previous = cursorLink(state, fields, tuple(items[0], fields), true);
  return { items, request, total, cursor: links };
}

/**
 * The request's link with each cursor field's key replaced in place (or appended) by its
 * bound: `field[lt]=value`. Other parameters keep their normalised (sorted) order.
 */
function cursorLink(state: OperationState, fields: CursorField[], values: unknown[], backward: boolean): string {
  const params = without(state.request.query, state.api.settings.pageParameter);
  const sorted: QueryParams = {};
  for (const key of Object.keys(params).sort()) sorted[key] = params[key];
  const kept = withoutCursorOps(sorted, fields);
  fields.forEach((f, i) => {
    const op = backward ? OPS[f.direction].backward : OPS[f.direction].forward;
    const others = kept[f.field] && typeof kept[f.field] === 'object' ? (kept[f.field] as Record<string, unknown>) : {};
    sorted[f.field] = { ...others, [op]: String(values[i]) };
  });
  return buildLink(state.path, sorted, [], false);
}
