// What `apidsl migrate`'s fills leave in the catalogue, for the plan of what runs after them. Migrate fills the
// defaults first (store.ts `fill`), then opens the collections: their statements find the column a fill added
// (NULL allowed: made NOT NULL afterwards), the join table a fill made (its list moved out of a jsonb column), and
// the target's table made for it. A plan read from the catalogue as it is would list other statements than those
// that run (`ADD COLUMN … NOT NULL`, a join table made twice).
import type { CollectionSpec, PlannedFill } from '../types.js';
import { memberActionCode } from './join-tables.js';
import { catalogued, madeTable, rawOf, type ExistingJoinTable, type ExistingTable } from './schema.js';
import { columnType, tableOf } from './table.js';

export class FilledCatalogue {
  constructor(private readonly fills: readonly PlannedFill[] = []) {}

  private of(spec: CollectionSpec): string[] {
    const name = tableOf(spec).rawName;
    return this.fills.filter((f) => tableOf(f.spec).rawName === name).map((f) => f.field);
  }

  /** The table `spec`'s collection finds after the fills, `now` being what the catalogue says of it. */
  table(spec: CollectionSpec, now: ExistingTable | undefined): ExistingTable | undefined {
    const table = tableOf(spec);
    if (!now) {
      // A list's fill makes its target's table when it is missing (store.ts `listFillSteps`).
      const target = (f: PlannedFill): string | undefined => tableOf(f.spec).byList.get(f.field)?.reference.table;
      return this.fills.some((f) => target(f) === table.rawName) ? madeTable(spec) : undefined;
    }
    const columns = new Map(now.columns);
    for (const field of this.of(spec)) {
      const column = table.byField.get(field);
      if (column && !columns.has(rawOf(column)))
        columns.set(rawOf(column), { type: catalogued(columnType(column)), notNull: false });
      const list = table.byList.get(field);
      if (list && columns.get(list.legacyColumn)?.type === 'jsonb') columns.delete(list.legacyColumn);
    }
    return { ...now, columns };
  }

  /** The join tables `spec`'s collection finds after the fills, `now` being what the catalogue says of them. */
  joins(spec: CollectionSpec, now: ReadonlyMap<string, ExistingJoinTable>): Map<string, ExistingJoinTable> {
    const out = new Map(now);
    for (const field of this.of(spec)) {
      const list = tableOf(spec).byList.get(field);
      if (list) out.set(list.rawName, { memberAction: memberActionCode(list) });
    }
    return out;
  }
}
