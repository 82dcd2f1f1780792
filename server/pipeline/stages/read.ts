/**
 * Stage 1, read: the provider. The default one reads an item by its URI variables or a page
 * of the collection from the store; a custom `provider` replaces it. Then the
 * not-found rules (metadata/operation-facts.ts): null is a 404 except on POST and on PUT with allowCreate, unless
 * `throwOnNotFound` says otherwise.
 */
import { notFound } from '../../protocol/errors.js';
import { routeIdentifier } from '../../protocol/identifier.js';
import { readsItem, throwsOnNotFound } from '../../metadata/operation-facts.js';
import { optionValue, perOperation, writtenOption } from '../../metadata/options.js';
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import type { Item, Query, Sort } from '../../store/types.js';
import { customContext } from '../custom-context.js';
import { cursorOf, readCursorPage } from '../pages/cursor.js';
import { filterQuery } from '../filters/query.js';
import { MAX_RELATED_MATCHES, relatedConditions } from '../filters/related.js';
import { MAX_FILTER_VALUES } from '../filters/search.js';
import { operationVariables } from '../filters/search-template.js';
import { cloneJson } from '../representation/json-clone.js';
import { linkConditions, uriBindings } from '../relations/links.js';
import { asPage } from '../pages/page.js';
import { pageRequest, readsPageParameters } from '../pages/pagination.js';
import { storeUnavailable, unavailable, type Answers } from '../answers.js';
import { readsIndex } from '../../metadata/search-index.js';
import { readsStoredMembers } from '../representation/rendering.js';
import { valuesOf, type OperationState, type Page } from '../state.js';
import { hiddenByScope } from '../scopes.js';

/**
 * Whether the stage has anything to do: a hidden operation's 404, or a read (`read` not false, and a provider,
 * a collection or an item named by its path; a POST on the collection reads nothing).
 */
export const reads = perOperation(
  (op, settings): boolean =>
    op.hidden ||
    (optionValue(op, settings, 'read') !== false && (Boolean(op.provider) || op.isCollection || readsItem(op))),
);

/**
 * Whether a read finds nothing and answers 404: an item named by its path (a custom provider's too, unless
 * `throwOnNotFound` says otherwise), not a POST's.
 */
function notFoundPossible(op: OperationMetadata, settings: Settings): boolean {
  if (optionValue(op, settings, 'read') === false) return false;
  const explicit = writtenOption(op, 'throwOnNotFound');
  if (op.provider) return explicit === true || (explicit === undefined && !op.isCollection && op.method !== 'POST');
  return readsItem(op) && throwsOnNotFound(op);
}

/**
 * An item that is not there; a page parameter out of range; a filter given too many values or matches; the store
 * (or the search index it reads instead) out of reach.
 */
export const readAnswers: Answers = (op, api) => [
  ...(op.isCollection && op.method !== 'POST' && readsPageParameters(op, api.settings)
    ? [{ status: 400, description: 'Invalid pagination parameter (a page below 1, a negative page size…).' }]
    : []),
  ...(op.isCollection && op.method !== 'POST' && operationVariables(api, op).length > 0
    ? [
        {
          status: 400,
          description: `A filter given more than ${MAX_FILTER_VALUES} values, or whose related criterion matches more than ${MAX_RELATED_MATCHES} items.`,
        },
      ]
    : []),
  ...(notFoundPossible(op, api.settings) ? [{ status: 404, description: `${op.shortName} resource not found.` }] : []),
  ...(op.hidden ? [] : [readsIndex(op, undefined) ? indexUnavailable() : storeUnavailable()]),
];

/** search/client.ts's answer to a read the engine did not answer. */
const indexUnavailable = () => unavailable('The search index (Elasticsearch) cannot be reached or did not answer.');

/** The `read` switch, read once. */
const readEnabled = perOperation((op, settings): boolean => optionValue(op, settings, 'read') !== false);

export async function read(state: OperationState): Promise<void> {
  const op = state.operation;
  if (op.hidden) throw notFound(op.hiddenDetail);
  if (!readEnabled(op, state.api.settings)) return;
  if (!op.provider && !op.isCollection && !readsItem(op)) return; // e.g. POST on the collection: nothing to read
  let data: unknown;
  if (op.provider) data = await op.provider(customContext(state));
  else if (op.isCollection) data = await readPage(state);
  else data = await readItem(state);
  if (op.isCollection && data != null) {
    state.page = asPage(data, state);
    state.data = state.page;
  } else {
    state.data = data ?? null;
    // A copy only where a later stage may change the data: a GET never writes.
    const readOnly = op.method === 'GET' || op.method === 'HEAD';
    state.previousData = data == null || readOnly ? (data ?? null) : cloneJson(data);
  }
  if (data == null && throwsOnNotFound(op)) throw notFound();
  // A creating PUT must not overwrite an item the read scope hides from this user: it is not found.
  if (data == null && !op.isCollection && (await hiddenByScope(state, itemKey(state)))) throw notFound();
}

const itemKey = (state: OperationState): string | undefined => {
  const name = state.operation.resource.identifier?.name;
  return name === undefined ? undefined : state.uriVariables[name];
};

async function readItem(state: OperationState): Promise<Item | null> {
  const { resource } = state.operation;
  const id = routeIdentifier(resource, state.uriVariables[resource.identifier!.name]);
  if (id === undefined) return null;
  if (uriBindings(state.api, state.operation).length === 0) return state.storeCollection.get(id);
  // A sub-resource item (`/authors/{authorId}/books/{id}`) exists only under its own parent.
  const linked = await linkConditions(state);
  if (linked === undefined) return null;
  const [item] = await state.storeCollection.find({
    where: [{ op: 'eq', field: resource.identifier!.name, value: id }, ...linked],
    limit: 1,
  });
  return item ?? null;
}

/** The collection order: the operation's `order` (`{ title: "ASC" }` or `["title"]`), then the identifier. */
export const defaultSort = perOperation((op, settings): Sort => {
  const { resource } = op;
  const order = optionValue(op, settings, 'order');
  const sort: Sort = [];
  let entries: [string, unknown][] = order && typeof order === 'object' ? Object.entries(order) : [];
  if (Array.isArray(order)) entries = order.map((f) => [String(f), 'ASC']);
  for (const [field, dir] of entries) {
    if (resource.properties.some((p) => p.name === field && !p.array && p.type !== 'json')) {
      sort.push({ field, direction: String(dir).toUpperCase() === 'DESC' ? 'desc' : 'asc' });
    }
  }
  const id = resource.identifier?.name;
  if (id && !sort.some((s) => s.field === id))
    sort.push({ field: id, direction: settings.defaultOrder === 'DESC' ? 'desc' : 'asc' });
  return sort;
});

async function readPage(state: OperationState): Promise<Page> {
  const window = valuesOf(state)?.window;
  const request = pageRequest(state.operation, state.api.settings, state.request.query, window);
  // Most collections bind no URI variable: no trip through the microtask queue for nothing.
  const fromUri = uriBindings(state.api, state.operation).length === 0 ? [] : await linkConditions(state);
  if (fromUri === undefined) return { items: [], request, total: request.partial ? undefined : 0 };
  const cursor = request.enabled && !window ? cursorOf(state) : undefined;
  if (cursor) return readCursorPage(state, cursor, request, fromUri);
  const filtered = filterQuery(state.api, state.operation, state.criteria);
  const where = [...fromUri, ...filtered.where, ...(await relatedConditions(state, filtered.related))];
  const sort = [
    ...filtered.sort,
    ...defaultSort(state.operation, state.api.settings).filter((s) => !filtered.sort.some((f) => f.field === s.field)),
  ];
  if (!request.enabled) {
    // The whole collection: streamed to the response, never held in memory.
    return { items: [], request, stream: state.storeCollection.stream({ where, sort }) };
  }
  let offset = request.offset ?? (request.page - 1) * request.itemsPerPage;
  if (request.fromEnd) offset = Math.max(0, (await state.storeCollection.count(where)) - request.itemsPerPage);
  request.offset = offset;
  if (request.partial) {
    // No count; one row more than the page tells whether a next page exists (API Platform
    // shows `next` on a full last page, its "assumed bug"; we do not).
    const rows =
      request.itemsPerPage === 0
        ? { items: [] }
        : await readRows(state, { where, sort, limit: request.itemsPerPage + 1, offset });
    return {
      items: rows.items.slice(0, request.itemsPerPage),
      rendered: rows.rendered,
      request,
      hasNext: rows.items.length > request.itemsPerPage,
    };
  }
  if (request.itemsPerPage === 0) return { items: [], request, total: await state.storeCollection.count(where) };
  // The members and totalItems of one moment: a write committed between two separate reads would tear the page.
  const rows = await state.storeCollection.findPage(
    { where, sort, limit: request.itemsPerPage, offset },
    { rendered: showsStoredMembers(state) },
  );
  return rows.texts
    ? { items: rows.texts, rendered: true, request, total: rows.total }
    : { items: rows.items, request, total: rows.total };
}

/** Whether the page's members are shown as the store rendered them (where it can answer so). */
const showsStoredMembers = (state: OperationState): boolean =>
  state.storeCollection.findRendered !== undefined && readsStoredMembers(state.operation, state.api, state.output.name);

/** The page's rows: the members' stored texts where the operation shows them as stored, else the items. */
async function readRows(state: OperationState, q: Query): Promise<{ items: unknown[]; rendered?: boolean }> {
  if (showsStoredMembers(state)) {
    const texts = await state.storeCollection.findRendered!(q);
    if (texts) return { items: texts, rendered: true };
  }
  return { items: await state.storeCollection.find(q) };
}
