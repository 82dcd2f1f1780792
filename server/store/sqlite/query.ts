// Compiles the store-neutral Query to one parameterised SQLite statement. Values are always bound; only
// validated names reach the SQL text.
import { afterCondition, nonNegative, orderTerms, STORE_KEY, tupleAfter, type OrderTerm } from '../keyset.js';
import { checkName } from '../names.js';
import { FullTextConditionError, type CollectionSpec, type Condition, type Query, type Sort } from '../types.js';

export type SqlValue = number | string;

export interface CompiledSql {
  sql: string;
  params: SqlValue[];
}

/** Every collection table has these two columns: the identifier (or internal key) and the rest as JSON. */
export const KEY_COLUMN = '"key"';
export const DOC_COLUMN = '"doc"';
/** The text the collection's rendering made of the row's item (NULL when the collection has none). */
export const RENDERED_COLUMN = '"rendered"';

/**
 * Name of an application function each connection registers with `fold`: SQLite's built-in lower() only
 * folds ASCII, and case-insensitive filters must treat 'É' and 'é' alike (as LOWER does in other databases).
 */
export const FOLD_FUNCTION = 'apidsl_lower';

export function fold(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface Column {
  expr: string;
  /** Only the identifier is known never to be null. */
  nullable: boolean;
  opaque: boolean;
  /** An 'array' field: its JSON path in the document, for the element-wise tests. */
  list?: string;
}

/**
 * The SQL expression of a field. Indexes are built from the same text, which is what lets the planner use
 * them for filters and ORDER BY.
 */
export function fieldColumn(spec: CollectionSpec, field: string): Column {
  let columns = columnCache.get(spec);
  if (!columns) columnCache.set(spec, (columns = new Map()));
  let column = columns.get(field);
  if (!column) columns.set(field, (column = makeColumn(spec, field)));
  return column;
}

/** Columns by collection and field: every query of a page asks for the same few. */
const columnCache = new WeakMap<CollectionSpec, Map<string, Column>>();

function makeColumn(spec: CollectionSpec, field: string): Column {
  if (field === STORE_KEY || spec.identifier?.field === field)
    return { expr: KEY_COLUMN, nullable: false, opaque: false };
  const type = Object.hasOwn(spec.fields, field) ? spec.fields[field] : undefined;
  if (type === undefined) throw new TypeError(`unknown field ${spec.name}.${field}`);
  checkName(field, 'field');
  const path = `'$."${field}"'`;
  return {
    expr: `json_extract(${DOC_COLUMN}, ${path})`,
    nullable: true,
    opaque: type === 'json' || type === 'array',
    ...(type === 'array' ? { list: path } : {}),
  };
}

/**
 * The 'array' fields indexed by element: an expression index cannot index the values inside a JSON array, so
 * each such field has a side table of (element, key) rows that triggers keep in step with the collection's
 * table, in the writing statement's transaction. An `eq` or `in` condition on the field reads it.
 */
export function elementFields(spec: CollectionSpec): string[] {
  return spec.indexes.flatMap((fields) => (fields.length === 1 && spec.fields[fields[0]!] === 'array' ? fields : []));
}

/** The table holding the elements of `field`'s arrays (the `_apidsl_` prefix keeps it apart from resources). */
export const elementTableName = (spec: CollectionSpec, field: string): string =>
  `_apidsl_elements:${spec.name}.${field}`;

// A fragment of SQL with the values bound by its placeholders, in order.
type Sql = CompiledSql;

function sql(text: string, ...params: SqlValue[]): Sql {
  return { sql: text, params };
}

function join(parts: Sql[], separator: string): Sql {
  return { sql: parts.map((p) => p.sql).join(separator), params: parts.flatMap((p) => p.params) };
}

/**
 * SQLite parses `a OR b OR c …` into a tree as deep as the list is long and refuses one deeper than 1,000
 * ("Expression tree is too large"): long lists are grouped by GROUP, which keeps the depth logarithmic.
 */
const GROUP = 16;

function grouped(parts: Sql[], separator: string, empty: string): Sql {
  if (parts.length === 0) return sql(empty);
  if (parts.length === 1) return parts[0]!;
  if (parts.length > GROUP) {
    const groups: Sql[] = [];
    for (let i = 0; i < parts.length; i += GROUP) groups.push(grouped(parts.slice(i, i + GROUP), separator, empty));
    return grouped(groups, separator, empty);
  }
  const joined = join(parts, separator);
  return { sql: `(${joined.sql})`, params: joined.params };
}

const all = (parts: Sql[]): Sql => grouped(parts, ' AND ', '1');
const any = (parts: Sql[]): Sql => grouped(parts, ' OR ', '0');

/** JSON true/false come out of json_extract as 1/0, so booleans are bound the same way. */
function bindable(value: unknown): SqlValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
  throw new TypeError(`cannot compare with ${String(value)}: use a string, a finite number or a boolean`);
}

function comparable(spec: CollectionSpec, field: string): Column {
  const column = fieldColumn(spec, field);
  if (column.opaque) throw new TypeError(`${spec.name}.${field} holds JSON: only 'exists' applies to it`);
  return column;
}

const COMPARISON = { ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * How a page reads its `refers` conditions: through the index of the relation's field (the rows of every matching
 * related item, then sorted: the default), or `inOrder`, along the page's order, testing each row (findPage
 * chooses, knowing how many rows match; the planner cannot know how many related items the sub-query selects).
 */
export interface FindPlan {
  inOrder?: boolean;
  /**
   * In order, the index to read the rows through (`INDEXED BY`): one on the key and a `refers` field, whose
   * entries hold the field's value in key order, so the test reads no row's document (schema.ts, keyOrderIndex).
   * SQLite's planner would read the table instead, parsing each row's document.
   */
  index?: string;
}

function condition(spec: CollectionSpec, c: Condition, plan: FindPlan = {}): Sql {
  switch (c.op) {
    case 'and':
      return all(c.conditions.map((inner) => condition(spec, inner, plan)));
    case 'or':
      return any(c.conditions.map((inner) => condition(spec, inner, plan)));
    case 'exists':
      return exists(fieldColumn(spec, c.field), c.exists);
    case 'in':
      // One placeholder whatever the number of values keeps the SQL text (and its cached statement) stable.
      return (
        elements(spec, c.field, 'IN (SELECT value FROM json_each(?))', [JSON.stringify(c.values.map(bindable))]) ??
        some(spec, c.field, (x) =>
          sql(`${x} IN (SELECT value FROM json_each(?))`, JSON.stringify(c.values.map(bindable))),
        )
      );
    case 'match':
      return some(spec, c.field, (x) => match(x, c));
    case 'text':
      throw new FullTextConditionError(c.field);
    case 'refers':
      return refers(spec, c, plan);
    case 'eq':
      return (
        elements(spec, c.field, '= ?', [bindable(c.value)]) ??
        some(spec, c.field, (x) => sql(`${x} = ?`, bindable(c.value)))
      );
    default:
      return sql(`${comparable(spec, c.field).expr} ${COMPARISON[c.op]} ?`, bindable(c.value));
  }
}

/**
 * A sub-query on the related table: its rows' references (`keyPrefix || key`) that match `where`. In order, the
 * field is written `+field`, which SQLite's planner takes as no index's: it reads the rows along the ORDER BY.
 */
function refers(spec: CollectionSpec, c: Extract<Condition, { op: 'refers' }>, plan: FindPlan): Sql {
  const inner = whereClause(c.where.map((w) => condition(c.target, w)));
  const field = `${plan.inOrder ? '+' : ''}${comparable(spec, c.field).expr}`;
  return {
    sql: `${field} IN (SELECT ? || ${KEY_COLUMN} FROM ${table(c.target)}${inner.sql})`,
    params: [c.keyPrefix, ...inner.params],
  };
}

/** An empty list counts as absent (the contract's `exists` on an 'array' field). */
function exists(column: Column, wanted: boolean): Sql {
  if (column.list === undefined) return sql(`${column.expr} IS ${wanted ? 'NOT ' : ''}NULL`);
  const length = `json_array_length(${DOC_COLUMN}, ${column.list})`;
  return sql(wanted ? `${length} > 0` : `ifnull(${length}, 0) = 0`);
}

/**
 * `test` on the field's value or, on an 'array' field, on its elements: some element passes (none of an
 * empty or absent list does).
 */
function some(spec: CollectionSpec, field: string, test: (expr: string) => Sql): Sql {
  const column = fieldColumn(spec, field);
  if (column.list === undefined) return test(comparable(spec, field).expr);
  const inner = test('element.value');
  return {
    sql: `EXISTS (SELECT 1 FROM json_each(${DOC_COLUMN}, ${column.list}) AS element WHERE ${inner.sql})`,
    params: inner.params,
  };
}

/**
 * `eq`/`in` on an array field that has a table of its elements (schema.ts: an index on the field alone):
 * the keys of the items holding a matching element, read from that table's primary key. Undefined otherwise.
 */
function elements(spec: CollectionSpec, field: string, test: string, params: SqlValue[]): Sql | undefined {
  if (!elementFields(spec).includes(field)) return undefined;
  return sql(
    `${KEY_COLUMN} IN (SELECT "key" FROM ${quoteIdent(elementTableName(spec, field))} WHERE "value" ${test})`,
    ...params,
  );
}

// Substring tests with instr/substr rather than LIKE: the value stays literal text (no wildcards to escape)
// and comparison is exact unless folded on both sides.
function match(expr: string, c: Extract<Condition, { op: 'match' }>): Sql {
  if (typeof c.value !== 'string') throw new TypeError(`match needs a string value, got ${String(c.value)}`);
  const x = c.caseInsensitive ? `${FOLD_FUNCTION}(${expr})` : expr;
  const v = c.caseInsensitive ? (fold(c.value) as string) : c.value;
  switch (c.mode) {
    case 'exact':
      return sql(`${x} = ?`, v);
    case 'partial':
      return sql(`instr(${x}, ?) > 0`, v);
    case 'start':
      return sql(`instr(${x}, ?) = 1`, v);
    case 'end':
      return sql(`substr(${x}, length(${x}) - length(?) + 1) = ?`, v, v);
    case 'word_start':
      return sql(`(instr(${x}, ?) = 1 OR instr(${x}, ?) > 0)`, v, ` ${v}`);
  }
}

/** ORDER BY texts per collection, by sort: every page read of a collection asks for one of a few. */
const orderByTexts = new WeakMap<CollectionSpec, Map<string, string>>();
const ORDER_BY_TEXTS_LIMIT = 256;

/** `orderBy(orderTerms(spec, sort))`, made once per distinct sort (field names hold no NUL). */
function orderByText(spec: CollectionSpec, sort: Sort): string {
  let texts = orderByTexts.get(spec);
  if (!texts) orderByTexts.set(spec, (texts = new Map()));
  let signature = '';
  for (const s of sort) signature += `${s.field}\0${s.direction}\0`;
  let text = texts.get(signature);
  if (text === undefined) {
    text = orderBy(spec, orderTerms(spec, sort));
    if (texts.size < ORDER_BY_TEXTS_LIMIT) texts.set(signature, text);
  }
  return text;
}

function orderBy(spec: CollectionSpec, terms: OrderTerm[]): string {
  return terms.map((t) => `${comparable(spec, t.field).expr} ${t.direction === 'desc' ? 'DESC' : 'ASC'}`).join(', ');
}

function whereClause(conditions: Sql[]): Sql {
  return conditions.length === 0 ? sql('') : join([sql(' WHERE'), all(conditions)], ' ');
}

function table(spec: CollectionSpec): string {
  return quoteIdent(checkName(spec.name, 'resource'));
}

/** The query's own conditions: `where` and the `after` cursor. */
function filters(spec: CollectionSpec, q: Query, plan?: FindPlan): Sql[] {
  const after = afterCondition(spec, q);
  return [...(q.where ?? []), ...(after ? [after] : [])].map((c) => condition(spec, c, plan));
}

/** Whether `q`'s order is the key's alone, which SQLite reads from the table itself, in order. */
export function keyOrdered(spec: CollectionSpec, q: Query): boolean {
  return orderTerms(spec, q.sort ?? []).every((t) => fieldColumn(spec, t.field).expr === KEY_COLUMN);
}

/**
 * `+?` rather than `?`: SQLite (3.4x) reads a bare bound LIMIT or OFFSET while planning, which expires the
 * statement at every new binding and re-prepares it on each run (about as long as reading a page of 30 rows).
 */
function limitOffset(limit: number | undefined, offset: number | undefined): Sql {
  return limit !== undefined || offset !== undefined ? sql(' LIMIT +? OFFSET +?', limit ?? -1, offset ?? 0) : sql('');
}

/** The rows `q` selects, in order: by default their key and document, or the `columns` given. */
export function compileFind(
  spec: CollectionSpec,
  q: Query,
  columns: string[] = [KEY_COLUMN, DOC_COLUMN],
  plan?: FindPlan,
): CompiledSql {
  const where = whereClause(filters(spec, q, plan));
  const limit = nonNegative(q.limit, 'limit');
  const offset = nonNegative(q.offset, 'offset');
  const page = limitOffset(limit, offset);
  const from = plan?.index === undefined ? table(spec) : `${table(spec)} INDEXED BY ${quoteIdent(plan.index)}`;
  const text = `SELECT ${columns.join(', ')} FROM ${from}${where.sql} ORDER BY ${orderByText(spec, q.sort ?? [])}`;
  return { sql: text + page.sql, params: [...where.params, ...page.params] };
}

/** Where a stream resumes: the order values of the last row it read, and how many rows it has read. */
export interface StreamResume {
  values: unknown[];
  read: number;
}

export interface CompiledStream extends CompiledSql {
  /** Result columns holding the row's value of each ORDER BY term, to resume after it. */
  orderColumns: string[];
}

/**
 * The `find` statement with the value of every ORDER BY term selected too. The order (sort, then the key)
 * is total, so a stream whose cursor was closed reopens strictly after the last row it read: `resume` adds
 * that tuple comparison, drops the offset (already skipped) and lowers the limit by the rows already read.
 */
export function compileStream(spec: CollectionSpec, q: Query, resume?: StreamResume): CompiledStream {
  const terms = orderTerms(spec, q.sort ?? []);
  const conditions = filters(spec, q);
  if (resume) conditions.push(condition(spec, tupleAfter(spec, terms, resume.values)));
  const where = whereClause(conditions);
  const limit = nonNegative(q.limit, 'limit');
  const offset = nonNegative(q.offset, 'offset');
  const page = resume
    ? limitOffset(limit === undefined ? undefined : Math.max(0, limit - resume.read), undefined)
    : limitOffset(limit, offset);
  const orderColumns = terms.map((_, i) => `o${i}`);
  const expressions = terms.map((t, i) => `${fieldColumn(spec, t.field).expr} AS ${quoteIdent(orderColumns[i]!)}`);
  const selected = [KEY_COLUMN, DOC_COLUMN, ...expressions];
  const text = `SELECT ${selected.join(', ')} FROM ${table(spec)}${where.sql} ORDER BY ${orderBy(spec, terms)}`;
  return { sql: text + page.sql, params: [...where.params, ...page.params], orderColumns };
}

/**
 * Whether `find({ ...q, limit: 1 })` would return an item: `q.limit` is ignored, the offset still skips. The
 * order does not change whether a row exists, so there is no ORDER BY (the sort is still checked).
 */
export function compileExists(spec: CollectionSpec, q: Query): CompiledSql {
  orderTerms(spec, q.sort ?? []);
  const where = whereClause(filters(spec, q));
  const offset = nonNegative(q.offset, 'offset');
  return {
    sql: `SELECT 1 AS found FROM ${table(spec)}${where.sql} LIMIT 1 OFFSET +?`,
    params: [...where.params, offset ?? 0],
  };
}

/** Deletes the row of one key while it matches `where` (a conditional `Collection.delete`); the key binds last. */
export function compileDeleteWhere(spec: CollectionSpec, where: Condition[]): CompiledSql {
  const clause = whereClause([...where.map((c) => condition(spec, c)), sql(`${KEY_COLUMN} = ?`)]);
  return { sql: `DELETE FROM ${table(spec)}${clause.sql}`, params: clause.params };
}

/** Counts with COUNT(*); see compileTotal for the unfiltered count. */
export function compileCount(spec: CollectionSpec, where: Condition[] = []): CompiledSql {
  const clause = whereClause(where.map((c) => condition(spec, c)));
  return { sql: `SELECT count(*) AS n FROM ${table(spec)}${clause.sql}`, params: clause.params };
}

/**
 * Per-collection row counts, one row per resource table, kept by that table's triggers (schema.ts)
 * in the same transaction as each insert and delete.
 */
export const COUNTS_TABLE = '"_apidsl_counts"';

/**
 * The unfiltered count, read from the counts table: one primary-key lookup whatever the collection's size.
 * The collection name is bound, so every collection shares the statement. No row when the counts are missing.
 */
export function compileTotal(spec: CollectionSpec): CompiledSql {
  return { sql: `SELECT "n" FROM ${COUNTS_TABLE} WHERE "collection" = ?`, params: [checkName(spec.name, 'resource')] };
}
