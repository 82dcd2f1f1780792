/**
 * A page of a collection: what the request asks for (`PageRequest`), what was read (`Page`, with the
 * cursor links of cursor pagination), and a custom provider's or controller's answer read as a page.
 */
import type { OperationMetadata } from '../../metadata/types.js';

export interface PageRequest {
  enabled: boolean;
  partial: boolean;
  page: number;
  itemsPerPage: number;
}

/** A page of results; `total` is undefined under partial pagination (no count query). */
export interface Page {
  items: unknown[];
  request: PageRequest;
  total?: number;
  /** Set for cursor pagination: its links, computed from the page's first and last items. */
  cursor?: CursorLinks;
  /** A partial paginator's own word on whether a next page exists. */
  hasNext?: boolean;
  /** `items` are the members' JSON-LD texts as the store rendered them (representation/rendering.ts), not items. */
  rendered?: boolean;
  /** Unpaginated store reads: the items, streamed (then `items` is empty and `total` unknown). */
  stream?: AsyncIterable<unknown>;
}

export interface CursorLinks {
  next?: string;
  previous?: string;
}

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
