/**
 * Stage 1, read: the provider. The default one reads an item by its URI variables or a page
 * of the collection from the store; a custom `provider` replaces it. Then the seed's
 * not-found rules: null is a 404 except on POST and on PUT with allowCreate, unless
 * `throwOnNotFound` says otherwise.
 */
import { notFound } from '../http/errors.js';
import { optionValue, perOperation } from '../metadata/options.js';
import type { Item, Query, Sort } from '../store/types.js';
import { customContext } from './custom-context.js';
import { cursorOf, readCursorPage } from './cursor.js';
import { filterQuery } from './filters.js';
import { cloneJson } from './json-clone.js';
import { JSONAPI_FORMAT } from './jsonapi.js';
import { linkConditions, typedValue, uriBindings } from './links.js';
import { pageRequest, type Page } from './pagination.js';
import { showsRenderedMembers } from './rendering.js';
import { showsPathsOnly } from './url-generation.js';
import type { OperationState } from './state.js';

export async function read(state: OperationState): Promise<void> {
  const op = state.operation;
  if (op.hidden) throw notFound(op.hiddenDetail);
  if (optionValue<boolean>(op, state.api.settings, 'read') === false) return;
  const idName = op.resource.identifier?.name;
  const readsItem = idName !== undefined && op.uriVariables.includes(idName);
  if (!op.provider && !op.collection && !readsItem) return; // e.g. POST on the collection: nothing to read
  let data: unknown;
  if (op.provider) data = await op.provider(customContext(state));
  else if (op.collection) data = await readPage(state);
  else data = await readItem(state);
  if (op.collection && data != null) {
    state.page = asPage(data, state);
    state.data = state.page;
  } else {
    state.data = data ?? null;
    // A copy only where a later stage may change the data: a GET never writes.
    state.previousData = data == null ? null : op.method === 'GET' || op.method === 'HEAD' ? data : cloneJson(data);
  }
  if (data == null && throwsOnNotFound(state)) throw notFound();
}

function throwsOnNotFound(state: OperationState): boolean {
  const op = state.operation;
  const explicit = op.options.throwOnNotFound;
  if (typeof explicit === 'boolean') return explicit;
  if (op.method === 'POST') return false;
  if (op.method === 'PUT' && op.options.allowCreate === true) return false;
  return true;
}

async function readItem(state: OperationState): Promise<Item | null> {
  const { resource } = state.operation;
  const id = typedValue(resource.identifier, state.uriVariables[resource.identifier!.name]);
  if (id === undefined) return null;
  if (uriBindings(state.api, state.operation).length === 0) return state.store.get(id as number | string);
  // A sub-resource item (`/authors/{authorId}/books/{id}`) exists only under its own parent.
  const linked = await linkConditions(state);
  if (linked === undefined) return null;
  const [item] = await state.store.find({ where: [{ op: 'eq', field: resource.identifier!.name, value: id }, ...linked], limit: 1 });
  return item ?? null;
}

/** The collection order: the operation's `order` (`{ title: "ASC" }` or `["title"]`), then the identifier. */
export const defaultSort = perOperation((op, settings): Sort => {
  const { resource } = op;
  const order = optionValue<unknown>(op, settings, 'order');
  const sort: Sort = [];
  const entries: [string, unknown][] = Array.isArray(order) ? order.map((f) => [String(f), 'ASC']) : order && typeof order === 'object' ? Object.entries(order) : [];
  for (const [field, dir] of entries) {
    if (resource.properties.some((p) => p.name === field && !p.array && p.type !== 'json')) {
      sort.push({ field, direction: String(dir).toUpperCase() === 'DESC' ? 'desc' : 'asc' });
    }
  }
  const id = resource.identifier?.name;
  if (id && !sort.some((s) => s.field === id)) sort.push({ field: id, direction: settings.defaultOrder === 'DESC' ? 'desc' : 'asc' });
  return sort;
});

async function readPage(state: OperationState): Promise<Page> {
  const request = pageRequest(state.operation, state.api.settings, state.request.query);
  const fromUri = await linkConditions(state);
  if (fromUri === undefined) return { items: [], request, total: request.partial ? undefined : 0 };
  const cursor = request.enabled ? cursorOf(state) : undefined;
  if (cursor) return readCursorPage(state, cursor, request, fromUri);
  const filtered = filterQuery(state.api, state.operation, state.criteria);
  const where = [...fromUri, ...filtered.where];
  const sort = [...filtered.sort, ...defaultSort(state.operation, state.api.settings).filter((s) => !filtered.sort.some((f) => f.field === s.field))];
  if (!request.enabled) {
    // The whole collection: streamed to the response, never held in memory.
    return { items: [], request, stream: state.store.stream({ where, sort }) };
  }
  const offset = (request.page - 1) * request.itemsPerPage;
  if (request.partial) {
    // No count; one row more than the page tells whether a next page exists (API Platform
    // shows `next` on a full last page, its "assumed bug"; we do not).
    const rows = request.itemsPerPage === 0 ? { items: [] } : await readRows(state, { where, sort, limit: request.itemsPerPage + 1, offset });
    return { items: rows.items.slice(0, request.itemsPerPage), rendered: rows.rendered, request, hasNext: rows.items.length > request.itemsPerPage };
  }
  const rows = request.itemsPerPage === 0 ? { items: [] } : await readRows(state, { where, sort, limit: request.itemsPerPage, offset });
  return { items: rows.items, rendered: rows.rendered, request, total: await state.store.count(where) };
}

/** The page's rows: the members' stored texts where the operation shows them as stored, else the items. */
async function readRows(state: OperationState, q: Query): Promise<{ items: unknown[]; rendered?: boolean }> {
  // The stored texts are JSON-LD members (plain JSON is cut from them); JSON:API builds its own.
  if (state.store.findRendered && state.output.name !== JSONAPI_FORMAT && showsRenderedMembers(state.operation, state.api.settings) && showsPathsOnly(state.operation, state.api)) {
    const texts = await state.store.findRendered(q);
    if (texts) return { items: texts, rendered: true };
  }
  return { items: await state.store.find(q) };
}

/**
 * What a collection provider or controller returned, as a page: a paginator (`items` with
 * `currentPage` and `itemsPerPage`; `totalItems` for a full one, else `hasNext` may say
 * whether a next page exists) is paginated; a plain array is the whole collection.
 */
export function asPage(data: unknown, state: OperationState): Page {
  if (Array.isArray(data)) return { items: data, request: { enabled: false, partial: false, page: 1, itemsPerPage: data.length }, total: data.length };
  if ((data as Page).request && Array.isArray((data as Page).items)) return data as Page;
  const p = data as { items?: unknown; currentPage?: unknown; itemsPerPage?: unknown; totalItems?: unknown; hasNext?: unknown };
  const items = p.items && typeof (p.items as Iterable<unknown>)[Symbol.iterator] === 'function' ? [...(p.items as Iterable<unknown>)] : undefined;
  if (!items || typeof p.currentPage !== 'number' || typeof p.itemsPerPage !== 'number') {
    throw new Error(`the provider or controller of ${state.operation.name} returned neither an array nor a paginator`);
  }
  const total = typeof p.totalItems === 'number' ? p.totalItems : undefined;
  const page: Page = { items, request: { enabled: true, partial: total === undefined, page: p.currentPage, itemsPerPage: p.itemsPerPage }, total };
  if (typeof p.hasNext === 'boolean') page.hasNext = p.hasNext;
  return page;
}
