/** The filter kinds, one module each, in a table with one entry per kind of the catalogue. */
import type { FilterKind } from '../../metadata/types.js';
import { boolean } from './boolean.js';
import { date } from './date.js';
import { exists } from './exists.js';
import type { FilterKindModule } from './kind.js';
import { match } from './match.js';
import { order } from './order.js';
import { range } from './range.js';
import { search } from './search.js';
import { term } from './term.js';

/** Typed by the catalogue's kinds: a kind without its module (or a module of no kind) does not compile. */
export const FILTER_KIND_MODULES: { readonly [K in FilterKind]: FilterKindModule } = {
  search,
  range,
  date,
  order,
  exists,
  boolean,
  match,
  term,
};

export const filterKind = (kind: FilterKind): FilterKindModule => FILTER_KIND_MODULES[kind];
