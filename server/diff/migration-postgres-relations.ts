/**
 * The PostgreSQL plan's steps for the to-one relations of a collection both files have (store/postgres/references.ts):
 * a relation column that keeps its target's key while the new file no longer names that target the same way (the
 * relation removed, made a plain property, or pointed at another resource) is turned back into the IRIs its items
 * hold, its foreign key dropped, before the new file opens the store, which would otherwise read the bare keys as
 * text or as keys of the new target; and the foreign keys of the columns that stay keys, changed (`onDelete`, a
 * renamed column) as the store would change them.
 */
import { ACTION_CODES, type Reference } from '../store/postgres/references.js';
import { foreignKeys, foreignKeyStatements, type ExistingTable } from '../store/postgres/schema.js';
import { quoteIdent, tableOf } from '../store/postgres/table.js';
import type { CollectionSpec } from '../store/types.js';
import { iriText } from './postgres-iri.js';
import { renamedSpec } from './renamed-spec.js';

interface RelationStep {
  action: 'applies' | 'by-hand';
  change: string;
  commands: string[];
}

/** Whether two references keep the same keys: the same table, prefix and key type (onDelete aside). */
export const sameKeys = (a: Reference | undefined, b: Reference | undefined): boolean =>
  !!a && !!b && a.table === b.table && a.relation.keyPrefix === b.relation.keyPrefix && a.keyType === b.keyType;

/**
 * `before` is the old file's collection, `after` the new one's (same table), `renames` the fields renamed (their
 * columns renamed by an earlier step of the plan).
 */
export function relationSteps(
  before: CollectionSpec,
  after: CollectionSpec,
  renames: ReadonlyMap<string, string>,
): RelationStep[] {
  const moved = tableOf(renamedSpec(before, renames, after.name));
  const now = tableOf(after);
  const steps: RelationStep[] = [];
  const kept: ExistingTable['foreignKeys'] = new Map();
  for (const fk of foreignKeys(before)) {
    const ref = fk.column.reference;
    const field = renames.get(fk.column.field) ?? fk.column.field;
    if (sameKeys(ref, now.byField.get(field)?.reference)) {
      kept.set(fk.name, { target: ref.table, action: ACTION_CODES[ref.relation.onDelete] });
      continue;
    }
    const column = moved.byField.get(field)!.name;
    steps.push({
      action: 'by-hand',
      change: `${field}: keys of ${ref.relation.target.name} back to the IRIs its items hold`,
      commands: [
        `ALTER TABLE ${now.name} DROP CONSTRAINT IF EXISTS ${quoteIdent(fk.name)};`,
        `ALTER TABLE ${now.name} ALTER COLUMN ${column} TYPE text;`,
        // An UPDATE, not the ALTER's USING: a text key is encoded by a sub-query, which USING does not take.
        `UPDATE ${now.name} SET ${column} = ${iriText(ref, column)} WHERE ${column} IS NOT NULL;`,
      ],
    });
  }
  const existing: ExistingTable = { columns: new Map(), indexes: new Set(), foreignKeys: kept };
  // A foreign key of a column that was no key yet comes with the column, when the new file opens the store.
  const keyed = new Set(
    foreignKeys(before)
      .filter((fk) => kept.has(fk.name))
      .map((fk) => moved.byField.get(renames.get(fk.column.field) ?? fk.column.field)!.name),
  );
  const statements = foreignKeyStatements(after, existing).filter(
    (s) => / DROP CONSTRAINT /.test(s) || foreignKeys(after).some((fk) => fk.create === s && keyed.has(fk.column.name)),
  );
  if (statements.length > 0)
    steps.push({ action: 'applies', change: 'foreign keys', commands: statements.map((s) => `${s};`) });
  return steps;
}
