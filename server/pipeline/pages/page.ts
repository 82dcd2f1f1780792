/** A custom provider's or controller's answer read as a page (`Page`, state.ts). */
import type { OperationMetadata } from '../../metadata/types.js';
import type { Page } from '../state.js';

/**
 * What a collection provider or controller returned, as a page: a paginator (`items` with
 * `currentPage` and `itemsPerPage`; `totalItems` for a full one, else `hasNext` may say
 * whether a next page exists) is paginated; a plain array is the whole collection.
 */
export function asPage(data: unknown, state: { operation: OperationMetadata }): Page {
  if (Array.isArray(data))
    return {
      items: data,
      request: { enabled: false, partial: false, page: 1, itemsPerPage: data.length },
      total: data.length,
    };
  if ((data as Page).request && Array.isArray((data as Page).items)) return data as Page;
  const p = data as {
    items?: unknown;
    currentPage?: unknown;
    itemsPerPage?: unknown;
    totalItems?: unknown;
    hasNext?: unknown;
  };
  const items =
    p.items && typeof (p.items as Iterable<unknown>)[Symbol.iterator] === 'function'
      ? [...(p.items as Iterable<unknown>)]
      : undefined;
  if (!items || typeof p.currentPage !== 'number' || typeof p.itemsPerPage !== 'number') {
    throw new Error(`the provider or controller of ${state.operation.name} returned neither an array nor a paginator`);
  }
  const total = typeof p.totalItems === 'number' ? p.totalItems : undefined;
  const page: Page = {
    items,
    request: { enabled: true, partial: total === undefined, page: p.currentPage, itemsPerPage: p.itemsPerPage },
    total,
  };
  if (typeof p.hasNext === 'boolean') page.hasNext = p.hasNext;
  return page;
}
