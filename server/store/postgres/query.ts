// Compiles the store-neutral Query to one parameterised PostgreSQL statement over a collection's table
// (table.ts): every condition kind of types.ts (`refers` as a sub-query), the total order and the `after` cursor
// of keyset.ts. Values are always bound; only validated names reach the SQL text.
import { afterCondition, nonNegative, orderTerms, STORE_KEY, type OrderTerm } from '../keyset.js';
import { FullTextConditionError, type Condition, type FieldType, type Query } from '../types.js';
import { anyMember, someMember, type JoinList } from './join-tables.js';
import { keyOf, type Reference } from './references.js';
import { bound, fits, storableText, tableOf, type Table } from './table.js';

export interface CompiledSql {
  text: string;
  values: unknown[];
}

/** The values a statement binds, numbered in the order they are added. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

interface Target {
  expr: string;
  type: FieldType;
  /** The key or identifier: never null. */
  key: boolean;
  /** A relation kept as its target's key (references.ts): `expr` is the IRI it holds, `column` the key. */
  reference?: { column: string; ref: Reference };
  /** A to-many relation kept in a join table (join-tables.ts); `expr` is the owner's key. */
  list?: JoinList;
}

function target(table: Table, field: string): Target {
  if (field === STORE_KEY || field === table.spec.identifier?.field)
    return { expr: table.key.name, type: table.key.type, key: true };
  const list = table.byList.get(field);
  if (list) return { expr: `${table.name}.${table.key.name}`, type: 'array', key: false, list };
  const column = table.byField.get(field);
  if (!column) throw new TypeError(`unknown field ${table.spec.name}.${field}`);
  if (column.reference) {
    // Compared and ordered as the IRI text the item holds, as the other stores do.
    const prefix = `'${column.reference.relation.keyPrefix.replace(/'/g, "''")}'`;
    const expr = `(${prefix} || ${column.name}::text)`;
    return { expr, type: column.type, key: false, reference: { column: column.name, ref: column.reference } };
  }
  return { expr: column.name, type: column.type, key: false };
}

/** `eq` or `in` on the key `column` of a relation: the keys the IRIs name (an IRI of another form names none). */
function namesKey(column: string, ref: Reference, values: unknown[], p: Params): string {
  values.forEach(checkValue);
  const keys = [...new Set(values.map((v) => keyOf(ref, v)).filter((k) => k !== undefined))];
  if (keys.length === 0) return 'FALSE';
  if (keys.length === 1) return `${column} = ${p.add(keys[0])}`;
  return `${column} = ANY(${p.add(keys)}::${ref.keyType === 'int' ? 'bigint' : 'text'}[])`;
}

const opaque = (t: Target): boolean => t.type === 'json' || t.type === 'array';

function comparable(table: Table, field: string): Target {
  const t = target(table, field);
  if (opaque(t)) throw new TypeError(`${table.spec.name}.${field} holds JSON: only 'exists' applies to it`);
  return t;
}

function checkValue(value: unknown): void {
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
    return;
  throw new TypeError(`cannot compare with ${String(value)}: use a string, a finite number or a boolean`);
}

const COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
type Comparison = keyof typeof COMPARISON;

const isNumeric = (type: FieldType): boolean => type === 'int' || type === 'number';

/**
 * A comparison with a value of another type than the column's holds as the embedded store's would (numbers and
 * booleans sort before text): `eq` never, `ne` for every value, `lt` a text value for every number, and so on.
 */
function mismatched(t: Target, op: Comparison, value: unknown): string {
  const valueIsText = typeof value === 'string';
  const columnIsText = !isNumeric(t.type) && t.type !== 'bool';
  if (op === 'eq') return 'FALSE';
  if (op === 'ne') return `${t.expr} IS NOT NULL`;
  const below = op === 'lt' || op === 'lte'; // the column's values below the value
  const columnSortsFirst = valueIsText && !columnIsText;
  return below === columnSortsFirst ? `${t.expr} IS NOT NULL` : 'FALSE';
}

function compare(t: Target, op: Comparison, value: unknown, p: Params): string {
  checkValue(value);
  if (fits(t.type, value)) return `${t.expr} ${COMPARISON[op]} ${p.add(bound(t.type, value))}`;
  // A fraction against an int column, or an int against a number column: compared as numbers.
  if (isNumeric(t.type) && typeof value === 'number')
    return `${t.expr}::double precision ${COMPARISON[op]} ${p.add(value)}::double precision`;
  // A boolean stored as 1/0 elsewhere: compared as a number with a numeric column, and the other way round.
  if (t.type === 'bool' && typeof value === 'number')
    return `${t.expr}::int ${COMPARISON[op]} ${p.add(value)}::double precision`;
  if (isNumeric(t.type) && typeof value === 'boolean') return `${t.expr} ${COMPARISON[op]} ${p.add(value ? 1 : 0)}`;
  // Dates, datetimes and text compared with text in another form: as text, the way the items hold them.
  if (typeof value === 'string' && t.type !== 'string' && !isNumeric(t.type) && t.type !== 'bool')
    return `${textOf(t)} ${COMPARISON[op]} ${p.add(value)}`;
  return mismatched(t, op, value);
}

/** A column's value as the text the item holds (for matches and comparisons with text in another form). */
function textOf(t: Target): string {
  switch (t.type) {
    case 'string':
    case 'iri':
      return t.expr;
    case 'datetime':
      return `(to_char(${t.expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || CASE WHEN date_part('milliseconds', ${t.expr})::int % 1000 = 0 THEN '' ELSE to_char(${t.expr} AT TIME ZONE 'UTC', '.MS') END || '+00:00')`;
    default:
      return `${t.expr}::text`;
  }
}

/** A JSON list column as a list (NULL for anything else). */
const list = (t: Target): string => `CASE jsonb_typeof(${t.expr}) WHEN 'array' THEN ${t.expr} END`;

function exists(t: Target, wanted: boolean): string {
  if (t.list) return `${wanted ? '' : 'NOT '}${anyMember(t.list, t.expr)}`;
  if (t.type !== 'array') return `${t.expr} IS ${wanted ? 'NOT ' : ''}NULL`;
  // An empty list counts as absent (the contract's `exists` on an 'array' field).
  return wanted ? `jsonb_array_length(${list(t)}) > 0` : `coalesce(jsonb_array_length(${list(t)}), 0) = 0`;
}

function match(x: string, c: Extract<Condition, { op: 'match' }>, p: Params): string {
  if (typeof c.value !== 'string') throw new TypeError(`match needs a string value, got ${String(c.value)}`);
  const expr = c.caseInsensitive ? `lower(${x})` : x;
  const v = c.caseInsensitive ? c.value.toLowerCase() : c.value;
  if (!storableText(v)) return 'FALSE'; // no stored text holds it
  switch (c.mode) {
    case 'exact':
      return `${expr} = ${p.add(v)}`;
    case 'partial':
      return `strpos(${expr}, ${p.add(v)}) > 0`;
    case 'start':
      return `starts_with(${expr}, ${p.add(v)})`;
    case 'end': {
      const value = p.add(v);
      return `right(${expr}, length(${value})) = ${value}`;
    }
    case 'word_start':
      return `(starts_with(${expr}, ${p.add(v)}) OR strpos(${expr}, ${p.add(` ${v}`)}) > 0)`;
  }
}

/** The tests of a to-many relation's members, as IRIs: some member of the join table passes. */
function members(list: JoinList, owner: string, c: Condition, p: Params): string {
  switch (c.op) {
    case 'eq':
    case 'in': {
      const values = c.op === 'in' ? c.values : [c.value];
      return someMember(list, owner, (m) => namesKey(m, list.reference, values, p));
    }
    case 'match': {
      const prefix = `'${list.reference.relation.keyPrefix.replace(/'/g, "''")}'`;
      return someMember(list, owner, (m) => match(`(${prefix} || ${m}::text)`, c, p));
    }
    default:
      throw new TypeError(`${c.op} does not apply to a list`);
  }
}

/** The element-wise tests of an 'array' field: some scalar element passes. */
function elements(t: Target, c: Condition, p: Params): string {
  if (t.list) return members(t.list, t.expr, c, p);
  switch (c.op) {
    case 'eq':
      checkValue(c.value);
      return `${t.expr} @> ${p.add(JSON.stringify([c.value]))}::jsonb`;
    case 'in':
      c.values.forEach(checkValue);
      if (c.values.length === 0) return 'FALSE';
      return `${t.expr} @> ANY(${p.add(c.values.map((v) => JSON.stringify([v])))}::jsonb[])`;
    case 'match': {
      const test = match('element.value', c, p);
      return `EXISTS (SELECT 1 FROM jsonb_array_elements(${list(t)}) AS item(json), LATERAL (SELECT item.json #>> '{}' AS value WHERE jsonb_typeof(item.json) IN ('string', 'number', 'boolean')) AS element WHERE ${test})`;
    }
    default:
      throw new TypeError(`${c.op} does not apply to a list`);
  }
}

export function condition(table: Table, c: Condition, p: Params): string {
  switch (c.op) {
    case 'and':
      return c.conditions.length === 0 ? 'TRUE' : `(${c.conditions.map((x) => condition(table, x, p)).join(' AND ')})`;
    case 'or':
      return c.conditions.length === 0 ? 'FALSE' : `(${c.conditions.map((x) => condition(table, x, p)).join(' OR ')})`;
    case 'exists': {
      const t = target(table, c.field);
      return exists(t.reference ? { ...t, expr: t.reference.column } : t, c.exists);
    }
    case 'text':
      throw new FullTextConditionError(c.field);
    case 'refers':
      return refers(table, c, p);
    case 'in': {
      const t = target(table, c.field);
      if (t.type === 'array') return elements(t, c, p);
      if (t.reference) return namesKey(t.reference.column, t.reference.ref, c.values, p);
      if (c.values.length === 0) return 'FALSE';
      c.values.forEach(checkValue);
      const fitting = c.values.filter((v) => fits(t.type, v));
      const others = c.values
        .filter((v) => !fits(t.type, v))
        .map((v) => compare(comparable(table, c.field), 'eq', v, p));
      const sqlType = {
        int: 'bigint',
        number: 'double precision',
        bool: 'boolean',
        datetime: 'timestamptz',
        date: 'date',
      }[t.type as string];
      const listed = fitting.length > 0 ? [`${t.expr} = ANY(${p.add(fitting)}::${sqlType ?? 'text'}[])`] : [];
      const all = [...listed, ...others.filter((o) => o !== 'FALSE')];
      if (all.length === 0) return 'FALSE';
      return all.length === 1 ? all[0]! : `(${all.join(' OR ')})`;
    }
    case 'match': {
      const t = target(table, c.field);
      if (t.type === 'array') return elements(t, c, p);
      return match(textOf(comparable(table, c.field)), c, p);
    }
    case 'eq': {
      const t = target(table, c.field);
      if (t.type === 'array') return elements(t, c, p);
      if (t.reference) return namesKey(t.reference.column, t.reference.ref, [c.value], p);
      return compare(comparable(table, c.field), c.op, c.value, p);
    }
    default:
      return compare(comparable(table, c.field), c.op, c.value, p);
  }
}

/**
 * A sub-query on the related table: the field holds the reference (`keyPrefix` and key) of one of its rows that
 * match `where` (row-level scopes through relations, docs/scopes.md).
 */
function refers(table: Table, c: Extract<Condition, { op: 'refers' }>, p: Params): string {
  const related = tableOf(c.target);
  const inner = c.where.length ? ` WHERE ${c.where.map((w) => condition(related, w, p)).join(' AND ')}` : '';
  const t = comparable(table, c.field);
  // `= ANY(ARRAY(…))`, not `IN (…)`: the related keys are read once, and the relation's index then counts and
  // selects the rows (an index-only scan), where PostgreSQL 15 plans `IN` as a hash join over the whole table
  // (docs/performance.md, "Row-level scopes": 1.35 ms against 2.29 ms for a page of 5,000 of 10,000 notes).
  // A relation kept as the key of this very table: compared as keys (the foreign key's index).
  const ref = t.reference?.ref;
  if (ref && ref.table === related.rawName && ref.relation.keyPrefix === c.keyPrefix)
    return `${t.reference!.column} = ANY(ARRAY(SELECT ${related.key.name} FROM ${related.name}${inner}))`;
  const reference = `${p.add(c.keyPrefix)}::text || ${related.key.name}::text`;
  return `${textOf(t)} = ANY(ARRAY(SELECT ${reference} FROM ${related.name}${inner}))`;
}

function orderBy(table: Table, terms: OrderTerm[]): string {
  // Nulls sort as the smallest values (the contract): first ascending, last descending. The key is never NULL, so
  // it takes PostgreSQL's default (ASC NULLS LAST, DESC NULLS FIRST), the order of the primary key and of the key
  // ending every index of ours: with NULLS FIRST there, no index could give the order and a page would sort the table.
  return terms
    .map((t) => {
      const { expr } = comparable(table, t.field);
      if (expr === table.key.name) return `${expr} ${t.direction === 'desc' ? 'DESC' : 'ASC'}`;
      return `${expr} ${t.direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`;
    })
    .join(', ');
}

function whereClause(table: Table, conditions: Condition[], p: Params): string {
  if (conditions.length === 0) return '';
  return ` WHERE ${conditions.map((c) => condition(table, c, p)).join(' AND ')}`;
}

/** The query's own conditions: `where` and the `after` cursor. */
function filters(table: Table, q: Query): Condition[] {
  const after = afterCondition(table.spec, q);
  return [...(q.where ?? []), ...(after ? [after] : [])];
}

function limitOffset(q: Query, p: Params): string {
  const limit = nonNegative(q.limit, 'limit');
  const offset = nonNegative(q.offset, 'offset');
  return `${limit !== undefined ? ` LIMIT ${p.add(limit)}` : ''}${offset ? ` OFFSET ${p.add(offset)}` : ''}`;
}

/**
 * The rows `q` selects, in order, as the table's selected columns; with `column`, one more column after them (its
 * values bound after the page's).
 */
export function compileFind(table: Table, q: Query, column?: (p: Params) => string): CompiledSql {
  const p = new Params();
  const where = whereClause(table, filters(table, q), p);
  const order = orderBy(table, orderTerms(table.spec, q.sort ?? []));
  const page = limitOffset(q, p);
  const lock = q.settled ? ' FOR KEY SHARE' : '';
  const more = column ? `, ${column(p)}` : '';
  return {
    text: `SELECT ${table.selected}${more} FROM ${table.name}${where} ORDER BY ${order}${page}${lock}`,
    values: p.values,
  };
}

/**
 * Whether a row of `q` exists past its offset (its limit ignored), as a statement giving 1 or no row. Read in its
 * order: a keyset probe (the only caller) then reads the order's index from its cursor, one entry, where an
 * unordered LIMIT 1 might scan the table.
 */
export function compileExists(table: Table, q: Query, p = new Params()): CompiledSql {
  const order = orderBy(table, orderTerms(table.spec, q.sort ?? []));
  const where = whereClause(table, filters(table, q), p);
  const offset = nonNegative(q.offset, 'offset');
  return {
    text: `SELECT 1 FROM ${table.name}${where} ORDER BY ${order} LIMIT 1${offset ? ` OFFSET ${p.add(offset)}` : ''}`,
    values: p.values,
  };
}

export function compileCount(table: Table, where: Condition[] = []): CompiledSql {
  const p = new Params();
  return { text: `SELECT count(*) FROM ${table.name}${whereClause(table, where, p)}`, values: p.values };
}

/** The conditions of `where` as SQL with their values added to `p` (a conditional delete's). */
export function compileConditions(table: Table, where: Condition[], p: Params): string {
  return where.map((c) => condition(table, c, p)).join(' AND ');
}
