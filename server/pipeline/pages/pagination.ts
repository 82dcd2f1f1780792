/**
 * Page-based pagination (docs/behaviour.md, "Collections and pagination"): what the request asks for (with the
 * client switches honoured only when enabled, PHP's casts and the 400s), the store query for
 * one page, and the `view` of the collection document.
 */
import { badRequest } from '../../protocol/errors.js';
import { buildLink, phpBool, phpInt, without, type QueryParams } from '../../protocol/query.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import type { OptionName } from '../../../grammar/catalogue/index.js';
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import type { Page, PageRequest, PageWindow } from '../state.js';

/** The largest offset we accept: beyond it `(page - 1) * limit` would not be exact. */
const MAX_OFFSET = BigInt(Number.MAX_SAFE_INTEGER);

/** An operation's pagination options, read once. */
const paginationOptions = perOperation((op, settings) => {
  const opt = <N extends OptionName>(name: N) => optionValue(op, settings, name);
  return {
    enabled: opt('paginationEnabled') !== false,
    clientEnabled: Boolean(opt('paginationClientEnabled')),
    partial: opt('paginationPartial') === true,
    clientPartial: Boolean(opt('paginationClientPartial')),
    clientSize: opt('paginationClientItemsPerPage') === true,
    maximum: opt('paginationMaximumItemsPerPage'),
    itemsPerPage: BigInt(opt('paginationItemsPerPage')),
  };
});

/** A collection's page size when the client asks for none, and whether the client may ask for another. */
export function defaultPageSize(
  op: OperationMetadata,
  settings: Settings,
): { itemsPerPage: number; clientItemsPerPage: boolean } {
  const { itemsPerPage, clientSize, maximum } = paginationOptions(op, settings);
  const clamped = clientSize && typeof maximum === 'number' && itemsPerPage > BigInt(maximum) ? maximum : itemsPerPage;
  return { itemsPerPage: Number(clamped), clientItemsPerPage: clientSize };
}

/** Whether the request may name a page, a page size or the switches (each refused when invalid: 400). */
export const readsPageParameters = (op: OperationMetadata, settings: Settings): boolean => {
  const options = paginationOptions(op, settings);
  const cursor = optionValue(op, settings, 'paginationViaCursor');
  const byCursor = Array.isArray(cursor) && cursor.length > 0;
  return (
    ((options.enabled || options.clientEnabled) && !byCursor) ||
    options.clientSize ||
    options.clientEnabled ||
    options.clientPartial
  );
};

export function pageRequest(
  op: OperationMetadata,
  settings: Settings,
  query: QueryParams,
  window?: PageWindow,
): PageRequest {
  const options = paginationOptions(op, settings);
  if (window && options.enabled) return windowRequest(options, window);
  let enabled = options.enabled;
  const enabledParam = query[settings.enabledParameter];
  if (options.clientEnabled && enabledParam !== undefined) enabled = phpBool(enabledParam);
  let partial = options.partial;
  const partialParam = query[settings.partialParameter];
  if (options.clientPartial && partialParam !== undefined) partial = phpBool(partialParam);

  const clientSize = options.clientSize;
  const maximum = options.maximum;
  let itemsPerPage = options.itemsPerPage;
  const sizeParam = query[settings.itemsPerPageParameter];
  if (clientSize && sizeParam !== undefined) itemsPerPage = phpInt(sizeParam);
  // The maximum clamps a client value, and the default too when the client may choose.
  if (clientSize && typeof maximum === 'number' && itemsPerPage > BigInt(maximum)) itemsPerPage = BigInt(maximum);

  const pageParam = query[settings.pageParameter];
  const page = pageParam === undefined ? 1n : phpInt(pageParam);
  if (enabled) {
    if (page < 1n) throw badRequest('Page should not be less than 1');
    if (itemsPerPage < 0n) throw badRequest('Limit should not be less than 0');
    if (itemsPerPage === 0n && page > 1n) throw badRequest('Page should not be greater than 1 if limit is equal to 0');
    if ((page - 1n) * itemsPerPage > MAX_OFFSET || page > MAX_OFFSET) throw badRequest('Page parameter is too large.');
  }
  // PHP caps an integer cast at PHP_INT_MAX; past 2^53 one page holds everything anyway.
  if (itemsPerPage > MAX_OFFSET) itemsPerPage = MAX_OFFSET - 1n;
  return { enabled, partial, page: enabled ? Number(page) : 1, itemsPerPage: Number(itemsPerPage) };
}

/** A window's page: its limit (the page size by default) clamped to the maximum, its offset as given. */
function windowRequest(options: ReturnType<typeof paginationOptions>, window: PageWindow): PageRequest {
  let limit = window.limit ?? Number(options.itemsPerPage);
  if (typeof options.maximum === 'number' && limit > options.maximum) limit = options.maximum;
  limit = Math.max(0, Math.min(limit, Number(MAX_OFFSET)));
  const offset = Math.max(0, Math.min(window.offset ?? 0, Number(MAX_OFFSET)));
  return {
    enabled: true,
    partial: options.partial && !window.fromEnd,
    page: limit > 0 ? Math.floor(offset / limit) + 1 : 1,
    itemsPerPage: limit,
    offset,
    ...(window.fromEnd ? { fromEnd: true } : {}),
  };
}

export const lastPage = (total: number, itemsPerPage: number): number =>
  itemsPerPage > 0 ? Math.max(1, Math.ceil(total / itemsPerPage)) : 1;

/** The `view` object of a page-paginated collection document, or undefined when it has none. */
export function pageView(
  page: Page,
  path: string,
  query: QueryParams,
  settings: Settings,
  keys: ViewKeys,
): Record<string, unknown> | undefined {
  const params = without(query, settings.pageParameter);
  if (page.cursor) {
    // Cursor pages always have a view (a partial paginator counts as paginated), never first/last.
    const view: Record<string, unknown> = { '@id': buildLink(path, params), '@type': keys.viewType };
    if (page.cursor.previous) view[keys.previous] = page.cursor.previous;
    if (page.cursor.next) view[keys.next] = page.cursor.next;
    return view;
  }
  const others = Object.keys(params);
  const applied = others.some((k) => k !== settings.enabledParameter);
  const { request } = page;
  const last = page.total === undefined ? undefined : lastPage(page.total, request.itemsPerPage);
  const paginated = request.enabled && (request.partial || last !== 1);
  if (!applied && !paginated) return undefined;
  // Without other parameters (the common page) a link is the path and the page number: what buildLink writes.
  const pageKey = `${path}?${encodeURIComponent(settings.pageParameter)}=`;
  const link = (n: number): string =>
    others.length === 0 ? pageKey + String(n) : buildLink(path, params, [[settings.pageParameter, n]]);
  const view: Record<string, unknown> = {
    '@id': paginated ? link(request.page) : buildLink(path, params),
    '@type': keys.viewType,
  };
  if (!paginated) return view;
  if (!request.partial && last !== undefined) {
    view[keys.first] = link(1);
    view[keys.last] = link(last);
  }
  if (request.page !== 1) view[keys.previous] = link(request.page - 1);
  const hasNext = request.partial
    ? (page.hasNext ?? (page.items.length >= request.itemsPerPage && request.itemsPerPage > 0))
    : last !== undefined && request.page < last;
  if (hasNext) view[keys.next] = link(request.page + 1);
  return view;
}

export interface ViewKeys {
  viewType: string;
  first: string;
  last: string;
  previous: string;
  next: string;
}
