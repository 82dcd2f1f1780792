// Compiles the store-neutral Query to a MongoDB filter, sort, skip and limit, and derives the indexes a
// collection needs from its spec. Pure functions, no driver calls: the unit tests read what they produce.
//
// Document layout (see documents.ts): the identifier (or, without one, an internal integer key) is `_id`; every
// other field keeps its name, except that names starting with `_` get one more `_` (`_id` → `__id`), so user
// fields never collide with `_id` or with the store's own fields (`_` followed by a letter: `_j`, `_x`).
import { afterCondition, nonNegative, orderTerms, STORE_KEY } from '../keyset.js';
import { checkName } from '../names.js';
import {
  FullTextConditionError,
  type CollectionSpec,
  type Condition,
  type FieldType,
  type Query,
  type Sort,
} from '../types.js';

/** A MongoDB filter, sort or index key document. */
export type Doc = Record<string, unknown>;
export type SortDoc = Record<string, 1 | -1>;

export const KEY = '_id';

/** The stored name of a (non-identifier) item key: `_x` → `__x`, others unchanged. A bijection. */
export const storedName = (name: string): string => (name.startsWith('_') ? `_${name}` : name);
/** The item key of a stored user field name (the inverse of storedName). */
export const itemName = (stored: string): string => (stored.startsWith('__') ? stored.slice(1) : stored);
/** Store-internal fields: `_id` and `_` + a non-underscore character. */
export const isInternal = (stored: string): boolean => stored.startsWith('_') && !stored.startsWith('__');

interface Field {
  path: string;
  /** Only the key is known never to be null. */
  nullable: boolean;
  opaque: boolean;
  /** An 'array' field: MongoDB applies `$eq`, `$in` and `$regex` to each element of a stored list. */
  list?: boolean;
}

export function fieldOf(spec: CollectionSpec, field: string): Field {
  if (field === STORE_KEY || spec.identifier?.field === field) return { path: KEY, nullable: false, opaque: false };
  const type: FieldType | undefined = Object.hasOwn(spec.fields, field) ? spec.fields[field] : undefined;
  if (type === undefined) throw new TypeError(`unknown field ${spec.name}.${field}`);
  checkName(field, 'field');
  return {
    path: storedName(field),
    nullable: true,
    opaque: type === 'json' || type === 'array',
    ...(type === 'array' ? { list: true } : {}),
  };
}

function comparable(spec: CollectionSpec, field: string): Field {
  const f = fieldOf(spec, field);
  if (f.opaque) throw new TypeError(`${spec.name}.${field} holds JSON: only 'exists' applies to it`);
  return f;
}

/**
 * A field `eq`, `in` and `match` apply to: a comparable one, or an 'array' field, whose lists MongoDB
 * matches element by element (lists of scalars are stored as they are, never as JSON text: documents.ts).
 */
function elementwise(spec: CollectionSpec, field: string): Field {
  const f = fieldOf(spec, field);
  return f.list ? f : comparable(spec, field);
}

function value(v: unknown): string | number | boolean {
  if (typeof v === 'boolean' || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw new TypeError(`cannot compare with ${String(v)}: use a string, a finite number or a boolean`);
}

/** Matches no document (MongoDB refuses an empty `$or`). */
export const NOTHING: Doc = { [KEY]: { $in: [] } };

/** ANDs filters: one object when their keys do not overlap (what the planner and a reader see best), else $and. */
function all(parts: Doc[]): Doc {
  const flat = parts.flatMap((p) => (Object.keys(p).length === 1 && Array.isArray(p.$and) ? (p.$and as Doc[]) : [p]));
  const nonEmpty = flat.filter((p) => Object.keys(p).length > 0);
  if (nonEmpty.length === 0) return {};
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const keys = nonEmpty.flatMap((p) => Object.keys(p));
  if (new Set(keys).size === keys.length && !keys.some((k) => k.startsWith('$')))
    return Object.assign({}, ...nonEmpty) as Doc;
  return { $and: nonEmpty };
}

function any(parts: Doc[]): Doc {
  if (parts.length === 0) return NOTHING;
  if (parts.length === 1) return parts[0]!;
  if (parts.some((p) => Object.keys(p).length === 0)) return {};
  return { $or: parts };
}

/** Regular-expression metacharacters (PCRE in MongoDB, RE2 in FerretDB) are escaped: the text stays literal. */
export function escapeRegex(text: string): string {
  // A NUL cannot travel in a BSON regex string; \x00 is its escape in both dialects.
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&').replace(/\0/g, '\\x00');
}

function match(path: string, c: Extract<Condition, { op: 'match' }>): Doc {
  if (typeof c.value !== 'string') throw new TypeError(`match needs a string value, got ${String(c.value)}`);
  if (c.mode === 'exact' && !c.caseInsensitive) return { [path]: { $eq: c.value } };
  const text = escapeRegex(c.value);
  // \z, not $: without the multiline flag PCRE's $ also matches before a final newline.
  const pattern = {
    exact: `^${text}\\z`,
    partial: text,
    start: `^${text}`,
    end: `${text}\\z`,
    word_start: `(?:^| )${text}`,
  }[c.mode];
  return { [path]: c.caseInsensitive ? { $regex: pattern, $options: 'i' } : { $regex: pattern } };
}

const COMPARISON = { lt: '$lt', lte: '$lte', gt: '$gt', gte: '$gte' } as const;

/** One Condition as a filter. Comparisons never match null or absent values (SQL semantics, `ne` included). */
export function compileCondition(spec: CollectionSpec, c: Condition): Doc {
  switch (c.op) {
    case 'and':
      return all(c.conditions.map((inner) => compileCondition(spec, inner)));
    case 'or':
      return any(c.conditions.map((inner) => compileCondition(spec, inner)));
    case 'exists': {
      const f = fieldOf(spec, c.field);
      // A list exists when it has a first element (an empty one counts as absent).
      if (f.list) return { [`${f.path}.0`]: { $exists: c.exists } };
      // `{f: null}` matches null and absent alike; `$ne: null` neither.
      return { [f.path]: c.exists ? { $ne: null } : null };
    }
    case 'in':
      return { [elementwise(spec, c.field).path]: { $in: c.values.map(value) } };
    case 'match':
      return match(elementwise(spec, c.field).path, c);
    case 'text':
      throw new FullTextConditionError(c.field);
    case 'refers':
      // The collection reads the related keys first (references.ts): none reaches this compiler.
      throw new TypeError(`a 'refers' condition on ${spec.name}.${c.field} must be resolved before compiling`);
    case 'eq':
      return { [elementwise(spec, c.field).path]: { $eq: value(c.value) } };
    case 'ne':
      // MongoDB's $ne matches missing and null values; $nin with null excludes them.
      return { [comparable(spec, c.field).path]: { $nin: [value(c.value), null] } };
    default:
      return { [comparable(spec, c.field).path]: { [COMPARISON[c.op]]: value(c.value) } };
  }
}

export function compileSort(spec: CollectionSpec, sort: Sort = []): SortDoc {
  const out: SortDoc = {};
  for (const t of orderTerms(spec, sort)) {
    const path = comparable(spec, t.field).path;
    if (!(path in out)) out[path] = t.direction === 'asc' ? 1 : -1;
  }
  return out;
}

export function compileWhere(spec: CollectionSpec, where: Condition[] = []): Doc {
  return all(where.map((c) => compileCondition(spec, c)));
}

function compileFilter(spec: CollectionSpec, q: Query): Doc {
  const after = afterCondition(spec, q);
  return all([...(q.where ?? []), ...(after ? [after] : [])].map((c) => compileCondition(spec, c)));
}

export interface CompiledFind {
  filter: Doc;
  sort: SortDoc;
  skip?: number;
  /** Absent: no limit. 0 is a real limit here (the store answers nothing without asking); MongoDB reads 0 as none. */
  limit?: number;
}

export function compileFind(spec: CollectionSpec, q: Query): CompiledFind {
  const out: CompiledFind = { filter: compileFilter(spec, q), sort: compileSort(spec, q.sort) };
  const skip = nonNegative(q.offset, 'offset');
  const limit = nonNegative(q.limit, 'limit');
  if (skip) out.skip = skip;
  if (limit !== undefined) out.limit = limit;
  return out;
}

/** `find` without sort or limit: whether an item is there does not depend on the order (the sort is still checked). */
export function compileExists(spec: CollectionSpec, q: Query): { filter: Doc; skip?: number } {
  compileSort(spec, q.sort);
  const skip = nonNegative(q.offset, 'offset');
  return { filter: compileFilter(spec, q), ...(skip ? { skip } : {}) };
}

export interface IndexSpec {
  key: SortDoc;
  /** MongoDB's default name for the key (`price_1__id_1`), so creating it again is a no-op. */
  name: string;
}

/** Beyond this many direction patterns for one field list, only the ascending one is created. */
const MAX_PATTERNS = 4;

/**
 * The indexes of a collection beyond `_id` (MongoDB's own unique index, which is the identifier's): one per
 * field list of `spec.indexes`, each ending with `_id` as the tie-breaker every total sort ends with. An index
 * serves a sort with the same directions or all of them reversed, and sorts on several fields come in mixed
 * directions (cursors, or a client's `order[…]` turning one around). The spec does not say which, so for each
 * field list the patterns with the first field ascending and each later field in either direction are created
 * (a trailing `_id`, the tie-breaker, follows the field before it, as the pipeline's cursors and the compiled
 * sorts do), at most MAX_PATTERNS. A cursor declaring the identifier last in another direction than the field
 * before it (`createdAt DESC, id ASC`) therefore gets no index that serves its sort.
 */
export function indexSpecs(spec: CollectionSpec): IndexSpec[] {
  const out: IndexSpec[] = [];
  for (const fields of spec.indexes) {
    const paths = [...new Set(fields.map((f) => fieldOf(spec, f).path))];
    if (!paths.includes(KEY)) paths.push(KEY);
    if (paths.length === 1) continue; // `_id` alone: MongoDB's own index
    // Free directions: every field but the first and a trailing `_id` (the tie-breaker).
    const last = paths.length - 1;
    const free = paths.map((path, i) => i > 0 && !(i === last && path === KEY));
    const freeCount = free.filter(Boolean).length;
    const combos = 2 ** freeCount <= MAX_PATTERNS ? 2 ** freeCount : 1;
    for (let combo = 0; combo < combos; combo++) {
      const key: SortDoc = {};
      let bit = 0;
      let previous: 1 | -1 = 1;
      paths.forEach((path, i) => {
        let direction: 1 | -1 = 1;
        if (free[i]) direction = (combo >> bit++) & 1 ? -1 : 1;
        else if (i > 0) direction = previous;
        key[path] = direction;
        previous = direction;
      });
      const name = Object.entries(key)
        .map(([k, d]) => `${k}_${d}`)
        .join('_');
      if (!out.some((x) => x.name === name)) out.push({ key, name });
    }
  }
  return out;
}

/** Whether `index` serves `sort` without a blocking sort: the sort is a prefix of the key, same or all reversed. */
export function indexServesSort(index: SortDoc, sort: SortDoc): boolean {
  const key = Object.entries(index);
  const wanted = Object.entries(sort);
  if (wanted.length > key.length) return false;
  const same = wanted.every(([f, d], i) => key[i]![0] === f && key[i]![1] === d);
  const reversed = wanted.every(([f, d], i) => key[i]![0] === f && key[i]![1] === -d);
  return same || reversed;
}
