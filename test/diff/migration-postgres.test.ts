/**
 * `apidsl diff`'s PostgreSQL migration plan, run on a real server (test/support/postgres.ts): for each change pair
 * of migration-postgres-cases.ts, the old file's store holds some rows; the plan's moves run, each counting command
 * finds exactly the rows the store's own layout check (store/layout.ts) finds in the way; those removed, the rest of
 * the plan runs, and the new file's store then starts without refusing, with nothing left of the plan to do but the
 * column changes it makes itself, and reads every row back.
 */
import { expect } from 'chai';
import pg from 'pg';
import { migrationPlans, type MigrationPlan } from '../../server/diff/migration.js';
import { loadApi } from '../../server/load-api.js';
import type { ApiMetadata } from '../../server/metadata/types.js';
import { openCollections } from '../../server/pipeline/open-runtime.js';
import { specsOf } from '../../server/storage.js';
import { planStore, refuseUnsafeChanges } from '../../server/store/layout.js';
import { openPostgresStore } from '../../server/store/postgres/store.js';
import { tableOf } from '../../server/store/postgres/table.js';
import { LayoutConflictError, type Item, type Store } from '../../server/store/types.js';
import { pairFile } from '../support/diff-pairs.js';
import { dropPostgresDatabase, freshPostgresUrl, postgresOrSkip } from '../support/postgres.js';
import { PLAN_CASES, type PlanCase } from './migration-postgres-cases.js';

/** Runs `use` on the store at `url`, closed after. */
async function withStore<T>(url: string, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openPostgresStore({ url });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** The old file's collections opened as `serve` opens them, and the case's rows stored through them. */
async function storeRows(url: string, api: ApiMetadata, rows: PlanCase['rows']): Promise<void> {
  await withStore(url, async (store) => {
    const collections = await openCollections(api, store);
    for (const [resource, items] of Object.entries(rows))
      for (const item of items) await collections.get(resource)!.insert(item);
  });
}

/** What each counting command of the plan finds, by its step's change. */
async function planCounts(sql: pg.Client, plan: MigrationPlan): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const step of plan.steps.filter((s) => s.action === 'checks' || s.action === 'fills')) {
    const [query] = step.commands;
    if (!query?.startsWith('SELECT count(*)')) continue;
    const { rows } = await sql.query<unknown[]>({ text: query, rowMode: 'array' });
    out[step.change] = Number(rows[0]![0]);
  }
  return out;
}

/** What the store's layout check finds in the way, by the plan step's change (whose detail it may extend). */
async function layoutCounts(url: string, api: ApiMetadata, plan: MigrationPlan): Promise<Record<string, number>> {
  const changes = await withStore(url, (store) => planStore(store, specsOf(api)));
  const out: Record<string, number> = {};
  for (const step of plan.steps.filter((s) => s.action === 'checks' || s.action === 'fills')) {
    const found = changes.find((c) =>
      `${c.resource}: ${c.subject}: ${c.detail}`.startsWith(`${step.resource}: ${step.change}`),
    );
    if (found) out[step.change] = found.affected;
  }
  return out;
}

/** Every item of each resource the new file's store reads back, by identifier. */
async function readBack(url: string, api: ApiMetadata, resources: string[]): Promise<Record<string, Item[]>> {
  return withStore(url, async (store) => {
    await refuseUnsafeChanges(store, specsOf(api));
    const collections = await openCollections(api, store);
    const out: Record<string, Item[]> = {};
    for (const resource of resources)
      out[resource] = await collections.get(resource)!.find({ sort: [{ field: 'id', direction: 'asc' }] });
    return out;
  });
}

describe('apidsl diff: the PostgreSQL migration plan on a real server', function () {
  this.timeout(120_000);
  let url: string | undefined;
  let sql: pg.Client | undefined;

  beforeEach(async function () {
    await postgresOrSkip(this);
    url = await freshPostgresUrl('diff');
    sql = new pg.Client({ connectionString: url });
    await sql.connect();
  });
  afterEach(async () => {
    await sql?.end();
    if (url) await dropPostgresDatabase(url);
    [url, sql] = [undefined, undefined];
  });

  it("relation-retargeted: without the plan, the new file's store refuses to start while rows hold keys of the old target", async () => {
    const pair = 'relation-retargeted';
    const [before, after] = [await loadApi(pairFile(pair, 'old.api')), await loadApi(pairFile(pair, 'new.api'))];
    // Product 2 and Shop 2 both exist: taken as a shop key, the review's key would silently name the shop.
    const products = [{ name: 'lamp' }, { name: 'desk' }];
    await storeRows(url!, before, {
      Product: products,
      Shop: products,
      Review: [{ body: 'a', product: '/products/2' }],
    });
    const refused = await readBack(url!, after, ['Review']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(LayoutConflictError);
    expect(String(refused)).to.include('Review.product: now a relation to Shop, but 1 stored rows hold keys');
    // Nothing changed: the old file's store reads the review as it was.
    expect(await readBack(url!, before, ['Review'])).to.deep.equal({
      Review: [{ id: 1, body: 'a', product: '/products/2' }],
    });
  });

  for (const c of PLAN_CASES) {
    it(`${c.pair}: counts exactly the rows in the way, then the new file's store starts and reads them back`, async () => {
      const [before, after] = [await loadApi(pairFile(c.pair, 'old.api')), await loadApi(pairFile(c.pair, 'new.api'))];
      await storeRows(url!, before, c.rows);
      const plan = (await migrationPlans(before, after)).find((p) => p.store === 'postgresql')!;
      const run = async (steps: MigrationPlan['steps']) => {
        for (const command of steps.flatMap((s) => s.commands)) await sql!.query(command);
      };
      await run(plan.steps.filter((s) => s.action === 'by-hand'));

      expect(await planCounts(sql!, plan)).to.deep.equal(c.counts);
      expect(await layoutCounts(url!, after, plan)).to.deep.equal(c.counts);

      for (const [resource, ids] of Object.entries(c.remove ?? {})) {
        const table = tableOf(after.resources.find((r) => r.shortName === resource)!.storage);
        await sql!.query(`DELETE FROM ${table.name} WHERE ${table.key.name} = ANY($1)`, [ids]);
      }
      await run(plan.steps.filter((s) => s.action !== 'by-hand'));
      if (c.upgrade) {
        const left = await withStore(url!, async (store) => (await store.schemaPlan?.(specsOf(after))) ?? []);
        expect(left.map((s) => s.replace(/\n\s*/g, ' '))).to.deep.equal(c.upgrade);
      }
      expect(await readBack(url!, after, Object.keys(c.after))).to.deep.equal(c.after);
    });
  }
});
