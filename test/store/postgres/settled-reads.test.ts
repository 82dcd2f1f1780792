/**
 * `Query.settled` on the PostgreSQL store: a read that waits for a delete in flight (another transaction holding the
 * row) rather than reading through it, the look a write takes at its related items once stored
 * (docs/behaviour.md, "Writes racing a delete"; test/http/reference-races.test.ts races it over HTTP).
 */
import { expect } from 'chai';
import pg from 'pg';
import { openPostgresStore } from '../../../server/store/postgres/store.js';
import type { Collection, CollectionSpec, Store } from '../../../server/store/types.js';
import { dropPostgresDatabase, freshPostgresUrl, postgresOrSkip } from '../../support/postgres.js';

const SHOP: CollectionSpec = {
  name: 'Shop',
  identifier: { field: 'slug', type: 'string' },
  fields: { slug: 'string', name: 'string' },
  indexes: [],
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL store: settled reads wait for a delete in flight', function () {
  this.timeout(60_000);
  let url: string;
  let store: Store;
  let shops: Collection;
  let other: pg.Client;

  beforeEach(async function () {
    await postgresOrSkip(this);
    url = await freshPostgresUrl('settled');
    store = await openPostgresStore({ url });
    shops = await store.collection(SHOP);
    await shops.insert({ slug: 'home', name: 'Home' });
    other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('BEGIN');
    await other.query(`DELETE FROM shop WHERE slug = 'home'`);
  });
  afterEach(async () => {
    await other?.end().catch(() => undefined);
    await store?.close();
    if (url) await dropPostgresDatabase(url);
  });

  const byKey = { where: [{ op: 'eq' as const, field: 'slug', value: 'home' }], limit: 1 };

  it('a plain read sees the item the uncommitted delete holds; a settled one waits and finds it gone', async () => {
    expect(await shops.find(byKey)).to.have.length(1);
    let settled: unknown[] | undefined;
    const reading = shops.find({ ...byKey, settled: true }).then((items) => (settled = items));
    await sleep(300);
    expect(settled, 'answered before the delete committed').to.equal(undefined);
    await other.query('COMMIT');
    expect(await reading).to.deep.equal([]);
  });

  it('a settled read finds the item again when the delete rolls back', async () => {
    const reading = shops.find({ ...byKey, settled: true });
    await sleep(100);
    await other.query('ROLLBACK');
    expect(await reading).to.deep.equal([{ slug: 'home', name: 'Home' }]);
  });
});
