// SQLite's constraint failures as store errors: a taken key, a repeated unique value, and why a new unique index
// cannot be made over the stored items.
import Database from 'better-sqlite3';
import { LayoutConflictError, StoreConflictError, UniqueConflictError, type CollectionSpec } from '../types.js';
import { repeatedValuesMessage, uniqueSets } from '../unique.js';
import { fieldColumn, quoteIdent } from './query.js';
import { uniqueIndexName } from './schema.js';

/**
 * Runs a write, its key or unique index violations told as StoreConflictError / UniqueConflictError (`index`:
 * the item's position in an insertMany).
 */
export function conflictsOf<T>(spec: CollectionSpec, run: () => T, index?: number): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      throw new StoreConflictError(`${spec.name} identifier already exists`, { cause: error });
    }
    const fields = error instanceof Database.SqliteError ? violatedUnique(spec, error) : undefined;
    if (fields) throw new UniqueConflictError(fields, { cause: error, index });
    throw error;
  }
}

/** Runs a schema statement; a new unique index over values stored items already repeat refuses, naming them. */
export function execSchema(db: Database.Database, spec: CollectionSpec, statement: string): void {
  try {
    db.exec(statement);
  } catch (error) {
    const fields = error instanceof Database.SqliteError ? violatedUnique(spec, error) : undefined;
    if (fields) throw new LayoutConflictError(duplicatesOf(db, spec, fields), { cause: error });
    throw error;
  }
}

/** The unique field list whose index `error` names ("UNIQUE constraint failed: index '…'"), if any. */
function violatedUnique(spec: CollectionSpec, error: InstanceType<typeof Database.SqliteError>): string[] | undefined {
  if (error.code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
  return uniqueSets(spec).find((fields) => error.message.includes(`'${uniqueIndexName(spec, fields)}'`));
}

/** Why the unique index on `fields` cannot be made: the values several stored items share. */
function duplicatesOf(db: Database.Database, spec: CollectionSpec, fields: string[]): string {
  const columns = fields.map((f) => fieldColumn(spec, f).expr);
  const present = columns.map((c) => `${c} IS NOT NULL`).join(' AND ');
  const rows = db
    .prepare(
      `SELECT json_array(${columns.join(', ')}) AS "v", count(*) AS "n" FROM ${quoteIdent(spec.name)} WHERE ${present} GROUP BY ${columns.join(', ')} HAVING count(*) > 1 LIMIT 6`,
    )
    .all() as { v: string; n: number }[];
  return repeatedValuesMessage(
    spec,
    fields,
    rows.map(({ v, n }) => ({ values: JSON.parse(v) as unknown[], count: n })),
  );
}
