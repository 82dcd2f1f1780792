/**
 * The SQLite store's `stream` (every item in `find` order, in batches) and `exists`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { Collection, CollectionSpec, Item, Query, Sort, Store } from '../../../server/store/types.js';
import { rejection } from '../../support/store-contract.js';

// 1,234 items: more than two stream batches (500 rows), many ties on price and category, price absent on
// every 13th item.
const PRODUCT: CollectionSpec = {
  name: 'Product',
  identifier: { field: 'id', type: 'int' },
  fields: { price: 'int', category: 'string', label: 'string' },
  indexes: [['price']],
};
const SIZE = 1234;
const product = (i: number): Item => ({
  ...(i % 13 === 0 ? {} : { price: ((i * 7) % 5) * 10 }),
  category: ['book', 'dvd', 'game'][i % 3],
  label: `p${i}`,
});

/** A full garbage collection (the flag exposes `gc` to contexts created after it is set). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function collect(items: AsyncIterable<Item>): Promise<Item[]> {
  const seen: Item[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

describe('SQLite store: stream', () => {
  let store: Store;
  let products: Collection;
  beforeEach(async () => {
    store = await openSqliteStore({ memory: true });
    products = await store.collection(PRODUCT);
    for (let i = 1; i <= SIZE; i++) await products.insert(product(i));
  });
  afterEach(async () => {
    await store.close();
  });

  const priceAsc: Sort = [
    { field: 'price', direction: 'asc' },
    { field: 'id', direction: 'asc' },
  ];
  const queries: [string, Query][] = [
    ['everything', {}],
    ['sorted by an indexed field', { sort: priceAsc }],
    ['sorted desc without the identifier (the key breaks ties)', { sort: [{ field: 'price', direction: 'desc' }] }],
    [
      'sorted by an unindexed field, then desc identifier',
      {
        sort: [
          { field: 'category', direction: 'asc' },
          { field: 'id', direction: 'desc' },
        ],
      },
    ],
    ['filtered', { where: [{ op: 'eq', field: 'category', value: 'dvd' }], sort: priceAsc }],
    ['after a cursor', { sort: priceAsc, after: { values: [20, 100] } }],
    ['limit and offset across batches', { sort: [{ field: 'category', direction: 'desc' }], limit: 777, offset: 321 }],
    ['limit 0', { limit: 0 }],
    ['offset past the end', { offset: SIZE }],
  ];
  for (const [label, q] of queries) {
    it(`yields what find returns, in the same order (${label})`, async () => {
      const expected = (await products.find(q)).map((p) => p.id);
      expect((await collect(products.stream(q))).map((p) => p.id)).to.deep.equal(expected);
    });
  }

  it('yields whole items', async () => {
    const [first] = await collect(products.stream({ limit: 1 }));
    expect(first).to.deep.equal({ id: 1, ...product(1) });
  });

  it('lets the loop body write: each item still comes once, in order', async () => {
    const expected = (await products.find({ sort: priceAsc })).map((p) => p.id);
    const seen: unknown[] = [];
    let added = 0;
    for await (const item of products.stream({ sort: priceAsc })) {
      seen.push(item.id);
      await products.replace(item.id as number, { ...item, label: 'seen' }); // same sort values
      if (seen.length % 100 === 0) {
        await products.insert({ price: -1 }); // sorts before the cursor: not seen
        added++;
      }
      if (seen.length === 600) await products.delete(expected.at(-1) as number); // not read yet: gone
    }
    expect(seen).to.deep.equal(expected.slice(0, -1));
    expect(await products.count([{ op: 'eq', field: 'label', value: 'seen' }])).to.equal(SIZE - 1);
    expect(await products.count()).to.equal(SIZE - 1 + added);
  });

  it('keeps limit and offset when a write reopens the cursor', async () => {
    const q: Query = { sort: [{ field: 'category', direction: 'asc' }], limit: 700, offset: 400 };
    const expected = (await products.find(q)).map((p) => p.id);
    const seen: unknown[] = [];
    for await (const item of products.stream(q)) {
      seen.push(item.id);
      if (seen.length % 250 === 0) await products.upsert(5000 + seen.length, {});
    }
    expect(seen).to.deep.equal(expected);
  });

  it('runs alongside finds of the same query and other streams', async () => {
    const q: Query = { sort: priceAsc };
    const expected = (await products.find(q)).map((p) => p.id);
    const a = products.stream(q)[Symbol.asyncIterator]();
    const b = products.stream(q)[Symbol.asyncIterator]();
    const seenA: unknown[] = [];
    const seenB: unknown[] = [];
    for (;;) {
      const [x, y] = await Promise.all([a.next(), b.next()]);
      if (!x.done) seenA.push(x.value.id);
      if (!y.done) seenB.push(y.value.id);
      if (seenA.length === 10) expect((await products.find(q)).map((p) => p.id)).to.deep.equal(expected);
      if (seenA.length === 700) await products.insert({ price: -5 });
      if (x.done && y.done) break;
    }
    expect(seenA).to.deep.equal(expected);
    expect(seenB).to.deep.equal(expected);
  });

  it('releases its cursor when the loop ends early', async () => {
    for await (const item of products.stream({})) {
      expect(item.id).to.equal(1);
      break;
    }
    // An abandoned iterator (never finished, never returned) does not block writes either.
    const abandoned = products.stream({})[Symbol.asyncIterator]();
    await abandoned.next();
    await products.insert({ price: 1 });
    expect(await products.count()).to.equal(SIZE + 1);
    expect((await abandoned.next()).value.id).to.equal(2);
  });

  it('reports an invalid query from the first next()', async () => {
    const bad = products.stream({ sort: [{ field: 'nope', direction: 'asc' }] });
    expect(await rejection(collect(bad))).to.be.instanceOf(TypeError);
    expect(await rejection(collect(products.stream({ limit: -1 })))).to.be.instanceOf(TypeError);
  });

  it('streams 32 MiB of items holding at most a few batches at once (heap growth far below the total)', async function () {
    this.timeout(120_000);
    // 8,000 items of 4 KiB each (distinct strings): the JavaScript heap would hold all 32 MiB if the stream read
    // them all before yielding; reading batches of 500 (2 MiB of text, about twice that as items) it holds about
    // one. The rows themselves live in SQLite's memory, outside the heap. Garbage is collected before each sample,
    // so a sample counts what is held, whatever the load of the machine.
    const N = 8000;
    const SIZE_EACH = 4096;
    const rows = await store.collection({ name: 'Big', fields: { n: 'int', text: 'string' }, indexes: [] });
    for (let n = 0; n < N; n++) await rows.insert({ n, text: `${n}:`.padEnd(SIZE_EACH, 'x') });
    const held = (): number => {
      collectGarbage();
      return process.memoryUsage().heapUsed;
    };
    const baseline = held();
    let peak = 0;
    let seen = 0;
    for await (const item of rows.stream({})) {
      expect(item.text).to.have.length(SIZE_EACH);
      if (++seen % 250 === 0) peak = Math.max(peak, held() - baseline);
    }
    expect(seen).to.equal(N);
    expect(peak, `heap growth while streaming, of ${(N * SIZE_EACH) / 2 ** 20} MiB streamed`).to.be.below(12 * 2 ** 20);
  });
});

describe('SQLite store: exists', () => {
  let store: Store;
  let products: Collection;
  beforeEach(async () => {
    store = await openSqliteStore({ memory: true });
    products = await store.collection(PRODUCT);
  });
  afterEach(async () => {
    await store.close();
  });

  it('answers whether find({ ...q, limit: 1 }) would return an item', async () => {
    expect(await products.exists({})).to.equal(false);
    for (let i = 1; i <= 30; i++) await products.insert(product(i));
    const sort: Sort = [
      { field: 'price', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    const all = await products.find({ sort });
    const last = all.at(-1)!;
    const cases: Query[] = [
      {},
      { limit: 0 },
      { where: [{ op: 'eq', field: 'category', value: 'dvd' }] },
      { where: [{ op: 'eq', field: 'category', value: 'cd' }] },
      { offset: 29 },
      { offset: 30 },
      { sort, after: { values: [all[10]!.price ?? null, all[10]!.id] } },
      { sort, after: { values: [last.price ?? null, last.id] } },
      { sort, after: { values: [all[28]!.price ?? null, all[28]!.id] }, offset: 1 },
    ];
    const answers = [];
    for (const q of cases) {
      const expected = (await products.find({ ...q, limit: 1 })).length > 0;
      expect(await products.exists(q), JSON.stringify(q)).to.equal(expected);
      answers.push(expected);
    }
    expect(answers).to.deep.equal([true, true, true, false, true, false, true, false, false]);
  });

  it('rejects what find rejects', async () => {
    expect(await rejection(products.exists({ sort: [{ field: 'nope', direction: 'asc' }] }))).to.be.instanceOf(
      TypeError,
    );
    expect(await rejection(products.exists({ offset: -1 }))).to.be.instanceOf(TypeError);
  });
});
