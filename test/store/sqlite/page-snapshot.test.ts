/**
 * The SQLite store's `findPage`: a page and its total of one moment while another connection to the same file
 * (as another worker's) commits inserts and deletes; also while a stream of the same connection is open, and
 * inside a store transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { Collection, CollectionSpec, Query, Store } from '../../../server/store/types.js';

const NOTE: CollectionSpec = {
  name: 'Note',
  identifier: { field: 'id', type: 'int' },
  fields: { id: 'int', kind: 'string' },
  indexes: [],
  rendering: { version: 'v1', render: (item) => JSON.stringify(item) },
};
/** Commits the writer makes while the pages are read. */
const COMMITS = 300;

/**
 * In a worker thread, with its own connection: inserts a note and deletes the oldest it inserted, over and over,
 * telling how many commits it made so far, until told to stop.
 */
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { openSqliteStore } = await import(workerData.module);
  const store = await openSqliteStore({ file: workerData.file });
  const notes = await store.collection({ ...workerData.spec, rendering: { version: 'v1', render: (item) => JSON.stringify(item) } });
  let stop = false;
  parentPort.on('message', () => (stop = true));
  const own = [];
  for (let commits = 0; !stop; ) {
    own.push((await notes.insert({ kind: commits % 2 ? 'a' : 'b' })).id);
    commits++;
    if (own.length > 3) {
      await notes.delete(own.shift());
      commits++;
    }
    parentPort.postMessage(commits);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await store.close();
  parentPort.postMessage('closed');
})();
`;

describe('SQLite store: findPage', () => {
  let dir: string;
  let store: Store;
  let notes: Collection;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-page-'));
    store = await openSqliteStore({ file: join(dir, 'data.sqlite') });
    notes = await store.collection(NOTE);
    await notes.insertMany(Array.from({ length: 50 }, (_, i) => ({ kind: i % 2 ? 'a' : 'b' })));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a page and its total of one moment while another connection commits', async function () {
    this.timeout(120_000); // seconds of writes on a busy machine: no timing is asserted
    const writer = new Worker(WRITER, {
      eval: true,
      workerData: {
        module: new URL('../../../server/store/sqlite/store.js', import.meta.url).href,
        file: join(dir, 'data.sqlite'),
        spec: { ...NOTE, rendering: undefined },
      },
    });
    let commits = 0;
    let closed: () => void;
    const writerClosed = new Promise<void>((resolve) => (closed = resolve));
    writer.on('message', (m: number | string) => (m === 'closed' ? closed() : (commits = m as number)));
    const failed = new Promise<never>((_, reject) => writer.on('error', reject));
    const torn: string[] = [];
    const totals = new Set<number>();
    const whole: Query = { sort: [{ field: 'id', direction: 'asc' }], limit: 1000 };
    const kindA: Query = { ...whole, where: [{ op: 'eq', field: 'kind', value: 'a' }] };
    try {
      while (commits < COMMITS) {
        for (const [name, q, rendered] of [
          ['texts', whole, true],
          ['items', whole, false],
          ['filtered', kindA, false],
        ] as const) {
          const page = await notes.findPage(q, { rendered });
          const rows = page.texts ?? page.items;
          if (rendered) expect(page.texts, 'the stored texts').to.be.an('array');
          if (rows.length !== page.total) torn.push(`${name}: ${rows.length} rows, total ${page.total}`);
          totals.add(page.total);
        }
        await Promise.race([new Promise((resolve) => setImmediate(resolve)), failed]);
      }
    } finally {
      writer.postMessage('stop');
      await Promise.race([writerClosed, failed]);
      await writer.terminate();
    }
    expect(totals.size, 'the writes showed in the pages').to.be.greaterThan(1);
    expect(torn, `${torn.length} torn pages`).to.deep.equal([]);
  });

  it('reads while a stream of the same connection is open, and inside a store transaction', async () => {
    const q: Query = { sort: [{ field: 'id', direction: 'asc' }], limit: 3, offset: 48 };
    const expected = { items: await notes.find(q), total: 50 };
    for await (const note of notes.stream({})) {
      expect(note.id).to.equal(1);
      expect(await notes.findPage(q)).to.deep.equal(expected);
      break;
    }
    await store.transaction!(async () => {
      await notes.insert({ kind: 'c' });
      const page = await notes.findPage(q);
      expect(page.total).to.equal(51);
      expect(page.items!.map((n) => n.id)).to.deep.equal([49, 50, 51]);
    });
    expect((await notes.findPage(q)).total).to.equal(51);
  });
});
