/**
 * The SQLite store's rendered texts (CollectionSpec.rendering, Collection.findRendered): made on every
 * write from the item as stored, in `find` order, made again when the rendering's version changes, cleared
 * when a collection has no rendering, and never served when a row lacks its text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { Collection, CollectionSpec, Item, Query, Rendering, Store } from '../../../server/store/types.js';
import { BOOK } from '../../support/store-contract.js';

/** A rendering whose text shows the version and the whole stored item (key order included). */
const rendering = (version: string): Rendering => ({
  version,
  render: (item: Item) => `${version}:${JSON.stringify(item)}`,
});
const withRendering = (spec: CollectionSpec, version = 'v1'): CollectionSpec => ({
  ...spec,
  rendering: rendering(version),
});

/** What findRendered must equal: find's items, rendered with `version`. */
async function expected(books: Collection, q: Query, version = 'v1'): Promise<string[]> {
  return (await books.find(q)).map(rendering(version).render);
}

describe('SQLite store: rendered texts', () => {
  let store: Store;
  let books: Collection;
  beforeEach(async () => {
    store = await openSqliteStore({ memory: true });
    books = await store.collection(withRendering(BOOK));
  });
  afterEach(() => store.close());

  it('follows every write: inserts with and without an id, replace, upsert, delete', async () => {
    await books.insert({ title: 'auto', price: 2 });
    await books.insert({ id: 10, title: 'given', price: 1, tags: ['x'] });
    await books.insert({ title: 'after', price: 3 });
    await books.replace(1, { title: 'auto, replaced', price: 5, available: true });
    await books.upsert(20, { title: 'upserted' });
    await books.upsert(10, { title: 'given, upserted', meta: { a: [1, null] } });
    await books.delete(11);
    const all = await books.findRendered!({ sort: [{ field: 'id', direction: 'asc' }] });
    expect(all).to.deep.equal(await expected(books, { sort: [{ field: 'id', direction: 'asc' }] }));
    expect(all).to.deep.equal([
      'v1:{"title":"auto, replaced","price":5,"available":true,"id":1}',
      'v1:{"title":"given, upserted","meta":{"a":[1,null]},"id":10}',
      'v1:{"title":"upserted","id":20}',
    ]);
  });

  it('answers in find order with conditions, sort, limit and offset', async () => {
    for (let i = 1; i <= 25; i++) await books.insert({ title: `t${i % 4}`, price: i % 7 });
    const queries: Query[] = [
      {
        sort: [
          { field: 'price', direction: 'desc' },
          { field: 'id', direction: 'asc' },
        ],
        limit: 10,
        offset: 5,
      },
      {
        where: [{ op: 'gte', field: 'price', value: 3 }],
        sort: [
          { field: 'title', direction: 'asc' },
          { field: 'id', direction: 'desc' },
        ],
      },
      { where: [{ op: 'eq', field: 'title', value: 'none' }], limit: 5 },
      {
        sort: [
          { field: 'price', direction: 'asc' },
          { field: 'id', direction: 'asc' },
        ],
        after: { values: [3, 10] },
        limit: 4,
      },
    ];
    for (const q of queries)
      expect(await books.findRendered!(q), JSON.stringify(q)).to.deep.equal(await expected(books, q));
  });

  it('has no texts to give for a collection without a rendering', async () => {
    const plain = await store.collection({ ...BOOK, name: 'Plain' });
    await plain.insert({ title: 'x' });
    expect(await plain.findRendered!({})).to.equal(undefined);
  });

  it('gives no texts when a row lacks its own (written by an older version), so the caller reads items', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apidsl-rendered-')), 'data.sqlite');
    try {
      const fileStore = await openSqliteStore({ file });
      const fileBooks = await fileStore.collection(withRendering(BOOK));
      await fileBooks.insert({ title: 'a' });
      await fileBooks.insert({ title: 'b' });
      const db = new Database(file);
      db.prepare(`UPDATE "Book" SET "rendered" = NULL WHERE "key" = 2`).run();
      db.close();
      expect(await fileBooks.findRendered!({ limit: 1 })).to.deep.equal(['v1:{"title":"a","id":1}']);
      expect(await fileBooks.findRendered!({})).to.equal(undefined);
      await fileStore.close();
    } finally {
      rmSync(join(file, '..'), { recursive: true, force: true });
    }
  });
});

describe('SQLite store: rendered texts across reopening a file', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-rendered-'));
    file = join(dir, 'data.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function reopen(spec: CollectionSpec, use: (books: Collection) => Promise<void>): Promise<void> {
    const store = await openSqliteStore({ file });
    try {
      await use(await store.collection(spec));
    } finally {
      await store.close();
    }
  }

  it('renders every stored item again when the version changes, and after a time without a rendering', async function () {
    await reopen(withRendering(BOOK, 'v1'), async (books) => {
      for (let i = 1; i <= 2500; i++) await books.insert({ title: `b${i}` }); // more than one batch
    });
    await reopen(withRendering(BOOK, 'v2'), async (books) => {
      const texts = await books.findRendered!({});
      expect(texts).to.have.length(2500);
      expect(texts).to.deep.equal(await expected(books, {}, 'v2'));
    });
    await reopen(BOOK, async (books) => {
      expect(await books.findRendered!({})).to.equal(undefined);
      await books.insert({ title: 'while not rendered' });
      await books.replace(1, { title: 'b1, replaced while not rendered' });
    });
    // The same version as before the time without a rendering: the texts are made again all the same.
    await reopen(withRendering(BOOK, 'v2'), async (books) => {
      const texts = await books.findRendered!({});
      expect(texts).to.have.length(2501);
      expect(texts).to.deep.equal(await expected(books, {}, 'v2'));
      expect(texts![0]).to.equal('v2:{"title":"b1, replaced while not rendered","id":1}');
    });
  });

  it('upgrades a table from before the rendered column', async () => {
    const db = new Database(file);
    db.exec(`CREATE TABLE "Book" ("key" INTEGER PRIMARY KEY, "doc" TEXT NOT NULL)`);
    db.prepare(`INSERT INTO "Book" VALUES (1, ?)`).run(JSON.stringify({ title: 'old' }));
    db.close();
    await reopen(withRendering(BOOK), async (books) => {
      expect(await books.findRendered!({})).to.deep.equal(['v1:{"title":"old","id":1}']);
      expect(await books.count()).to.equal(1);
    });
  });
});
