/**
 * The SQLite store's side of a migration plan (migration.ts), in the SQL of its own schema (store/sqlite/schema.ts):
 * a table per collection holding each item as JSON, expression indexes on the same JSON paths its queries read.
 */
import type { Change } from '../store/layout.js';
import { fieldColumn, quoteIdent, DOC_COLUMN, KEY_COLUMN } from '../store/sqlite/query.js';
import { indexName, RENDERINGS_TABLE, schemaStatements, uniqueIndexName } from '../store/sqlite/schema.js';
import type { CollectionSpec, FieldType } from '../store/types.js';
import type { MigrationDialect } from './migration-dialect.js';

const literal = (v: unknown): string => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v));
const path = (field: string): string => `'$."${field}"'`;

/** The JSON types (json_type) a field's values may have, null included. */
const JSON_TYPES: Partial<Record<FieldType, string[]>> = {
  int: ['integer'],
  number: ['integer', 'real'],
  bool: ['true', 'false'],
  array: ['array'],
  string: ['text'],
  iri: ['text'],
  datetime: ['text'],
  date: ['text'],
};

/** The condition an item that contradicts the change meets; undefined when SQL cannot say (pattern). */
function contradicts(spec: CollectionSpec, c: Change): string | undefined {
  const field = c.subject;
  const column = fieldColumn(spec, field).expr;
  const type = `json_type(${DOC_COLUMN}, ${path(field)})`;
  if (c.kind === 'required') return `${column} IS NULL`;
  if (c.kind === 'type') {
    const allowed = JSON_TYPES[spec.fields[field]!];
    return allowed && `coalesce(${type}, 'null') NOT IN (${[...allowed, 'null'].map(literal).join(', ')})`;
  }
  const key = c.detail.split(' ')[0] as keyof NonNullable<CollectionSpec['rules']>[string];
  const bound = spec.rules?.[field]?.[key];
  switch (key) {
    case 'minimum':
      return `${type} IN ('integer', 'real') AND ${column} < ${literal(bound)}`;
    case 'maximum':
      return `${type} IN ('integer', 'real') AND ${column} > ${literal(bound)}`;
    case 'minLength':
      return `${type} = 'text' AND length(${column}) < ${literal(bound)}`;
    case 'maxLength':
      return `${type} = 'text' AND length(${column}) > ${literal(bound)}`;
    case 'enum':
      return `${column} IS NOT NULL AND ${column} NOT IN (${(bound as unknown[]).map(literal).join(', ')})`;
    default:
      return undefined;
  }
}

function check(spec: CollectionSpec, c: Change): string[] {
  const table = quoteIdent(spec.name);
  if (c.kind === 'identifier') {
    const wanted = spec.identifier?.type === 'string' ? 'text' : 'integer';
    return [`SELECT count(*) FROM ${table} WHERE typeof(${KEY_COLUMN}) <> '${wanted}';`];
  }
  if (c.kind === 'unique') {
    const columns = c.subject.split(',').map((f) => fieldColumn(spec, f).expr);
    const where = columns.map((col) => `${col} IS NOT NULL`).join(' AND ');
    return [
      `SELECT ${columns.join(', ')}, count(*) FROM ${table} WHERE ${where} GROUP BY ${columns.join(', ')} HAVING count(*) > 1;`,
    ];
  }
  const condition = contradicts(spec, c);
  if (condition === undefined) return [`-- ${c.detail}: apidsl migrate --dry-run counts the items that do not fit`];
  return [`SELECT count(*) FROM ${table} WHERE ${condition};`];
}

/** The CREATE INDEX statements of a layout, as the store makes them. */
const indexStatements = (spec: CollectionSpec): string[] =>
  schemaStatements(spec).filter((s) => /^CREATE (UNIQUE )?INDEX/.test(s));

/** The field lists of `before` that `after` no longer has. */
const gone = (before: string[][] = [], after: string[][] = []): string[][] =>
  before.filter((f) => !after.some((g) => g.join() === f.join()));

/** After a statement that changes stored items: their rendered texts are rendered again at the next opening. */
const rerender = (spec: CollectionSpec): string =>
  `DELETE FROM ${RENDERINGS_TABLE} WHERE "collection" = ${literal(spec.name)};`;

export const SQLITE: MigrationDialect = {
  store: 'sqlite',
  create: (spec) => schemaStatements(spec).map((s) => `${s};`),
  indexes(before, after) {
    const was = indexStatements(before);
    const dropped = [
      ...gone(before.indexes, after.indexes).map((f) => indexName(before, f)),
      ...gone(before.unique, after.unique).map((f) => uniqueIndexName(before, f)),
    ];
    return [
      ...dropped.map((name) => `DROP INDEX IF EXISTS ${quoteIdent(name)};`),
      ...indexStatements(after)
        .filter((s) => !was.includes(s))
        .map((s) => `${s};`),
    ];
  },
  check,
  fill: (spec, field, value) => [
    `UPDATE ${quoteIdent(spec.name)} SET ${DOC_COLUMN} = json_set(${DOC_COLUMN}, ${path(field)}, json(${literal(JSON.stringify(value))})) WHERE ${fieldColumn(spec, field).expr} IS NULL;`,
    rerender(spec),
  ],
  holding: (spec, field) => [
    `SELECT count(*) FROM ${quoteIdent(spec.name)} WHERE ${fieldColumn(spec, field).expr} IS NOT NULL;`,
  ],
  renameField: (spec, from, to) => [
    `UPDATE ${quoteIdent(spec.name)} SET ${DOC_COLUMN} = json_remove(json_set(${DOC_COLUMN}, ${path(to)}, json_extract(${DOC_COLUMN}, ${path(from)})), ${path(from)}) WHERE json_type(${DOC_COLUMN}, ${path(from)}) IS NOT NULL;`,
    rerender(spec),
  ],
};
