/**
 * `apidsl migrate FILE.api [--dry-run] [--data DIR | --db URI]`: lists the changes the file makes to the stored
 * data, with the items each affects, and applies those that can be: every safe one, and a new required property
 * filled with its default where items lack it. Refuses (exit 1, nothing changed) while any other change does
 * not fit the stored items. On PostgreSQL it also lists the SQL statements that apply the changes.
 */
import { openCollections } from '../server/pipeline/open-runtime.js';
import { loadApi } from '../server/load-api.js';
import { openStore, specsOf } from '../server/storage.js';
import { describeChange, isSafe, planStore, type Change } from '../server/store/layout.js';
import type { CollectionSpec, PlannedFill, Store } from '../server/store/types.js';
import { startFailure } from './start-failure.js';
import { storageFor } from './store-flags.js';

export interface MigrateCliOptions {
  dryRun?: boolean;
  data?: string;
  db?: string;
}

/** How a change is listed: applied as it is, applied by filling a default, or refused. */
function status(c: Change): string {
  if (isSafe(c)) return 'safe     ';
  return c.fill ? 'fill     ' : 'unsafe   ';
}

/**
 * The statements a relational store runs to apply the changes, each as often as it runs (shown too when they are
 * refused): those filling defaults first, then the rest of the schema's, planned from the tables as the fills leave
 * them (a column a fill added is made NOT NULL, a join table it made is not made again).
 */
async function printStatements(store: Store, specs: CollectionSpec[], changes: Change[]): Promise<void> {
  const statements: string[] = [];
  const fills: PlannedFill[] = [];
  for (const c of changes) {
    if (isSafe(c) || !c.fill) continue;
    const spec = specs.find((s) => s.name === c.resource)!;
    statements.push(...((await store.fillPlan?.(spec, c.fill.field, c.fill.value, fills)) ?? []));
    fills.push({ spec, field: c.fill.field });
  }
  statements.push(...((await store.schemaPlan?.(specs, fills)) ?? []));
  for (const statement of statements) process.stdout.write(`sql      ${statement.replace(/\n\s*/g, ' ')};\n`);
}

export async function runMigrate(file: string, opts: MigrateCliOptions): Promise<number> {
  const storage = storageFor('migrate', file, opts);
  if (!storage) return 1;
  let store: Store | undefined;
  try {
    const api = await loadApi(file);
    store = await openStore(storage);
    const specs = specsOf(api);
    const changes = await planStore(store, specs);
    if (changes.length === 0)
      process.stdout.write(`${file}: the stored data already has this layout; nothing to change.\n`);
    for (const c of changes) process.stdout.write(`${status(c)}${describeChange(c)}\n`);
    await printStatements(store, specs, changes);
    const refused = changes.filter((c) => !isSafe(c) && !c.fill);
    if (refused.length > 0) {
      process.stderr.write(
        `apidsl migrate: ${refused.length} change${refused.length === 1 ? '' : 's'} cannot be applied to the stored items` +
          `${opts.dryRun ? '' : '; nothing changed'}. Change the file, fix or remove those items, or serve it on other data.\n`,
      );
      return 1;
    }
    if (opts.dryRun) return 0;
    for (const c of changes) {
      if (isSafe(c) || !c.fill) continue;
      const spec = specs.find((s) => s.name === c.resource)!;
      const n = await store.fill(spec, c.fill.field, c.fill.value);
      process.stdout.write(
        `filled ${c.resource}.${c.fill.field} with ${JSON.stringify(c.fill.value)} in ${n} stored item${n === 1 ? '' : 's'}\n`,
      );
    }
    await openCollections(api, store); // applies the layout and records it
    if (changes.length > 0)
      process.stdout.write(`${file}: ${changes.length} change${changes.length === 1 ? '' : 's'} applied.\n`);
    return 0;
  } catch (e) {
    return startFailure({ command: 'migrate', file, flags: opts }, e);
  } finally {
    await store?.close();
  }
}
