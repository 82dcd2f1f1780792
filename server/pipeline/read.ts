/**
 * Stage 1, read: the provider. The default one reads an item by its URI variables or a page
 * of the collection from the store; a custom `provider` replaces it. Then the seed's
 * not-found rules: null is a 404 except on POST and on PUT with allowCreate, unless
 * `throwOnNotFound` says otherwise.
 */
import { HttpError, notFound } from '../http/errors.js';
import { optionValue } from '../metadata/options.js';
import type { PropertyMetadata } from '../metadata/types.js';
import type { Condition, Item, Sort } from '../store/types.js';
import { customContext } from './custom-context.js';
import { filterQuery } from './filters.js';
import { pageRequest, type Page } from './pagination.js';
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
    state.previousData = data == null ? null : structuredClone(data);
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

/** A URI variable as the property's type (an int identifier only matches digits). */
function typed(prop: PropertyMetadata | undefined, raw: string): unknown {
  if (prop?.type === 'int' && !prop.array) return /^-?\d{1,15}$/.test(raw) ? Number(raw) : undefined;
  if (prop?.type === 'number' && !prop.array) return Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : undefined;
  return raw;
}

/** Equality conditions for the URI variables other than the identifier (`/authors/{author}/books`). */
export function uriConditions(state: OperationState, skipIdentifier: boolean): Condition[] | undefined {
  const { resource } = state.operation;
  const out: Condition[] = [];
  for (const [name, raw] of Object.entries(state.uriVariables)) {
    if (skipIdentifier && name === resource.identifier?.name) continue;
    const prop = resource.properties.find((p) => p.name === name);
    if (!prop || prop.array || prop.type === 'json') continue;
    const value = typed(prop, raw);
    if (value === undefined) return undefined; // cannot match anything
    out.push({ op: 'eq', field: name, value });
  }
  return out;
}

async function readItem(state: OperationState): Promise<Item | null> {
  const { resource } = state.operation;
  const id = typed(resource.identifier, state.uriVariables[resource.identifier!.name]);
  if (id === undefined) return null;
  const item = await state.store.get(id as number | string);
  if (!item) return null;
  for (const [name, raw] of Object.entries(state.uriVariables)) {
    if (name === resource.identifier!.name || !resource.properties.some((p) => p.name === name)) continue;
    if (String(item[name] ?? '') !== raw) return null;
  }
  return item;
}

/** The collection order: the operation's `order` (`{ title: "ASC" }` or `["title"]`), then the identifier. */
export function defaultSort(state: OperationState): Sort {
  const { resource } = state.operation;
  const order = optionValue<unknown>(state.operation, state.api.settings, 'order');
  const sort: Sort = [];
  const entries: [string, unknown][] = Array.isArray(order) ? order.map((f) => [String(f), 'ASC']) : order && typeof order === 'object' ? Object.entries(order) : [];
  for (const [field, dir] of entries) {
    if (resource.properties.some((p) => p.name === field && !p.array && p.type !== 'json')) {
      sort.push({ field, direction: String(dir).toUpperCase() === 'DESC' ? 'desc' : 'asc' });
    }
  }
  const id = resource.identifier?.name;
  if (id && !sort.some((s) => s.field === id)) sort.push({ field: id, direction: state.api.settings.defaultOrder === 'DESC' ? 'desc' : 'asc' });
  return sort;
}

async function readPage(state: OperationState): Promise<Page> {
  const request = pageRequest(state.operation, state.api.settings, state.request.query);
  const fromUri = uriConditions(state, false);
  if (fromUri === undefined) return { items: [], request, total: request.partial ? undefined : 0 };
  const filtered = filterQuery(state.api, state.operation, state.criteria);
  const where = [...fromUri, ...filtered.where];
  const sort = [...filtered.sort, ...defaultSort(state).filter((s) => !filtered.sort.some((f) => f.field === s.field))];
  if (!request.enabled) {
    const items = await state.store.find({ where, sort });
    return { items, request, total: items.length };
  }
  const offset = (request.page - 1) * request.itemsPerPage;
  const items = request.itemsPerPage === 0 ? [] : await state.store.find({ where, sort, limit: request.itemsPerPage, offset });
  const total = request.partial ? undefined : await state.store.count(where);
  return { items, request, total };
}

/**
 * What a collection provider returned, as a page: a paginator object (`items` plus
 * `currentPage`/`itemsPerPage`, and `totalItems` for a full one) is paginated; a plain array
 * is the whole, unpaginated collection (the seed's rule 10).
 */
export function asPage(data: unknown, state: OperationState): Page {
  if (Array.isArray(data)) return { items: data, request: { enabled: false, partial: false, page: 1, itemsPerPage: data.length }, total: data.length };
  if ('items' in (data as object) && (data as Page).request) return data as Page;
  const p = data as { items?: unknown; currentPage?: unknown; itemsPerPage?: unknown; totalItems?: unknown };
  const items = p.items && typeof (p.items as Iterable<unknown>)[Symbol.iterator] === 'function' ? [...(p.items as Iterable<unknown>)] : undefined;
  if (!items || typeof p.currentPage !== 'number' || typeof p.itemsPerPage !== 'number') {
    throw new HttpError(500, `the provider of ${state.operation.name} returned neither an array nor a paginator`);
  }
  const total = typeof p.totalItems === 'number' ? p.totalItems : undefined;
  return { items, request: { enabled: true, partial: total === undefined, page: p.currentPage, itemsPerPage: p.itemsPerPage }, total };
}
