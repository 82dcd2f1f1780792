/**
 * The MongoDB store against a real MongoDB-wire server (test/support/mongodb.ts finds or starts one): what is
 * MongoDB's own (sequences, counts document, indexes, documents MongoDB cannot hold as they are, query plans,
 * failures); the behaviour every store shares is test/store/contract.test.ts.
 */
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { openMongoStore, COUNTS, SEQUENCES } from '../../../server/store/mongodb/store.js';
import { compileFind, indexSpecs } from '../../../server/store/mongodb/query.js';
import { StoreUnavailableError } from '../../../server/store/types.js';
import type { CollectionSpec, Query, Store } from '../../../server/store/types.js';
import { runCli } from '../../support/cli.js';
import { freePort, freshDatabaseName, mongoOrSkip, withDatabase, type TestMongo } from '../../support/mongodb.js';
import { fromRoot } from '../../support/paths.js';
import { BOOK, rejection } from '../../support/store-contract.js';

let server: TestMongo;
/** Opens a store on a new database of the test server. */
async function openFresh(): Promise<{ store: Store; uri: string }> {
  const uri = withDatabase(server.uri, freshDatabaseName('s'));
  return { store: await openMongoStore({ uri }), uri };
}

/** Whether the server runs multi-document transactions (a replica set or a sharded cluster). */
async function hasTransactions(client: MongoClient): Promise<boolean> {
  const hello = await client.db('admin').command({ hello: 1 });
  return typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
}

describe('MongoDB store', function () {
  this.timeout(60_000);
  before(async function () {
    server = await mongoOrSkip(this);
  });

  describe('MongoDB specifics', () => {
    let store: Store;
    let uri: string;
    let client: MongoClient;
    beforeEach(async () => {
      ({ store, uri } = await openFresh());
      client = new MongoClient(uri);
    });
    afterEach(async () => {
      await store.close();
      await client.close();
    });

    it('stores the identifier in _id and answers plain JSON items: no _id, numbers as numbers', async () => {
      const books = await store.collection(BOOK);
      await books.insert({ title: 'x', price: 2.5, meta: { n: 3, big: 2 ** 40, list: [1, 'a', null] } });
      const raw = await client.db().collection('Book').findOne({});
      expect(raw).to.deep.include({ _id: 1, title: 'x', price: 2.5 });
      expect(raw).to.not.have.property('id');
      const item = await books.get(1);
      expect(item).to.deep.equal({ id: 1, title: 'x', price: 2.5, meta: { n: 3, big: 2 ** 40, list: [1, 'a', null] } });
      expect(JSON.stringify(item)).to.not.contain('_id');
    });

    it('keeps JSON MongoDB cannot hold as it is, and fields named like its own', async () => {
      const spec: CollectionSpec = {
        name: 'Odd',
        identifier: { field: 'id', type: 'string' },
        fields: { _id: 'string', __x: 'int', _j: 'string', meta: 'json', list: 'array' },
        indexes: [['_id']],
      };
      const odd = await store.collection(spec);
      const item = {
        id: 'k',
        _id: 'mine',
        __x: 2,
        _j: 'not internal',
        meta: { $set: 1, 'a.b': { '': [{ $x: 'y' }] } },
        list: [{ 'x.y': 1 }],
        'weird.key': 1,
        $dollar: true,
      };
      expect(await odd.insert(item)).to.deep.equal(item);
      expect(await odd.get('k')).to.deep.equal(item);
      expect(await odd.find({ where: [{ op: 'eq', field: '_id', value: 'mine' }] })).to.deep.equal([item]);
      expect(await odd.find({ where: [{ op: 'exists', field: 'meta', exists: true }] })).to.have.length(1);
      expect(await odd.find({ sort: [{ field: '_id', direction: 'desc' }] })).to.have.length(1);
    });

    it('creates the indexes at start, idempotently, and every one ends with _id', async () => {
      const spec: CollectionSpec = { ...BOOK, indexes: [['price'], ['publishedAt', 'id'], ['title', 'price', 'id']] };
      await store.collection(spec);
      await store.collection(spec); // again: no error, nothing added
      const indexes = await client.db().collection('Book').listIndexes().toArray();
      const keys = indexes.map((i) => i.key as Record<string, number>);
      expect(keys).to.deep.include({ _id: 1 });
      for (const { key } of indexSpecs(spec)) expect(keys).to.deep.include(key);
      expect(indexes).to.have.length(indexSpecs(spec).length + 1);
    });

    it('assigns distinct integer ids to concurrent inserts', async () => {
      const books = await store.collection(BOOK);
      const made = await Promise.all(Array.from({ length: 60 }, (_, i) => books.insert({ title: `t${i}` })));
      const ids = made.map((b) => b.id as number).sort((a, b) => a - b);
      expect(new Set(ids).size).to.equal(60);
      expect(await books.count()).to.equal(60);
    });

    it('assigns distinct ids across two stores (processes) on one database', async () => {
      const other = await openMongoStore({ uri });
      try {
        const a = await store.collection(BOOK);
        const b = await other.collection(BOOK);
        const made = await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).insert({ title: `t${i}` })),
        );
        expect(new Set(made.map((x) => x.id)).size).to.equal(40);
      } finally {
        await other.close();
      }
    });

    it('numbers after the stored items when the sequence is lost, and after an upserted id', async () => {
      let books = await store.collection(BOOK);
      await books.insert({ id: 41, title: 'a' });
      await client.db().collection(SEQUENCES).deleteMany({});
      await store.close();
      store = await openMongoStore({ uri });
      books = await store.collection(BOOK);
      expect((await books.insert({ title: 'b' })).id).to.equal(42);
      await books.upsert(100, { title: 'c' });
      expect((await books.insert({ title: 'd' })).id).to.equal(101);
      // With the sequence behind the data (another program wrote), an insert that collides skips past the largest key.
      await client
        .db()
        .collection(SEQUENCES)
        .updateOne({ _id: 'Book' as never }, { $set: { n: 40 } });
      expect((await books.insert({ title: 'e' })).id).to.equal(102);
    });

    it('keeps the counts document in step, or none where writes cannot keep it (standalone, FerretDB)', async () => {
      const books = await store.collection(BOOK);
      await books.insert({ title: 'a' });
      await books.insert({ title: 'b' });
      await books.delete(1);
      const transactions = await hasTransactions(client);
      const row = await client
        .db()
        .collection(COUNTS)
        .findOne({ _id: 'Book' as never });
      if (transactions) expect(row).to.deep.include({ n: 1 });
      else expect(row).to.equal(null);
      expect(await books.count()).to.equal(1);
    });

    it('seeds the counts document from the data where writes keep it, and counts when it was deleted by hand', async () => {
      await client
        .db()
        .collection('Book')
        .insertMany([{ _id: 1 as never, title: 'imported' }, { _id: 2 as never }]);
      const books = await store.collection(BOOK);
      const row = await client
        .db()
        .collection(COUNTS)
        .findOne({ _id: 'Book' as never });
      // A counts document only where writes run in transactions (a replica set); elsewhere count() counts.
      if (await hasTransactions(client)) expect(row).to.deep.include({ n: 2 });
      else expect(row).to.equal(null);
      expect(await books.count()).to.equal(2);
      await client.db().collection(COUNTS).deleteMany({});
      await books.insert({ title: 'c' });
      expect(await books.count()).to.equal(3);
    });

    it('page and cursor queries sort along an index the server holds (and, on mongod, its planner uses it)', async () => {
      const spec: CollectionSpec = { ...BOOK, name: 'Plan', indexes: [['price'], ['publishedAt', 'id']] };
      const plans = await store.collection(spec);
      for (let i = 0; i < 300; i++)
        await plans.insert({ price: i % 7, publishedAt: `2024-01-0${1 + (i % 4)}T00:00:00.000Z`, title: `t${i}` });
      const onServer = await client.db().collection('Plan').listIndexes().toArray();
      const cases: [Query, string][] = [
        [
          {
            sort: [
              { field: 'price', direction: 'asc' },
              { field: 'id', direction: 'asc' },
            ],
            after: { values: [2, 17] },
            limit: 10,
          },
          'price_1__id_1',
        ],
        [{ sort: [{ field: 'price', direction: 'desc' }], limit: 30, offset: 30 }, 'price_1__id_1'],
        [
          {
            sort: [
              { field: 'publishedAt', direction: 'desc' },
              { field: 'id', direction: 'desc' },
            ],
            after: { values: ['2024-01-03T00:00:00.000Z', 17] },
            limit: 10,
          },
          'publishedAt_1__id_1',
        ],
        [{ sort: [{ field: 'id', direction: 'desc' }], after: { values: [100] }, limit: 10 }, '_id_'],
        [
          { where: [{ op: 'gte', field: 'price', value: 3 }], sort: [{ field: 'price', direction: 'asc' }], limit: 10 },
          'price_1__id_1',
        ],
      ];
      for (const [q, name] of cases) {
        const c = compileFind(spec, q);
        // The sort is the index's key pattern, read forwards or backwards: no in-memory sort needed.
        const index = onServer.find((i) => i.name === name);
        expect(index, `index ${name} on the server`).to.not.equal(undefined);
        const key = Object.entries(index!.key as Record<string, number>);
        const sort = Object.entries(c.sort);
        const sign = sort[0][1] === key[0][1] ? 1 : -1;
        expect(sort, JSON.stringify(q)).to.deep.equal(key.slice(0, sort.length).map(([k, d]) => [k, d * sign]));
        // FerretDB's explain describes its own SQL plan, not MongoDB's planner: read it on mongod only.
        if (!server.realMongo) continue;
        const cursor = client
          .db()
          .collection('Plan')
          .find(c.filter, {
            sort: c.sort,
            ...(c.skip ? { skip: c.skip } : {}),
            ...(c.limit ? { limit: c.limit } : {}),
          });
        const plan = JSON.stringify((await cursor.explain('queryPlanner')).queryPlanner.winningPlan);
        expect(plan, JSON.stringify(q)).to.contain(`"indexName":"${name}"`);
        expect(plan, JSON.stringify(q)).to.not.match(/"stage":"SORT"/);
        expect(plan, JSON.stringify(q)).to.not.contain('COLLSCAN');
      }
    });
  });

  describe('failures', () => {
    it('rejects with StoreUnavailableError, quickly, when nothing listens', async () => {
      const port = await freePort();
      const started = Date.now();
      const error = await rejection(
        openMongoStore({ uri: `mongodb://127.0.0.1:${port}/x?serverSelectionTimeoutMS=500` }),
      );
      expect(error).to.be.instanceOf(StoreUnavailableError);
      expect((error as Error).message).to.contain(`cannot reach MongoDB at mongodb://127.0.0.1:${port}/x`);
      // Generous, and still far below the driver's default server selection timeout (30 s) it must not wait for.
      expect(Date.now() - started).to.be.below(15_000);
    });

    it('refuses unacknowledged writes and malformed connection strings', async () => {
      expect(
        String(
          await rejection(
            openMongoStore({ uri: `${withDatabase(server.uri, 'x')}${server.uri.includes('?') ? '&' : '?'}w=0` }),
          ),
        ),
      ).to.contain('w=0');
      expect(String(await rejection(openMongoStore({ uri: 'mongodb://' })))).to.contain(
        'invalid MongoDB connection string',
      );
    });

    it('apidsl serve --db: one clear line and exit code 1 when the server is unreachable', async () => {
      const port = await freePort();
      const r = runCli([
        'serve',
        fromRoot('examples/bookstore.api'),
        '--port',
        '0',
        '--db',
        `mongodb://u:secret@127.0.0.1:${port}/shop?serverSelectionTimeoutMS=300`,
      ]);
      expect(r.status, r.stderr).to.equal(1);
      expect(r.stdout).to.equal('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).to.have.length(1);
      expect(lines[0]).to.match(/^apidsl serve: cannot reach MongoDB at mongodb:\/\/\*\*\*@127\.0\.0\.1:\d+\/shop/);
      expect(r.stderr).to.not.contain('secret');
    });

    it('APIDSL_DB selects MongoDB; --memory on the command line still means the embedded store', async () => {
      const port = await freePort();
      const env = { APIDSL_DB: `mongodb://127.0.0.1:${port}/shop?serverSelectionTimeoutMS=300` };
      const r = runCli(['serve', fromRoot('examples/bookstore.api'), '--port', '0'], { env });
      expect(r.status, r.stderr).to.equal(1);
      expect(r.stderr).to.contain('cannot reach MongoDB');
      const bad = runCli(['serve', fromRoot('examples/bookstore.api'), '--port', '0', '--db', 'mysql://x']);
      expect(bad.status).to.equal(1);
      expect(bad.stderr).to.contain(
        'must be a MongoDB connection string (mongodb://host:port/name) or a PostgreSQL URL',
      );
      const both = runCli(['serve', fromRoot('examples/bookstore.api'), '--memory', '--db', 'mongodb://127.0.0.1/x']);
      expect(both.status).to.equal(1);
      expect(both.stderr).to.contain('choose one of');
    });
  });
});
