// How a collection is kept as a PostgreSQL table a person can read: the table named by the resource in snake case
// (`BookReview` → `book_review`), one typed column per field (`publishedAt` → `published_at timestamptz`; a to-many
// relation has a join table instead: join-tables.ts), the identifier as primary key (or an internal key for a
// resource without one), and one `_apidsl:extra` json column for what the typed columns cannot hold exactly: members
// the spec does not list, explicit nulls (a NULL column reads as absent), and values that do not fit their column's
// type (an int field holding "x"). Items come back as the same JSON objects they were stored as.
import { checkNames } from '../names.js';
import type { CollectionSpec, FieldType, Id, Item } from '../types.js';
import { aggregate, irisOf, joinListOf, membersOf, type JoinList } from './join-tables.js';
import { iriOf, keyOf, referenceOf, type Reference } from './references.js';

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** `BookReview` → `book_review`, `publishedAt` → `published_at`, `ISBN` → `isbn`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** PostgreSQL keeps the first 63 bytes of a name: longer ones are cut and made unique by a hash of the whole. */
export function shortName(name: string): string {
  if (Buffer.byteLength(name) <= 63) return name;
  let hash = 0;
  for (const ch of name) hash = (Math.imul(hash, 31) + ch.codePointAt(0)!) >>> 0;
  return `${name.slice(0, 54)}_${hash.toString(16).padStart(8, '0')}`;
}

/** The SQL type of each field type. */
export const SQL_TYPES: Record<FieldType, string> = {
  int: 'bigint',
  number: 'double precision',
  string: 'text',
  bool: 'boolean',
  datetime: 'timestamptz',
  date: 'date',
  json: 'jsonb',
  array: 'jsonb',
  iri: 'text',
};

const KEY_FIELD_TYPES = { int: 'int', string: 'string' } as const;

/** A column's SQL type: its field type's, or the target key's for a relation kept as a key. */
export const columnType = (c: { type: FieldType; reference?: Reference }): string =>
  SQL_TYPES[c.reference ? KEY_FIELD_TYPES[c.reference.keyType] : c.type];

export interface Column {
  field: string;
  /** The column's name, quoted. */
  name: string;
  type: FieldType;
  /** A relation kept as its target's key (references.ts). */
  reference?: Reference;
}

/** The key of a resource without an identifier, and the column of what the typed ones cannot hold. */
export const INTERNAL_KEY = '_apidsl:key';
export const EXTRA = '_apidsl:extra';

export interface Table {
  spec: CollectionSpec;
  /** The table's name unquoted (for the catalogue) and quoted (for statements). */
  rawName: string;
  name: string;
  key: { name: string; rawName: string; type: 'int' | 'string' };
  /** The non-identifier fields kept in the table, in the spec's order. */
  columns: Column[];
  byField: Map<string, Column>;
  extra: string;
  /** The to-many relations kept in join tables (join-tables.ts), in the spec's order. */
  lists: JoinList[];
  byList: Map<string, JoinList>;
  /**
   * What every read selects: the key, each column, the extra members, each list's keys (rows in array mode, in
   * this order).
   */
  selected: string;
}

const tables = new WeakMap<CollectionSpec, Table>();

/** The table of a collection (made once per spec). */
export function tableOf(spec: CollectionSpec): Table {
  let table = tables.get(spec);
  if (!table) tables.set(spec, (table = makeTable(spec)));
  return table;
}

/** The table name of a resource: `spec.table` when given, else the resource name in snake case. */
export const tableName = (spec: CollectionSpec): string => shortName(spec.table ?? snakeCase(spec.name));

/** The column name of each field: snake case unless two names meet there (`fooBar` and `foo_bar`). */
function columnNamer(spec: CollectionSpec): (field: string) => string {
  const snake = new Map<string, number>();
  for (const f of Object.keys(spec.fields)) snake.set(snakeCase(f), (snake.get(snakeCase(f)) ?? 0) + 1);
  if (spec.identifier && !Object.hasOwn(spec.fields, spec.identifier.field))
    snake.set(snakeCase(spec.identifier.field), (snake.get(snakeCase(spec.identifier.field)) ?? 0) + 1);
  return (f) => shortName(snake.get(snakeCase(f))! > 1 ? f : snakeCase(f));
}

/** A table's name and key column, without the rest of it (a relation's target: maybe the table being made). */
const keyOfTable = (spec: CollectionSpec): { rawName: string; key: { rawName: string; type: 'int' | 'string' } } => ({
  rawName: tableName(spec),
  key: {
    rawName: spec.identifier ? columnNamer(spec)(spec.identifier.field) : INTERNAL_KEY,
    type: spec.identifier?.type ?? 'int',
  },
});

function makeTable(spec: CollectionSpec): Table {
  checkNames(spec);
  const id = spec.identifier?.field;
  const fields = Object.keys(spec.fields).filter((f) => f !== id);
  const columnName = columnNamer(spec);
  const owner = keyOfTable(spec);
  const names = { short: shortName, quote: quoteIdent };
  const lists = fields.flatMap((f) => joinListOf(spec, f, owner, columnName(f), keyOfTable, names) ?? []);
  const byList = new Map(lists.map((l) => [l.field, l]));
  const columns = fields
    .filter((f) => !byList.has(f))
    .map((field): Column => {
      const reference = referenceOf(spec, field, keyOfTable);
      return {
        field,
        name: quoteIdent(columnName(field)),
        type: spec.fields[field]!,
        ...(reference ? { reference } : {}),
      };
    });
  const { rawName, key: k } = owner;
  const key = { name: quoteIdent(k.rawName), ...k };
  const extra = quoteIdent(EXTRA);
  const name = quoteIdent(rawName);
  const aggregates = lists.map((l) => aggregate(l, `${name}.${key.name}`));
  return {
    spec,
    rawName,
    name,
    key,
    columns,
    byField: new Map(columns.map((c) => [c.field, c])),
    extra,
    lists,
    byList,
    selected: [key.name, ...columns.map((c) => c.name), extra, ...aggregates].join(', '),
  };
}

/** An ISO 8601 date-time with a zone, as PostgreSQL's timestamptz reads it. */
const DATETIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A string PostgreSQL's text and jsonb can hold: no NUL, no lone surrogate (in a `u` pattern, category Cs). */
export const storableText = (s: string): boolean => !s.includes('\0') && !/\p{Cs}/u.test(s);

/** JSON text jsonb keeps as it is (it refuses \u0000 and lone surrogates; a false alarm only moves it to extra). */
const storableJson = (json: string): boolean => !/\\u0000|\\ud[89a-f]/i.test(json);

/** The datetime text a timestamptz reads back as (the pipeline's normal form: milliseconds only when not 0). */
export function datetimeText(pgText: string): string {
  // `2024-01-02 03:04:05.12+00` (TimeZone UTC, DateStyle ISO); fractions hold at most milliseconds here.
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?\+00$/.exec(pgText);
  if (!m) return pgText;
  const fraction = m[3] ? `.${m[3].padEnd(3, '0')}` : '';
  return `${m[1]}T${m[2]}${fraction}+00:00`;
}

/** Whether a column of `type` holds `value` (a datetime as its instant: see `exact`). */
export function fits(type: FieldType, value: unknown): boolean {
  switch (type) {
    case 'int':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0);
    case 'string':
    case 'iri':
      return typeof value === 'string' && storableText(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'datetime': {
      if (typeof value !== 'string') return false;
      const m = DATETIME.exec(value);
      return m !== null && Number(m[1]) >= 1 && !Number.isNaN(new Date(value).getTime());
    }
    case 'date': {
      if (typeof value !== 'string') return false;
      const m = DATE.exec(value);
      if (!m || Number(m[1]) < 1) return false;
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
    }
    case 'array':
      return Array.isArray(value) && storableJson(JSON.stringify(value));
    case 'json':
      return value !== null && storableJson(JSON.stringify(value));
  }
}

/**
 * Whether the column gives `value` back as it is. A datetime reads back in the pipeline's one UTC form
 * (`2024-01-02T03:04:05+00:00`, milliseconds only when not 0): one written in another form (`…00.000Z`) is
 * kept in that form among the extra members too, its column holding the instant for conditions and order.
 */
export const exact = (type: FieldType, value: unknown): boolean =>
  type !== 'datetime' || datetimeText(pgDatetime(new Date(value as string))) === value;

/** A date as PostgreSQL writes a timestamptz (TimeZone UTC, DateStyle ISO). */
const pgDatetime = (date: Date): string => {
  const iso = date.toISOString();
  const ms = iso.slice(20, 23);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${ms === '000' ? '' : `.${ms.replace(/0+$/, '')}`}+00`;
};

/** A value as bound for its column (JSON columns take text: the driver would make a JS array a SQL array). */
export const bound = (type: FieldType, value: unknown): unknown =>
  type === 'json' || type === 'array' ? JSON.stringify(value) : value;

export type Row = unknown[];

/** What a row keeps of an item: the column values (in `columns` order), the extra members as json text (null when none), each list's member keys (in `lists` order; undefined: the item has no such member). */
export interface RowValues {
  values: unknown[];
  extra: string | null;
  members: ((number | string)[] | undefined)[];
}

/** The row of an item. */
export function rowValues(table: Table, item: Item): RowValues {
  // A plain JSON copy, as the other stores keep it: undefined members dropped, dates as strings.
  const json = JSON.parse(JSON.stringify(item)) as Item;
  const extra: Item = {};
  let extras = 0;
  const values = table.columns.map((c) => {
    if (!Object.hasOwn(json, c.field)) return null;
    const value = json[c.field];
    if (c.reference) {
      const key = keyOf(c.reference, value);
      // Of another form, or spelled otherwise than the IRI read back (`/shops/07`): kept as written too.
      if (key === undefined || iriOf(c.reference, key) !== value) {
        extra[c.field] = value;
        extras++;
      }
      return key ?? null;
    }
    const held = value !== null && fits(c.type, value);
    if (!held || !exact(c.type, value)) {
      extra[c.field] = value;
      extras++;
    }
    return held ? bound(c.type, value) : null;
  });
  const members = table.lists.map((l) => {
    if (!Object.hasOwn(json, l.field)) return undefined;
    const { keys, exact } = membersOf(l, json[l.field]);
    if (!exact) {
      extra[l.field] = json[l.field];
      extras++;
    }
    return keys;
  });
  const id = table.spec.identifier?.field;
  for (const [name, value] of Object.entries(json)) {
    if (name === id || table.byField.has(name) || table.byList.has(name)) continue;
    extra[name] = value;
    extras++;
  }
  return { values, extra: extras > 0 ? JSON.stringify(extra) : null, members };
}

/** The item a row (in `selected` order) holds. */
export function rowItem(table: Table, row: Row): Item {
  const item: Item = {};
  const id = table.spec.identifier?.field;
  if (id) item[id] = row[0] as Id;
  table.columns.forEach((c, i) => {
    const value = row[i + 1];
    if (value !== null) item[c.field] = c.reference ? iriOf(c.reference, value) : value;
  });
  const at = table.columns.length + 2;
  table.lists.forEach((l, i) => {
    const keys = row[at + i];
    if (keys !== null) item[l.field] = irisOf(l, keys as unknown[]);
  });
  // Last: a value kept as written among the extra members is read over the column's or the list's.
  const extra = row[table.columns.length + 1];
  if (extra !== null) Object.assign(item, extra as Item);
  return item;
}
