/**
 * What the stores need when the new file replaces the old one: the layout changes `apidsl migrate` plans
 * (store/layout.ts, the old file's layout standing for the recorded one), each with what migrate does about it and
 * the store's own commands: SQL for SQLite and PostgreSQL, operations for MongoDB (migration-sqlite.ts,
 * migration-postgres.ts, migration-mongodb.ts).
 * Renamed properties and resources are moved first, by hand: migrate never moves stored values.
 */
import type { ApiMetadata } from '../metadata/types.js';
import { planChanges, layoutText, type Change } from '../store/layout.js';
import type { CollectionSpec } from '../store/types.js';
import type { MigrationDialect } from './migration-dialect.js';
import { MONGODB } from './migration-mongodb.js';
import { POSTGRES } from './migration-postgres.js';
import { SQLITE } from './migration-sqlite.js';
import { pairProperties, pairResources } from './pairing.js';
import { renamedSpec } from './renamed-spec.js';

/**
 * What `apidsl migrate` does about a change: applies it whatever is stored, applies it when every stored item fits
 * (else refuses it, and the commands count the items in the way), fills a default into the items that lack it,
 * or leaves it to a person (the commands do it).
 */
export type MigrationAction = 'applies' | 'checks' | 'fills' | 'by-hand';

export interface MigrationStep {
  resource: string;
  action: MigrationAction;
  /** The change in words: `title: maxLength 255 → 100`. */
  change: string;
  commands: string[];
}

export interface MigrationPlan {
  store: string;
  steps: MigrationStep[];
}

/** The stores `apidsl diff` plans for; a new store is one more dialect here. */
export const DIALECTS: readonly MigrationDialect[] = [SQLITE, MONGODB, POSTGRES];

const NO_ITEMS = { count: 0, items: async function* () {} };

/** A layout change: what migrate does with it, and the commands of the dialect. */
function changeStep(
  dialect: MigrationDialect,
  spec: CollectionSpec,
  stored: CollectionSpec,
  c: Change,
): MigrationStep | undefined {
  if (c.kind === 'new-index' || c.kind === 'removed-index') return undefined; // one step for all indexes
  const change = `${c.subject}: ${c.detail}`;
  if (c.kind === 'new-property' || c.kind === 'removed-property')
    return { resource: spec.name, action: 'applies', change, commands: [] };
  const commands = dialect.check(spec, c, stored);
  if (c.fill)
    return {
      resource: spec.name,
      action: 'fills',
      change,
      commands: [...commands, ...dialect.fill(spec, c.fill.field, c.fill.value, stored)],
    };
  return { resource: spec.name, action: 'checks', change, commands };
}

/**
 * The relations that name another resource than before: their stored values still name items of the old one, which
 * no layout check sees (both are IRIs); a person points them at items of the new one, or clears them.
 */
function retargeted(dialect: MigrationDialect, moved: CollectionSpec, after: CollectionSpec): MigrationStep[] {
  return Object.entries(after.relations ?? {}).flatMap(([field, relation]) => {
    const was = moved.relations?.[field]?.target.name;
    if (was === undefined || was === relation.target.name) return [];
    const change = `${field}: its stored values name ${was} items, not ${relation.target.name} items`;
    return [{ resource: after.name, action: 'by-hand' as const, change, commands: dialect.holding(after, field) }];
  });
}

async function collectionSteps(
  dialect: MigrationDialect,
  before: CollectionSpec,
  after: CollectionSpec,
  renames: Map<string, string>,
) {
  const steps: MigrationStep[] = [];
  for (const [from, to] of renames)
    steps.push({
      resource: after.name,
      action: 'by-hand',
      change: `${from} renamed to ${to}`,
      commands: dialect.renameField(before, from, to),
    });
  const moved = renamedSpec(before, renames, after.name);
  const relations = (dialect.relations?.(before, after, renames) ?? []).map((s) => ({ resource: after.name, ...s }));
  steps.push(...relations.filter((s) => s.action === 'by-hand'), ...retargeted(dialect, moved, after));
  const changes = await planChanges(after, { layout: layoutText(moved), ...NO_ITEMS });
  steps.push(...changes.flatMap((c) => changeStep(dialect, after, moved, c) ?? []));
  const indexes = dialect.indexes(moved, after);
  if (indexes.length > 0) steps.push({ resource: after.name, action: 'applies', change: 'indexes', commands: indexes });
  steps.push(...relations.filter((s) => s.action !== 'by-hand'));
  return steps;
}

/** The plan of one store: resource by resource, in the new file's order, then the resources it no longer has. */
async function plan(
  dialect: MigrationDialect,
  before: ApiMetadata,
  after: ApiMetadata,
  files: { old: string; new: string },
) {
  const resources = pairResources(before.resources, after.resources);
  const steps: MigrationStep[] = [];
  for (const r of resources.added)
    steps.push({
      resource: r.storage.name,
      action: 'applies',
      change: 'new collection',
      commands: dialect.create(r.storage),
    });
  // Once every new table is made: a constraint may name a table made further down.
  for (const r of resources.added) {
    const commands = dialect.constraints?.(r.storage) ?? [];
    if (commands.length > 0)
      steps.push({ resource: r.storage.name, action: 'applies', change: 'foreign keys', commands });
  }
  for (const { old, new: now } of resources.pairs) {
    const renames = new Map(
      pairProperties(old.properties, now.properties)
        .pairs.filter((p) => p.old.name !== p.new.name)
        .map((p) => [p.old.name, p.new.name]),
    );
    if (old.storage.name !== now.storage.name)
      steps.push({
        resource: now.storage.name,
        action: 'by-hand',
        change: `the items of ${old.storage.name} move to ${now.storage.name}`,
        commands: [
          `apidsl export ${files.old} ${old.name} --format ndjson -o ${old.storage.name}.ndjson`,
          `apidsl import ${files.new} ${now.name} ${old.storage.name}.ndjson`,
        ],
      });
    else steps.push(...(await collectionSteps(dialect, old.storage, now.storage, renames)));
  }
  for (const r of resources.removed)
    steps.push({
      resource: r.storage.name,
      action: 'by-hand',
      change: 'no longer served (its items stay stored)',
      commands: [],
    });
  return { store: dialect.store, steps };
}

export async function migrationPlans(
  before: ApiMetadata,
  after: ApiMetadata,
  files = { old: 'OLD.api', new: 'NEW.api' },
): Promise<MigrationPlan[]> {
  return Promise.all(DIALECTS.map((d) => plan(d, before, after, files)));
}
