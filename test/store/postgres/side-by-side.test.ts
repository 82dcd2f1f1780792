/**
 * The pipeline's transactions on PostgreSQL run side by side (`Store.concurrentTransactions`), each on a connection
 * of its own, where SQLite's are queued one at a time (relations/referential-actions.ts, `deleteTransaction`): one
 * held by a slow or frozen server must hold no other past the bound (test/store/postgres/outage.test.ts).
 */
import { expect } from 'chai';
import { deleteTransaction } from '../../../server/pipeline/relations/referential-actions.js';
import { openPostgresStore } from '../../../server/store/postgres/store.js';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { Store } from '../../../server/store/types.js';
import { dropPostgresDatabase, freshPostgresUrl, postgresOrSkip } from '../../support/postgres.js';

/** Whether a second transaction starts while a first one is still open (waiting up to a second for it). */
async function overlaps(store: Store): Promise<boolean> {
  const transaction = deleteTransaction(store)!;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = transaction(() => held);
  let started = false;
  const second = transaction(async () => void (started = true));
  await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 1_000))]);
  const overlapped = started;
  release();
  await Promise.all([first, second]);
  return overlapped;
}

describe('Pipeline transactions: side by side on PostgreSQL, queued on SQLite', function () {
  this.timeout(60_000);

  it('on PostgreSQL a transaction starts while another is open', async function () {
    await postgresOrSkip(this);
    const url = await freshPostgresUrl('side');
    const store = await openPostgresStore({ url });
    try {
      expect(await overlaps(store)).to.equal(true);
    } finally {
      await store.close();
      await dropPostgresDatabase(url);
    }
  });

  it('on SQLite it waits for the open one to end', async () => {
    const store = await openSqliteStore({ memory: true });
    try {
      expect(await overlaps(store)).to.equal(false);
    } finally {
      await store.close();
    }
  });
});
