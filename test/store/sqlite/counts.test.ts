/**
 * The SQLite store's unfiltered counts: a counts table kept by triggers, exact across every write, read
 * by one primary-key lookup, trusted when reopened, rebuilt when missing or tampered with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import { compileTotal } from '../../../server/store/sqlite/query.js';
import { StoreConflictError } from '../../../server/store/types.js';
import type { Collection, CollectionSpec, Condition, Store } from '../../../server/store/types.js';
import { rejection } from '../../support/store-contract.js';

const BOOK: CollectionSpec = {
  name: 'Book',
  identifier: { field: 'id', type: 'int' },
  fields: { title: 'string', price: 'number' },
  indexes: [['price']],
};

/** A condition that matches everything, so count() takes the COUNT(*) path: the reference. */
const EVERYTHING: Condition = { op: 'and', conditions: [] };

async function expectCount(collection: Collection, n: number): Promise<void> {
  expect(await collection.count(), 'count()').to.equal(n);
  expect(await collection.count([]), 'count([])').to.equal(n);
  expect(await collection.count([EVERYTHING]), 'COUNT(*)').to.equal(n);
}

describe('SQLite store: unfiltered counts', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openSqliteStore({ memory: true });
  });
  afterEach(async () => {
    await store.close();
  });

  it('stays exact across insert, conflict, upsert (created and replaced), replace and delete', async () => {
    const books = await store.collection(BOOK);
    await expectCount(books, 0);
    await books.insert({ title: 'a' });
    await books.insert({ id: 10, title: 'b' });
    await expectCount(books, 2);
    expect(await rejection(books.insert({ id: 10, title: 'dup' }))).to.be.instanceOf(StoreConflictError);
    await expectCount(books, 2);
    expect((await books.upsert(20, { title: 'c' })).created).to.equal(true);
    await expectCount(books, 3);
    expect((await books.upsert(20, { title: 'd' })).created).to.equal(false);
    await expectCount(books, 3);
    expect(await books.replace(1, { title: 'e' })).not.to.equal(null);
    expect(await books.replace(99, { title: 'none' })).to.equal(null);
    await expectCount(books, 3);
    expect(await books.delete(10)).to.equal(true);
    expect(await books.delete(10)).to.equal(false);
    await expectCount(books, 2);
    await books.delete(1);
    await books.delete(20);
    await expectCount(books, 0);
    await books.insert({});
    await expectCount(books, 1);
  });

  it('keeps one count per collection, for string and internal keys too', async () => {
    const books = await store.collection(BOOK);
    const tags = await store.collection({
      name: 'Tag',
      identifier: { field: 'id', type: 'string' },
      fields: { label: 'string' },
      indexes: [],
    });
    const logs = await store.collection({ name: 'Log', fields: { line: 'string' }, indexes: [] });
    for (let i = 0; i < 5; i++) await tags.insert({ label: `t${i}` });
    for (let i = 0; i < 3; i++) await logs.insert({ line: `l${i}` });
    await books.insert({});
    await tags.delete((await tags.find({ limit: 1 }))[0]!.id as string);
    await expectCount(books, 1);
    await expectCount(tags, 4);
    await expectCount(logs, 3);
  });

  it('counts with conditions by scanning, as before', async () => {
    const books = await store.collection(BOOK);
    for (const price of [1, 2, 3, 4]) await books.insert({ price });
    expect(await books.count([{ op: 'gt', field: 'price', value: 2 }])).to.equal(2);
  });

  it('is idempotent: getting the collection again keeps the count', async () => {
    let books = await store.collection(BOOK);
    await books.insert({});
    await books.insert({});
    books = await store.collection(BOOK);
    await expectCount(books, 2);
  });

  it('reserves the _apidsl_ prefix for resource names', async () => {
    expect(await rejection(store.collection({ name: '_apidsl_counts', fields: {}, indexes: [] }))).to.be.instanceOf(
      TypeError,
    );
  });
});

describe('SQLite file store: unfiltered counts', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-counts-'));
    file = join(dir, 'data.sqlite');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `f` on a second connection to the file, as another process would. */
  function raw<T>(f: (db: Database.Database) => T): T {
    const db = new Database(file);
    try {
      return f(db);
    } finally {
      db.close();
    }
  }

  it('reads the counts table, not the resource table: a hand-set count is what count() answers', async () => {
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      for (let i = 0; i < 3; i++) await books.insert({});
      raw((db) => db.prepare(`UPDATE "_apidsl_counts" SET "n" = 12345 WHERE "collection" = 'Book'`).run());
      expect(await books.count()).to.equal(12345);
      expect(await books.count([EVERYTHING])).to.equal(3);
      await books.insert({});
      expect(await books.count()).to.equal(12346); // the trigger adds to whatever is stored
    } finally {
      await store.close();
    }
  });

  it('plans the unfiltered count as one primary-key lookup in the counts table', async () => {
    const store = await openSqliteStore({ file });
    await store.collection(BOOK);
    await store.close();
    const { sql, params } = compileTotal(BOOK);
    const plan = raw((db) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n'),
    );
    expect(plan).to.match(/^SEARCH _apidsl_counts USING PRIMARY KEY \(collection=\?\)$/);
    expect(plan).not.to.contain('Book');
    expect(plan).not.to.contain('SCAN');
  });

  it('does not recount when reopened: the stored count is trusted', async () => {
    let store = await openSqliteStore({ file });
    const books = await store.collection(BOOK);
    await books.insert({});
    await store.close();
    raw((db) => db.prepare(`UPDATE "_apidsl_counts" SET "n" = 7`).run());
    store = await openSqliteStore({ file });
    try {
      expect(await (await store.collection(BOOK)).count()).to.equal(7);
    } finally {
      await store.close();
    }
  });

  it('upgrades a data file from before the counts table: counted once at open, then kept', async () => {
    raw((db) => {
      db.exec('CREATE TABLE "Book" ("key" INTEGER PRIMARY KEY, "doc" TEXT NOT NULL)');
      const insert = db.prepare(`INSERT INTO "Book" ("doc") VALUES ('{}')`);
      for (let i = 0; i < 42; i++) insert.run();
    });
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      await expectCount(books, 42);
      await books.insert({});
      await books.delete(1);
      await books.delete(2);
      await expectCount(books, 41);
    } finally {
      await store.close();
    }
    expect(raw((db) => db.prepare(`SELECT "n" FROM "_apidsl_counts" WHERE "collection" = 'Book'`).get())).to.deep.equal(
      { n: 41 },
    );
  });

  it('recounts when the count row or a trigger was removed by hand', async () => {
    let store = await openSqliteStore({ file });
    const books = await store.collection(BOOK);
    for (let i = 0; i < 5; i++) await books.insert({});
    await store.close();

    raw((db) => db.exec(`DELETE FROM "_apidsl_counts"`));
    store = await openSqliteStore({ file });
    await expectCount(await store.collection(BOOK), 5);
    await store.close();

    raw((db) => {
      db.exec(`DROP TRIGGER "Book:count:delete"`);
      db.exec(`DELETE FROM "Book" WHERE "key" = 1`); // not counted: no trigger
    });
    store = await openSqliteStore({ file });
    try {
      const reopened = await store.collection(BOOK);
      await expectCount(reopened, 4);
      await reopened.delete(2); // the trigger is back
      await expectCount(reopened, 3);
    } finally {
      await store.close();
    }
  });

  it('counts writes made by another connection: the triggers live in the file', async () => {
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      await books.insert({});
      const other = await openSqliteStore({ file });
      try {
        const theirs = await other.collection(BOOK);
        await theirs.insert({});
        await theirs.insert({});
        await theirs.delete(1);
      } finally {
        await other.close();
      }
      raw((db) => db.exec(`INSERT INTO "Book" ("doc") VALUES ('{}')`));
      await expectCount(books, 3);
    } finally {
      await store.close();
    }
  });

  it('rolls the count back with a failed transaction', async () => {
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      await books.insert({});
      raw((db) => {
        expect(() =>
          db.transaction(() => {
            db.exec(`INSERT INTO "Book" ("doc") VALUES ('{}')`);
            db.exec(`DELETE FROM "Book"`);
            throw new Error('abort');
          })(),
        ).to.throw('abort');
      });
      await expectCount(books, 1);
    } finally {
      await store.close();
    }
  });
});
