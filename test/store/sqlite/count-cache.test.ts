/**
 * The SQLite store's filtered counts, kept until the database changes (server/store/sqlite/count-cache.ts): a
 * count asked again answers what the data holds after every write of the same connection, after another
 * connection's commit (another process on the file), after a schema change, and never what a rolled-back
 * transaction held. Each test asks a count first, so that a cache that missed the change would answer it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { CollectionSpec, Condition } from '../../../server/store/types.js';
import { rejection } from '../../support/store-contract.js';

const BOOK: CollectionSpec = {
  name: 'Book',
  identifier: { field: 'id', type: 'int' },
  fields: { title: 'string', price: 'number' },
  indexes: [['price']],
};

const CHEAP: Condition[] = [{ op: 'lt', field: 'price', value: 10 }];

describe('SQLite store: filtered counts kept until the data changes', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-count-cache-'));
    file = join(dir, 'data.sqlite');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("follows the connection's own inserts, replaces, deletes and clears", async () => {
    const store = await openSqliteStore({ memory: true });
    try {
      const books = await store.collection(BOOK);
      await books.insertMany([{ price: 1 }, { price: 2 }, { price: 30 }]);
      expect(await books.count(CHEAP)).to.equal(2);
      await books.insert({ price: 3 });
      expect(await books.count(CHEAP)).to.equal(3);
      await books.replace(3, { price: 4 });
      expect(await books.count(CHEAP)).to.equal(4);
      expect((await books.findPage({ where: CHEAP, limit: 1 })).total).to.equal(4);
      await books.delete(1);
      expect(await books.count(CHEAP)).to.equal(3);
      await books.clear();
      expect(await books.count(CHEAP)).to.equal(0);
    } finally {
      await store.close();
    }
  });

  it("follows another connection's commits, also made inside the store's page reads", async () => {
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      await books.insertMany([{ price: 1 }, { price: 30 }]);
      expect(await books.count(CHEAP)).to.equal(1);
      expect((await books.findPage({ where: CHEAP, limit: 1 })).total).to.equal(1);
      const other = new Database(file);
      try {
        other.exec(`UPDATE "Book" SET "doc" = json_set("doc", '$.price', 2) WHERE "key" = 2`);
        expect(await books.count(CHEAP)).to.equal(2);
        other.exec(`DELETE FROM "Book" WHERE "key" = 1`);
        expect((await books.findPage({ where: CHEAP, limit: 1 })).total).to.equal(1);
      } finally {
        other.close();
      }
    } finally {
      await store.close();
    }
  });

  it('keeps no count read inside a transaction that is rolled back', async () => {
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      await books.insert({ price: 1 });
      expect(await books.count(CHEAP)).to.equal(1);
      const failed = store.transaction!(async () => {
        await books.insert({ price: 2 });
        expect(await books.count(CHEAP)).to.equal(2);
        throw new Error('abort');
      });
      expect(await rejection(failed)).to.have.property('message', 'abort');
      expect(await books.count(CHEAP)).to.equal(1);
    } finally {
      await store.close();
    }
  });
});
