/**
 * What is the SQLite store's own (file persistence, WAL, query plans); the behaviour every store shares is
 * test/store/contract.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import { compileFind } from '../../../server/store/sqlite/query.js';
import {
  StoreConflictError,
  UniqueConflictError,
  type CollectionSpec,
  type Condition,
  type Query,
} from '../../../server/store/types.js';
import { BOOK } from '../../support/store-contract.js';

describe('SQLite file store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-store-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('persists across close and reopen, in WAL mode', async () => {
    const file = join(dir, 'data.sqlite');
    let store = await openSqliteStore({ file });
    let books = await store.collection(BOOK);
    await books.insert({ title: 'kept', price: 3, tags: ['a'], meta: { deep: [1, { x: null }] } });
    await books.insert({ id: 5, title: 'five' });
    await store.close();

    store = await openSqliteStore({ file });
    books = await store.collection(BOOK);
    expect(await books.get(1)).to.deep.equal({
      id: 1,
      title: 'kept',
      price: 3,
      tags: ['a'],
      meta: { deep: [1, { x: null }] },
    });
    expect((await books.insert({ title: 'six' })).id).to.equal(6);
    expect(await books.count()).to.equal(3);
    await store.close();

    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
    } finally {
      db.close();
    }
  });

  it('keeps the sequence across a restart: the deleted largest key is not handed out again', async () => {
    const file = join(dir, 'data.sqlite');
    let store = await openSqliteStore({ file });
    let books = await store.collection(BOOK);
    for (const title of ['a', 'b', 'c']) await books.insert({ title });
    await books.delete(3);
    await books.delete(2);
    await store.close();
    store = await openSqliteStore({ file });
    books = await store.collection(BOOK);
    expect((await books.insert({ title: 'd' })).id).to.equal(4);
    await store.close();
  });

  it('shares the sequence between two connections on one file (workers): no key handed out twice', async () => {
    const file = join(dir, 'data.sqlite');
    const [a, b] = [await openSqliteStore({ file }), await openSqliteStore({ file })];
    try {
      const [booksA, booksB] = [await a.collection(BOOK), await b.collection(BOOK)];
      const ids: unknown[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await booksA.insert({ title: `a${i}` })).id, (await booksB.insert({ title: `b${i}` })).id);
        await booksB.delete(ids.at(-1) as number); // the largest key, deleted from the other connection
      }
      ids.push(...(await booksB.insertMany([{ title: 'x' }, { title: 'y' }])).map((book) => book.id));
      expect(ids).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('seeds the sequence of a table written before sequences existed from its largest key', async () => {
    const file = join(dir, 'data.sqlite');
    // What an earlier apidsl left: the items table alone, keys assigned by SQLite (max + 1).
    const db = new Database(file);
    db.exec('CREATE TABLE "Book" ("key" INTEGER PRIMARY KEY, "doc" TEXT NOT NULL)');
    db.prepare('INSERT INTO "Book" ("key", "doc") VALUES (?, ?)').run(1, '{"title":"a"}');
    db.prepare('INSERT INTO "Book" ("key", "doc") VALUES (?, ?)').run(7, '{"title":"b"}');
    db.close();
    const store = await openSqliteStore({ file });
    try {
      const books = await store.collection(BOOK);
      expect(await books.get(7)).to.deep.equal({ id: 7, title: 'b' });
      expect((await books.insert({ title: 'c' })).id).to.equal(8);
      await books.delete(8);
      expect((await books.insert({ title: 'd' })).id).to.equal(9);
    } finally {
      await store.close();
    }
  });

  describe('query plans', () => {
    // The plan is read on a second connection to the same file, for the SQL the store would run.
    async function plan(spec: CollectionSpec, query: Query): Promise<string> {
      const file = join(dir, `${spec.name}.sqlite`);
      const store = await openSqliteStore({ file });
      const collection = await store.collection(spec);
      for (let i = 0; i < 50; i++)
        await collection.insert({ price: i % 5, createdAt: `2024-01-0${1 + (i % 4)}T00:00:00.000Z` });
      await store.close();
      const db = new Database(file, { readonly: true });
      try {
        const { sql, params } = compileFind(spec, query);
        return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map((r) => r.detail)
          .join('\n');
      } finally {
        db.close();
      }
    }
    const spec = (identifier: 'int' | 'string'): CollectionSpec => ({
      name: `Plan_${identifier}`,
      identifier: { field: 'id', type: identifier },
      fields: { price: 'int', createdAt: 'datetime' },
      indexes: [['price'], ['createdAt', 'id']],
    });

    it('seeks the index for a keyset page, without sorting', async () => {
      const detail = await plan(spec('int'), {
        sort: [
          { field: 'price', direction: 'asc' },
          { field: 'id', direction: 'asc' },
        ],
        after: { values: [2, 17] },
        limit: 10,
      });
      expect(detail).to.match(/SEARCH .*USING INDEX "?Plan_int\(price\)"?/);
      expect(detail).not.to.contain('TEMP B-TREE');
    });

    it('reads a compound index backwards for a descending cursor', async () => {
      const detail = await plan(spec('int'), {
        sort: [
          { field: 'createdAt', direction: 'desc' },
          { field: 'id', direction: 'desc' },
        ],
        after: { values: ['2024-01-03T00:00:00.000Z', 17] },
        limit: 10,
      });
      expect(detail).to.match(/USING INDEX "?Plan_int\(createdAt,id\)"?/);
      expect(detail).not.to.contain('TEMP B-TREE');
    });

    it('uses a single-field index for a sort made total by a string identifier', async () => {
      const detail = await plan(spec('string'), {
        sort: [
          { field: 'price', direction: 'asc' },
          { field: 'id', direction: 'asc' },
        ],
        after: { values: [2, '0190'] },
        limit: 10,
      });
      expect(detail).to.match(/SEARCH .*USING INDEX "?Plan_string\(price\)"?/);
      expect(detail).not.to.contain('TEMP B-TREE');
    });

    it('finds the items whose array holds a value through the element table, and seeds it for items stored before', async () => {
      const before: CollectionSpec = {
        name: 'Shelf',
        identifier: { field: 'id', type: 'int' },
        fields: { books: 'array' },
        indexes: [],
      };
      const indexed: CollectionSpec = { ...before, indexes: [['books']] };
      const file = join(dir, 'shelves.sqlite');
      let store = await openSqliteStore({ file });
      const shelves = await store.collection(before);
      for (let i = 1; i <= 50; i++) await shelves.insert({ books: [`/books/${i}`, `/books/${i + 1}`] });
      await store.close();
      store = await openSqliteStore({ file }); // a later start declares the relation index
      const seeded = await store.collection(indexed);
      const holding = async (iri: string): Promise<unknown[]> =>
        (await seeded.find({ where: [{ op: 'eq', field: 'books', value: iri }] })).map((s) => s.id);
      expect(await holding('/books/7')).to.deep.equal([6, 7]);
      await store.close();
      const db = new Database(file, { readonly: true });
      try {
        const { sql, params } = compileFind(indexed, {
          where: [{ op: 'eq', field: 'books', value: '/books/7' }],
        });
        const detail = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map((r) => r.detail)
          .join('\n');
        expect(detail).to.match(/SEARCH .*_apidsl_elements:Shelf\.books.*(PRIMARY KEY|INDEX)/);
        expect(detail).not.to.match(/SCAN .*_apidsl_elements/);
      } finally {
        db.close();
      }
      store = await openSqliteStore({ file }); // and a start without it drops the table and its triggers
      await (await store.collection(before)).insert({ books: ['/books/1'] });
      await store.close();
      const after = new Database(file, { readonly: true });
      try {
        expect(after.prepare(`SELECT name FROM sqlite_schema WHERE name LIKE '%elements%'`).all()).to.deep.equal([]);
      } finally {
        after.close();
      }
    });

    it('reads a page scoped through a relation along the key through the index on the key and the relation', async () => {
      const file = join(dir, 'relation.sqlite');
      const shop: CollectionSpec = {
        name: 'Shop',
        identifier: { field: 'id', type: 'int' },
        fields: { owner: 'string' },
        indexes: [['owner']],
      };
      const note: CollectionSpec = {
        name: 'Note',
        identifier: { field: 'id', type: 'int' },
        fields: { shop: 'iri' },
        indexes: [['shop'], ['id', 'shop']],
      };
      const store = await openSqliteStore({ file });
      const ran: string[] = [];
      const prepare = Database.prototype.prepare;
      try {
        await (await store.collection(shop)).insertMany([{ owner: 'ann' }, { owner: 'bob' }]);
        const notes = await store.collection(note);
        await notes.insertMany(Array.from({ length: 200 }, (_, i) => ({ shop: `/shops/${(i % 2) + 1}` })));
        // Ann's shop holds half the notes: the first pages are read along the key order (collection.ts, pagePlan).
        const where: Condition[] = [
          {
            op: 'refers',
            field: 'shop',
            target: shop,
            keyPrefix: '/shops/',
            where: [{ op: 'eq', field: 'owner', value: 'ann' }],
          },
        ];
        Database.prototype.prepare = function (this: Database.Database, sql: string) {
          ran.push(sql);
          return prepare.call(this, sql);
        } as typeof prepare;
        const page = await notes.findPage({ where, sort: [{ field: 'id', direction: 'asc' }], limit: 5, offset: 5 });
        expect(page.items?.map((n) => n.id)).to.deep.equal([11, 13, 15, 17, 19]);
        expect(page.total).to.equal(100);
      } finally {
        Database.prototype.prepare = prepare;
        await store.close();
      }
      const read = ran.find((sql) => sql.startsWith('SELECT "key", "doc" FROM "Note"'));
      expect(read).to.contain('INDEXED BY "Note(id,shop)"');
      const db = new Database(file, { readonly: true });
      try {
        const detail = (db.prepare(`EXPLAIN QUERY PLAN ${read!}`).all('/shops/', 'ann', 5, 5) as { detail: string }[])
          .map((r) => r.detail)
          .join('\n');
        expect(detail).to.match(/SCAN Note USING INDEX "?Note\(id,shop\)"?/);
        expect(detail).not.to.contain('TEMP B-TREE');
      } finally {
        db.close();
      }
    });
  });
});

describe('SQLite store transactions', () => {
  it('keeps every write of a transaction that succeeds, and none of one that throws', async () => {
    const store = await openSqliteStore({ memory: true });
    try {
      const books = await store.collection(BOOK);
      await store.transaction!(async () => {
        await books.insert({ title: 'a' });
        await books.insert({ title: 'b' });
      });
      const failed = store.transaction!(async () => {
        await books.insert({ title: 'c' });
        await books.insert({ id: 1, title: 'taken' });
      });
      await failed.then(
        () => expect.fail('the transaction should have failed'),
        (e: Error) => expect(e.name).to.equal('StoreConflictError'),
      );
      expect((await books.find({})).map((b) => b.title)).to.deep.equal(['a', 'b']);
      expect(await books.count()).to.equal(2);
    } finally {
      await store.close();
    }
  });

  it('goes on past an insert it refused: nothing of that insert stays, its key raises no sequence', async () => {
    // An import's batch: rows with their own keys, one refused, in one transaction (no savepoint per row).
    const store = await openSqliteStore({ memory: true });
    try {
      const books = await store.collection({ ...BOOK, unique: [['title']] });
      const refused = (insert: Promise<unknown>, kind: new (...args: never[]) => Error): Promise<void> =>
        insert.then(
          () => expect.fail(`the insert should have been refused (${kind.name})`),
          (e: Error) => {
            expect(e).to.be.instanceOf(kind);
          },
        );
      await store.transaction!(async () => {
        await books.insert({ id: 5, title: 'five' });
        await refused(books.insert({ id: 5, title: 'again' }), StoreConflictError);
        await refused(books.insert({ id: 9, title: 'five' }), UniqueConflictError);
        await books.insert({ title: 'next' });
      });
      expect((await books.find({})).map((b) => [b.id, b.title])).to.deep.equal([
        [5, 'five'],
        [6, 'next'],
      ]);
      expect(await books.count()).to.equal(2);
    } finally {
      await store.close();
    }
  });
});
