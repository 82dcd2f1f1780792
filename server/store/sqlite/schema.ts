// DDL for one collection: a table keyed by the identifier (or an internal integer key) with the rest of the
// item as JSON and the item's rendered text, expression indexes on the same JSON paths the query compiler
// emits, and the triggers that keep its row count in the counts table.
import { checkName, checkNames } from '../names.js';
import type { CollectionSpec, Condition } from '../types.js';
import { uniqueSets } from '../unique.js';
import {
  elementFields,
  elementTableName,
  COUNTS_TABLE,
  DOC_COLUMN,
  fieldColumn,
  KEY_COLUMN,
  quoteIdent,
  RENDERED_COLUMN,
} from './query.js';

/** Idempotent statements that create the table and its indexes. */
export function schemaStatements(spec: CollectionSpec): string[] {
  // SQLite names are case-insensitive: a resource called _apidsl_counts would be the counts table (checkNames).
  checkNames(spec);
  const table = quoteIdent(spec.name);
  // INTEGER PRIMARY KEY aliases the rowid. Integer keys are never left to SQLite (max + 1 would reuse a
  // deleted largest key): the store takes them from the sequences table (sequenceSchema).
  const key = spec.identifier?.type === 'string' ? 'TEXT NOT NULL PRIMARY KEY' : 'INTEGER PRIMARY KEY';
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${table} (${KEY_COLUMN} ${key}, ${DOC_COLUMN} TEXT NOT NULL, ${RENDERED_COLUMN} TEXT)`,
  ];
  const elements = elementFields(spec);
  for (const fields of spec.indexes) {
    if (fields.length === 1 && elements.includes(fields[0]!)) continue; // indexed by element below
    // Every index ends with the key: the caller makes sorts total with the identifier, and so does the
    // compiler with the key, so ORDER BY field, key can read the index in order.
    const columns = [...new Set([...fields.map((f) => fieldColumn(spec, f).expr), KEY_COLUMN])];
    if (columns.length === 1) continue; // the key alone is already the primary key
    const name = quoteIdent(indexName(spec, fields));
    statements.push(`CREATE INDEX IF NOT EXISTS ${name} ON ${table} (${columns.join(', ')})`);
  }
  for (const field of elements) statements.push(...elementSchema(spec, field).create);
  for (const fields of uniqueSets(spec)) {
    // json_extract gives NULL for a null or absent value, and SQLite's unique indexes let NULLs repeat.
    const columns = fields.map((f) => fieldColumn(spec, f).expr);
    const name = quoteIdent(uniqueIndexName(spec, fields));
    statements.push(`CREATE UNIQUE INDEX IF NOT EXISTS ${name} ON ${table} (${columns.join(', ')})`);
  }
  return statements;
}

/** The name of the unique index on `fields`, which a violation's message names (errors.ts reads it back). */
export const uniqueIndexName = (spec: CollectionSpec, fields: string[]): string =>
  `${spec.name}:unique(${fields.join(',')})`;

export interface ElementSchema {
  /** Idempotent: the side table, its index by key and the three triggers. */
  create: string[];
  /** The trigger names, to drop them with the table when the layout no longer indexes the field. */
  triggerNames: string[];
  /** Fills the side table from the stored items (run once, when the table is new). */
  seed: string;
}

export function elementSchema(spec: CollectionSpec, field: string): ElementSchema {
  const name = checkName(spec.name, 'resource');
  checkName(field, 'field');
  const table = quoteIdent(name);
  const elements = quoteIdent(elementTableName(spec, field));
  const path = `'$."${field}"'`;
  // Only arrays: json_each of a scalar would yield the scalar itself. Scalars only: objects never match.
  const rows = (doc: string, key: string): string =>
    `SELECT DISTINCT j.value, ${key} FROM json_each(${doc}, ${path}) AS j WHERE json_type(${doc}, ${path}) = 'array' AND j.type IN ('text', 'integer', 'real', 'true', 'false')`;
  const insert = (row: string): string =>
    `INSERT OR IGNORE INTO ${elements} ("value", "key") ${rows(`${row}.${DOC_COLUMN}`, `${row}.${KEY_COLUMN}`)}`;
  const remove = `DELETE FROM ${elements} WHERE "key" = OLD.${KEY_COLUMN}`;
  const triggerNames = ['insert', 'update', 'delete'].map((event) => `${name}:elements:${field}:${event}`);
  const [onInsert, onUpdate, onDelete] = triggerNames.map(quoteIdent);
  return {
    create: [
      `CREATE TABLE IF NOT EXISTS ${elements} ("value" NOT NULL, "key" NOT NULL, PRIMARY KEY ("value", "key")) WITHOUT ROWID`,
      `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${elementTableName(spec, field)}(key)`)} ON ${elements} ("key")`,
      `CREATE TRIGGER IF NOT EXISTS ${onInsert} AFTER INSERT ON ${table} BEGIN ${insert('NEW')}; END`,
      `CREATE TRIGGER IF NOT EXISTS ${onUpdate} AFTER UPDATE OF ${DOC_COLUMN} ON ${table} BEGIN ${remove}; ${insert('NEW')}; END`,
      `CREATE TRIGGER IF NOT EXISTS ${onDelete} AFTER DELETE ON ${table} BEGIN ${remove}; END`,
    ],
    triggerNames,
    seed: `INSERT OR IGNORE INTO ${elements} ("value", "key") SELECT j.value, t.${KEY_COLUMN} FROM ${table} AS t, json_each(t.${DOC_COLUMN}, ${path}) AS j WHERE json_type(t.${DOC_COLUMN}, ${path}) = 'array' AND j.type IN ('text', 'integer', 'real', 'true', 'false')`,
  };
}

/** The name of the index on `fields`: a layout that no longer lists them drops it by that name. */
export const indexName = (spec: CollectionSpec, fields: string[]): string => `${spec.name}(${fields.join(',')})`;

/**
 * The index a page read along the key order tests a relation from: the spec's index on the identifier then a field
 * of a top-level `refers` condition (metadata/load.ts makes one for each relation a scope's path goes through), which
 * holds that field's value in key order. Undefined when the spec has none.
 */
export function keyOrderIndex(spec: CollectionSpec, where: readonly Condition[] | undefined): string | undefined {
  const key = spec.identifier?.field;
  if (key === undefined) return undefined;
  for (const c of where ?? []) {
    if (c.op !== 'refers') continue;
    const fields = spec.indexes.find((f) => f.length === 2 && f[0] === key && f[1] === c.field);
    if (fields) return indexName(spec, fields);
  }
  return undefined;
}

/** Each collection's layout as last opened (store/layout.ts). */
export const LAYOUTS_TABLE = '"_apidsl_layouts"';

export const layoutsSchema = `CREATE TABLE IF NOT EXISTS ${LAYOUTS_TABLE} ("collection" TEXT NOT NULL PRIMARY KEY, "layout" TEXT NOT NULL) WITHOUT ROWID`;

export interface CountSchema {
  /** Idempotent: the table shared by every collection. */
  table: string;
  /** The names of the two triggers, to see whether they exist. */
  triggerNames: [string, string];
  /** Idempotent: AFTER INSERT adds 1, AFTER DELETE subtracts 1, inside the writing statement's transaction. */
  triggers: string[];
  /**
   * (Re)sets the count from COUNT(*): run, in the same transaction as the triggers, when the count row is
   * missing (a new collection, or a data file from before the counts table) or the triggers were.
   */
  seed: string;
}

/**
 * The row count of a collection, kept so an unfiltered count never scans. UPDATE and the store's
 * create-or-replace (UPDATE, then INSERT when nothing was updated) only fire the triggers when a row is
 * really added or removed.
 */
export function countSchema(spec: CollectionSpec): CountSchema {
  const name = checkName(spec.name, 'resource'); // the name is a validated identifier, safe in a string literal
  const table = quoteIdent(name);
  const triggerNames: [string, string] = [`${name}:count:insert`, `${name}:count:delete`];
  const row = `${COUNTS_TABLE} SET "n" = "n" %s 1 WHERE "collection" = '${name}'`;
  return {
    table: `CREATE TABLE IF NOT EXISTS ${COUNTS_TABLE} ("collection" TEXT NOT NULL PRIMARY KEY, "n" INTEGER NOT NULL) WITHOUT ROWID`,
    triggerNames,
    triggers: [
      `CREATE TRIGGER IF NOT EXISTS ${quoteIdent(triggerNames[0])} AFTER INSERT ON ${table} BEGIN UPDATE ${row.replace('%s', '+')}; END`,
      `CREATE TRIGGER IF NOT EXISTS ${quoteIdent(triggerNames[1])} AFTER DELETE ON ${table} BEGIN UPDATE ${row.replace('%s', '-')}; END`,
    ],
    seed: `INSERT OR REPLACE INTO ${COUNTS_TABLE} ("collection", "n") SELECT '${name}', count(*) FROM ${table}`,
  };
}

/**
 * The last integer key of each collection with integer keys (an int identifier, or none: the internal key).
 * Keys are taken from it and it is raised past every key given explicitly, so a key is never handed out twice,
 * whatever was deleted or cleared since (SQLite's AUTOINCREMENT semantics, kept in a table of our own so that
 * tables made by earlier versions need no rebuild).
 */
export const SEQUENCES_TABLE = '"_apidsl_sequences"';

export interface SequenceSchema {
  /** Idempotent: the table shared by every collection. */
  table: string;
  /** Raises the collection's sequence to its largest stored key (creating its row): run at every opening. */
  seed: string;
  /** Takes the next key (RETURNING it); no row when the sequence row is missing. */
  next: string;
  /** Raises the sequence to the key (bound twice) when it is below it. */
  raise: string;
  /** The last key handed out. */
  last: string;
}

export function sequenceSchema(spec: CollectionSpec): SequenceSchema {
  const name = checkName(spec.name, 'resource'); // a validated identifier, safe in a string literal
  return {
    table: `CREATE TABLE IF NOT EXISTS ${SEQUENCES_TABLE} ("collection" TEXT NOT NULL PRIMARY KEY, "n" INTEGER NOT NULL) WITHOUT ROWID`,
    seed: `INSERT INTO ${SEQUENCES_TABLE} ("collection", "n") SELECT '${name}', coalesce(max(${KEY_COLUMN}), 0) FROM ${quoteIdent(name)} WHERE true ON CONFLICT ("collection") DO UPDATE SET "n" = max("n", excluded."n")`,
    next: `UPDATE ${SEQUENCES_TABLE} SET "n" = "n" + 1 WHERE "collection" = '${name}' RETURNING "n"`,
    raise: `UPDATE ${SEQUENCES_TABLE} SET "n" = ? WHERE "collection" = '${name}' AND "n" < ?`,
    last: `SELECT "n" FROM ${SEQUENCES_TABLE} WHERE "collection" = '${name}'`,
  };
}

/** Which rendering version made each collection's rendered texts (CollectionSpec.rendering). */
export const RENDERINGS_TABLE = '"_apidsl_renderings"';

export const renderingsSchema = `CREATE TABLE IF NOT EXISTS ${RENDERINGS_TABLE} ("collection" TEXT NOT NULL PRIMARY KEY, "version" TEXT NOT NULL) WITHOUT ROWID`;

/** Adds the rendered column to a table made before it existed; undefined when the table has it. */
export function renderedColumnUpgrade(spec: CollectionSpec, columns: string[]): string | undefined {
  return columns.includes(RENDERED_COLUMN.slice(1, -1))
    ? undefined
    : `ALTER TABLE ${quoteIdent(checkName(spec.name, 'resource'))} ADD COLUMN ${RENDERED_COLUMN} TEXT`;
}
