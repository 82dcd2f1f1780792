/**
 * The MongoDB store's `findPage` while another client commits inserts and deletes: what docs/behaviour.md
 * ("MongoDB") promises of a page and its total. Where the deployment has snapshot reads (a replica set of MongoDB
 * 5.0 or later) they are of one moment; elsewhere (standalone, FerretDB, which accepts snapshot sessions and
 * ignores them) they are two reads, and the members and the total differ by at most the writes committed while
 * the page was read.
 */
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../../server/store/mongodb/store.js';
import type { Collection, CollectionSpec, Query, Store } from '../../../server/store/types.js';
import { freshDatabaseName, mongoOrSkip, withDatabase } from '../../support/mongodb.js';

const NOTE: CollectionSpec = {
  name: 'Note',
  identifier: { field: 'id', type: 'int' },
  fields: { id: 'int', kind: 'string' },
  indexes: [],
};
/** Commits the writer makes while the pages are read. */
const COMMITS = 200;

/** Whether the server gives snapshot reads: a replica set (or sharded cluster) of MongoDB 5.0 or later. */
async function hasSnapshotReads(uri: string): Promise<boolean> {
  const client = new MongoClient(uri);
  try {
    const hello = await client.db('admin').command({ hello: 1 });
    const build = await client.db('admin').command({ buildInfo: 1 });
    const replicated = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
    const major = Array.isArray(build.versionArray) ? Number(build.versionArray[0]) : 0;
    return replicated && typeof build.ferretdbVersion !== 'string' && major >= 5;
  } finally {
    await client.close();
  }
}

describe('MongoDB store: findPage under concurrent writes', function () {
  this.timeout(120_000); // a few hundred writes on a busy machine: no timing is asserted
  let uri: string;
  let reader: Store;
  let writer: Store;
  let notes: Collection;
  beforeEach(async function () {
    uri = withDatabase((await mongoOrSkip(this)).uri, freshDatabaseName('p'));
    reader = await openMongoStore({ uri });
    writer = await openMongoStore({ uri });
    notes = await reader.collection(NOTE);
    await notes.insertMany(Array.from({ length: 50 }, (_, i) => ({ kind: i % 2 ? 'a' : 'b' })));
  });
  afterEach(async () => {
    await reader?.close();
    await writer?.close();
  });

  it('reads members and a total that differ by at most the writes committed meanwhile (none with snapshots)', async () => {
    const snapshots = await hasSnapshotReads(uri);
    const own = await writer.collection(NOTE);
    // Writes started and writes finished so far: a write may commit during a read if it started before the read
    // ended and had not finished when the read began.
    let started = 0;
    let finished = 0;
    let stop = false;
    const writing = (async () => {
      const mine: number[] = [];
      while (!stop) {
        started++;
        mine.push((await own.insert({ kind: started % 2 ? 'a' : 'b' })).id as number);
        finished++;
        if (mine.length > 3) {
          started++;
          await own.delete(mine.shift()!);
          finished++;
        }
      }
    })();
    const whole: Query = { sort: [{ field: 'id', direction: 'asc' }], limit: 1000 };
    const kindA: Query = { ...whole, where: [{ op: 'eq', field: 'kind', value: 'a' }] };
    const beyond: string[] = [];
    const totals = new Set<number>();
    try {
      while (finished < COMMITS) {
        for (const q of [whole, kindA]) {
          const before = finished;
          const page = await notes.findPage(q);
          const meanwhile = snapshots ? 0 : started - before;
          const apart = Math.abs(page.items!.length - page.total);
          if (apart > meanwhile) beyond.push(`${page.items!.length} members, total ${page.total}, ${meanwhile} writes`);
          const ids = page.items!.map((n) => n.id as number);
          expect(ids, 'members in order, each once').to.deep.equal([...new Set(ids)].sort((x, y) => x - y));
          totals.add(page.total);
        }
      }
    } finally {
      stop = true;
      await writing;
    }
    expect(totals.size, 'the writes showed in the pages').to.be.greaterThan(1);
    expect(beyond, `${beyond.length} pages beyond the bound`).to.deep.equal([]);
  });
});
