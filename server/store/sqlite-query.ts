// Compiles the store-neutral Query to one parameterised SQLite statement. Values are always bound; only
// validated names reach the SQL text.
import type { CollectionSpec, Condition, Query, Sort } from './types.js';

export type SqlValue = number | string;

export interface CompiledSql {
  sql: string;
  params: SqlValue[];
}

/** Every collection table has these two columns: the identifier (or internal key) and the rest as JSON. */
export const KEY_COLUMN = '"key"';
export const DOC_COLUMN = '"doc"';

/**
 * Name of an application function each connection registers with `fold`: SQLite's built-in lower() only
 * folds ASCII, and case-insensitive filters must treat 'É' and 'é' alike (as LOWER does in other databases).
 */
export const FOLD_FUNCTION = 'apidsl_lower';

export function fold(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkName(name: string, what: string): string {
  if (!NAME.test(name)) throw new TypeError(`invalid ${what} name ${JSON.stringify(name)}`);
  return name;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface Column {
  expr: string;
  /** Only the identifier is known never to be null. */
  nullable: boolean;
  opaque: boolean;
}

/**
 * The SQL expression of a field. Indexes are built from the same text, which is what lets the planner use
 * them for filters and ORDER BY.
 */
export function fieldColumn(spec: CollectionSpec, field: string): Column {
  if (spec.identifier?.field === field) return { expr: KEY_COLUMN, nullable: false, opaque: false };
  const type = Object.hasOwn(spec.fields, field) ? spec.fields[field] : undefined;
  if (type === undefined) throw new TypeError(`unknown field ${spec.name}.${field}`);
  checkName(field, 'field');
  return {
    expr: `json_extract(${DOC_COLUMN}, '$."${field}"')`,
    nullable: true,
    opaque: type === 'json' || type === 'array',
  };
}

// A fragment of SQL with the values bound by its placeholders, in order.
type Sql = CompiledSql;

function sql(text: string, ...params: SqlValue[]): Sql {
  return { sql: text, params };
}

function join(parts: Sql[], separator: string): Sql {
  return { sql: parts.map((p) => p.sql).join(separator), params: parts.flatMap((p) => p.params) };
}

function all(parts: Sql[]): Sql {
  if (parts.length === 0) return sql('1');
  if (parts.length === 1) return parts[0]!;
  const joined = join(parts, ' AND ');
  return { sql: `(${joined.sql})`, params: joined.params };
}

function any(parts: Sql[]): Sql {
  if (parts.length === 0) return sql('0');
  if (parts.length === 1) return parts[0]!;
  const joined = join(parts, ' OR ');
  return { sql: `(${joined.sql})`, params: joined.params };
}

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

const COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

function condition(spec: CollectionSpec, c: Condition): Sql {
  switch (c.op) {
    case 'and':
      return all(c.conditions.map((inner) => condition(spec, inner)));
    case 'or':
      return any(c.conditions.map((inner) => condition(spec, inner)));
    case 'exists':
      return sql(`${fieldColumn(spec, c.field).expr} IS ${c.exists ? 'NOT ' : ''}NULL`);
    case 'in':
      // One placeholder whatever the number of values keeps the SQL text (and its cached statement) stable.
      return sql(
        `${comparable(spec, c.field).expr} IN (SELECT value FROM json_each(?))`,
        JSON.stringify(c.values.map(bindable)),
      );
    case 'match':
      return match(comparable(spec, c.field).expr, c);
    default:
      return sql(`${comparable(spec, c.field).expr} ${COMPARISON[c.op]} ?`, bindable(c.value));
  }
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

/**
 * Items strictly after `values` in `sort` order, as a tuple comparison expanded field by field:
 * OR over i of (f1 = v1 AND … AND f(i-1) = v(i-1) AND fi beyond vi), where "beyond" is > for asc and < for desc.
 * Nulls sort smallest, so they are beyond every value in desc and behind every value in asc. SQLite cannot
 * seek on an OR, so a redundant range on the first field (>= for asc, <= for desc) is ANDed in front. A desc
 * cursor on a field that may be null gets none (nulls follow every value), so its index is read from the top.
 */
function keyset(spec: CollectionSpec, sort: Sort, values: unknown[]): Sql {
  if (sort.length === 0 || values.length !== sort.length) {
    throw new TypeError(`'after' needs one value per sort field (${sort.length}), got ${values.length}`);
  }
  const columns = sort.map((s) => comparable(spec, s.field));
  const equal = (i: number): Sql =>
    values[i] === null ? sql(`${columns[i]!.expr} IS NULL`) : sql(`${columns[i]!.expr} = ?`, bindable(values[i]));
  const disjuncts: Sql[] = [];
  sort.forEach(({ direction }, i) => {
    const { expr, nullable } = columns[i]!;
    const value = values[i];
    let beyond: Sql;
    if (direction === 'asc') {
      beyond = value === null ? sql(`${expr} IS NOT NULL`) : sql(`${expr} > ?`, bindable(value));
    } else if (value === null) {
      return; // nothing sorts after null in desc order
    } else {
      beyond = sql(nullable ? `(${expr} < ? OR ${expr} IS NULL)` : `${expr} < ?`, bindable(value));
    }
    disjuncts.push(all([...sort.slice(0, i).map((_, j) => equal(j)), beyond]));
  });
  const first = columns[0]!;
  const seekable = sort.length > 1 && values[0] !== null && (sort[0]!.direction === 'asc' || !first.nullable);
  if (!seekable) return any(disjuncts);
  const seek = sql(`${first.expr} ${sort[0]!.direction === 'asc' ? '>=' : '<='} ?`, bindable(values[0]));
  return all([seek, any(disjuncts)]);
}

/** The key ends every ORDER BY that lacks the identifier, so equal sort values still come back in a stable order. */
function orderBy(spec: CollectionSpec, sort: Sort): string {
  const terms = sort.map((s) => `${comparable(spec, s.field).expr} ${s.direction === 'desc' ? 'DESC' : 'ASC'}`);
  const hasIdentifier = spec.identifier !== undefined && sort.some((s) => s.field === spec.identifier!.field);
  if (!hasIdentifier) terms.push(`${KEY_COLUMN} ${sort.at(-1)?.direction === 'desc' ? 'DESC' : 'ASC'}`);
  return terms.join(', ');
}

function whereClause(conditions: Sql[]): Sql {
  return conditions.length === 0 ? sql('') : join([sql(' WHERE'), all(conditions)], ' ');
}

function nonNegative(n: number | undefined, what: string): number | undefined {
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) throw new TypeError(`invalid ${what} ${n}`);
  return n;
}

export function compileFind(spec: CollectionSpec, q: Query): CompiledSql {
  const conditions = (q.where ?? []).map((c) => condition(spec, c));
  if (q.after) conditions.push(keyset(spec, q.sort ?? [], q.after.values));
  const where = whereClause(conditions);
  const limit = nonNegative(q.limit, 'limit');
  const offset = nonNegative(q.offset, 'offset');
  const params = [...where.params];
  let text = `SELECT ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${quoteIdent(checkName(spec.name, 'resource'))}${where.sql}`;
  text += ` ORDER BY ${orderBy(spec, q.sort ?? [])}`;
  if (limit !== undefined || offset !== undefined) {
    text += ' LIMIT ? OFFSET ?';
    params.push(limit ?? -1, offset ?? 0);
  }
  return { sql: text, params };
}

export function compileCount(spec: CollectionSpec, where: Condition[] = []): CompiledSql {
  const clause = whereClause(where.map((c) => condition(spec, c)));
  return {
    sql: `SELECT count(*) AS n FROM ${quoteIdent(checkName(spec.name, 'resource'))}${clause.sql}`,
    params: clause.params,
  };
}
