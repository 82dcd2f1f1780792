// DDL for one collection: a table keyed by the identifier (or an internal integer key) with the rest of the
// item as JSON, and expression indexes on the same JSON paths the query compiler emits.
import { checkName, DOC_COLUMN, fieldColumn, KEY_COLUMN, quoteIdent } from './sqlite-query.js';
import type { CollectionSpec } from './types.js';

/** Idempotent statements that create the table and its indexes. */
export function schemaStatements(spec: CollectionSpec): string[] {
  const table = quoteIdent(checkName(spec.name, 'resource'));
  if (spec.identifier) checkName(spec.identifier.field, 'identifier');
  for (const field of Object.keys(spec.fields)) checkName(field, 'field');
  // INTEGER PRIMARY KEY aliases the rowid: a NULL key is assigned max + 1 by SQLite.
  const key = spec.identifier?.type === 'string' ? 'TEXT NOT NULL PRIMARY KEY' : 'INTEGER PRIMARY KEY';
  const statements = [`CREATE TABLE IF NOT EXISTS ${table} (${KEY_COLUMN} ${key}, ${DOC_COLUMN} TEXT NOT NULL)`];
  for (const fields of spec.indexes) {
    // Every index ends with the key: the caller makes sorts total with the identifier, and so does the
    // compiler with the key, so ORDER BY field, key can read the index in order.
    const columns = [...new Set([...fields.map((f) => fieldColumn(spec, f).expr), KEY_COLUMN])];
    if (columns.length === 1) continue; // the key alone is already the primary key
    const name = quoteIdent(`${spec.name}(${fields.join(',')})`);
    statements.push(`CREATE INDEX IF NOT EXISTS ${name} ON ${table} (${columns.join(', ')})`);
  }
  return statements;
}
