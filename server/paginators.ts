/**
 * Paginators for custom providers and controllers (docs/behaviour.md, "Collections and pagination"): a provider that
 * returns one of these gets the full collection document with its `view`; a plain array is
 * the whole, unpaginated collection. Custom code imports them from the package:
 * `import { ArrayPaginator } from 'apidsl'`, or returns any object of the same shape.
 */

/** A page with its total: `totalItems`, and so `first`/`last` links. */
export interface FullPaginator<T = Record<string, unknown>> {
  readonly items: Iterable<T>;
  readonly totalItems: number;
  readonly currentPage: number;
  readonly itemsPerPage: number;
  readonly lastPage: number;
}

/** A page without a total (no count): `previous`/`next` only; `hasNext` says whether a next page exists. */
export interface PartialPaginator<T = Record<string, unknown>> {
  readonly items: Iterable<T>;
  readonly currentPage: number;
  readonly itemsPerPage: number;
  readonly hasNext?: boolean;
}

const lastPageOf = (total: number, perPage: number): number =>
  perPage > 0 ? Math.max(1, Math.ceil(total / perPage)) : 1;

function checkPage(currentPage: number, itemsPerPage: number): void {
  if (!Number.isInteger(currentPage) || currentPage < 1)
    throw new RangeError(`currentPage must be an integer of 1 or more, not ${currentPage}`);
  if (!Number.isInteger(itemsPerPage) || itemsPerPage < 0)
    throw new RangeError(`itemsPerPage must be an integer of 0 or more, not ${itemsPerPage}`);
}

/** One page of an array holding the whole collection. */
export class ArrayPaginator<T = Record<string, unknown>> implements FullPaginator<T> {
  readonly items: T[];
  readonly totalItems: number;
  readonly lastPage: number;

  constructor(
    all: readonly T[],
    readonly currentPage: number,
    readonly itemsPerPage: number,
  ) {
    checkPage(currentPage, itemsPerPage);
    this.items = all.slice((currentPage - 1) * itemsPerPage, currentPage * itemsPerPage);
    this.totalItems = all.length;
    this.lastPage = lastPageOf(all.length, itemsPerPage);
  }
}

/** A page whose items come from any iterable (a cursor, a generator), with a total known apart. */
export class TraversablePaginator<T = Record<string, unknown>> implements FullPaginator<T> {
  readonly lastPage: number;

  constructor(
    readonly items: Iterable<T>,
    readonly currentPage: number,
    readonly itemsPerPage: number,
    readonly totalItems: number,
  ) {
    checkPage(currentPage, itemsPerPage);
    this.lastPage = lastPageOf(totalItems, itemsPerPage);
  }
}

/** A page without a total; from an array of the page's items or any iterable of them. */
export class PartialIterablePaginator<T = Record<string, unknown>> implements PartialPaginator<T> {
  constructor(
    readonly items: Iterable<T>,
    readonly currentPage: number,
    readonly itemsPerPage: number,
    readonly hasNext?: boolean,
  ) {
    checkPage(currentPage, itemsPerPage);
  }
}
