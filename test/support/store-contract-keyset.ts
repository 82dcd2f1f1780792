/**
 * The keyset-pagination part of the store contract (store-contract.ts): walks page by page, each page after the
 * last item of the one before, over many ties and nulls, compared with an order computed here.
 */
import { expect } from 'chai';
import type { Collection, CollectionSpec, Condition, Item, Query, Sort } from '../../server/store/types.js';
import { rejection } from './rejection.js';
import type { StoreEngine, StoreFixture } from './store-engines.js';

/** Keyset (`after`) walks over 200 items with many ties: one store of the engine for the whole suite. */
export function describeKeysetContract(engine: StoreEngine): void {
  describe('keyset pagination', () => {
    // 200 items, price in 5 distinct values (absent on every 13th), category in 3, createdAt in 4.
    const PRODUCT: CollectionSpec = {
      name: 'Product',
      identifier: { field: 'id', type: 'int' },
      fields: { price: 'int', category: 'string', createdAt: 'datetime' },
      indexes: [['price'], ['createdAt', 'id']],
    };
    const product = (i: number): Item => ({
      ...(i % 13 === 0 ? {} : { price: ((i * 7) % 5) * 10 }),
      category: ['book', 'dvd', 'game'][i % 3],
      createdAt: `2024-01-0${1 + (i % 4)}T12:00:00.000Z`,
    });

    // Reference order computed in JS, independent of the store: nulls smallest.
    function compare(sort: Sort) {
      return (x: Item, y: Item): number => {
        for (const { field, direction } of sort) {
          const a = x[field] ?? null;
          const b = y[field] ?? null;
          if (a === b) continue;
          const less = a === null || (b !== null && (a as number | string) < (b as number | string));
          return (less ? -1 : 1) * (direction === 'asc' ? 1 : -1);
        }
        return 0;
      };
    }

    async function walk(
      collection: Collection,
      sort: Sort,
      pageSize: number,
      where: Condition[] = [],
    ): Promise<Item[]> {
      const seen: Item[] = [];
      let after: Query['after'];
      for (;;) {
        const page = await collection.find({ where, sort, limit: pageSize, ...(after ? { after } : {}) });
        if (page.length === 0) return seen;
        expect(page.length).to.be.at.most(pageSize);
        seen.push(...page);
        expect(seen.length, 'the walk does not end').to.be.at.most(200);
        const last = page.at(-1)!;
        after = { values: sort.map(({ field }) => last[field] ?? null) };
      }
    }

    async function expectEveryItemOnceInOrder(
      collection: Collection,
      sort: Sort,
      where: Condition[] = [],
    ): Promise<void> {
      const all = await collection.find({ where });
      const walked = await walk(collection, sort, 7, where);
      expect(new Set(walked.map((item) => item.id)).size).to.equal(walked.length);
      expect(walked.map((item) => item.id)).to.deep.equal([...all].sort(compare(sort)).map((item) => item.id));
    }

    let fixture: StoreFixture;
    let products: Collection;
    before(async function () {
      fixture = await engine.open(this);
      const store = fixture.store;
      products = await store.collection(PRODUCT);
      for (let i = 1; i <= 200; i++) await products.insert(product(i));
    });
    after(async () => {
      await fixture?.close();
    });

    /** A sort written `field direction`, one term per argument. */
    const by = (...terms: string[]): Sort =>
      terms.map((term) => {
        const [field, direction] = term.split(' ');
        return { field: field!, direction: direction as 'asc' | 'desc' };
      });
    const orders: [string, Sort][] = [
      ['asc', by('price asc', 'id asc')],
      ['desc', by('price desc', 'id desc')],
      ['desc then asc', by('price desc', 'id asc')],
      ['asc then desc', by('price asc', 'id desc')],
      ['three fields', by('category asc', 'price desc', 'id asc')],
      ['datetime desc', by('createdAt desc', 'id desc')],
      ['identifier only', by('id desc')],
    ];
    for (const [label, sort] of orders) {
      it(`walks 200 items with many ties exactly once, in order (${label})`, async () => {
        await expectEveryItemOnceInOrder(products, sort);
      });
    }

    it('walks a filtered collection', async () => {
      await expectEveryItemOnceInOrder(products, orders[2]![1], [{ op: 'eq', field: 'category', value: 'dvd' }]);
    });

    it('walks string identifiers', async () => {
      const gadgets = await fixture.store.collection({
        ...PRODUCT,
        name: 'Gadget',
        identifier: { field: 'id', type: 'string' },
      });
      for (let i = 1; i <= 200; i++) await gadgets.insert(product(i));
      await expectEveryItemOnceInOrder(gadgets, by('price desc', 'id asc'));
    });

    it('is a tuple comparison: price desc, id asc after (10, 5)', async () => {
      const sort: Sort = [
        { field: 'price', direction: 'desc' },
        { field: 'id', direction: 'asc' },
      ];
      const page = await products.find({ sort, after: { values: [10, 5] } });
      const expected = (await products.find({ sort })).filter(
        (p) => p.price === undefined || (p.price as number) < 10 || (p.price === 10 && (p.id as number) > 5),
      );
      expect(page.map((p) => p.id)).to.deep.equal(expected.map((p) => p.id));
    });

    it('with `inclusive`, takes the items equal to the cursor too, a null value among them', async () => {
      const sort: Sort = [
        { field: 'price', direction: 'desc' },
        { field: 'id', direction: 'asc' },
      ];
      const all = await products.find({ sort });
      const page = await products.find({ sort, after: { values: [10, 5], inclusive: true } });
      const expected = all.filter(
        (p) => p.price === undefined || (p.price as number) < 10 || (p.price === 10 && (p.id as number) >= 5),
      );
      expect(page.map((p) => p.id)).to.deep.equal(expected.map((p) => p.id));
      const nullFirst = all.find((p) => p.price === undefined)!;
      const asc: Sort = [
        { field: 'price', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ];
      const fromNull = await products.find({ sort: asc, after: { values: [null, nullFirst.id], inclusive: true } });
      const ascending = (await products.find({ sort: asc })).filter(
        (p) => p.price !== undefined || (p.id as number) >= (nullFirst.id as number),
      );
      expect(fromNull.map((p) => p.id)).to.deep.equal(ascending.map((p) => p.id));
      const upToNull = await products.find({ sort, after: { values: [null, nullFirst.id], inclusive: true } });
      expect(upToNull.map((p) => p.id)).to.deep.equal(
        all.filter((p) => p.price === undefined && (p.id as number) >= (nullFirst.id as number)).map((p) => p.id),
      );
    });

    it('answers find and an existence probe together where the store reads them at once', async () => {
      if (!products.findAndProbe) return;
      const sort: Sort = [{ field: 'id', direction: 'asc' }];
      const before: Sort = [{ field: 'id', direction: 'desc' }];
      const cases: [Query, Query][] = [
        [
          { sort, limit: 3, after: { values: [40] } },
          { sort: before, after: { values: [40], inclusive: true } },
        ],
        [
          { sort, limit: 3 },
          { sort: before, after: { values: [0], inclusive: true } },
        ],
        [
          { sort, limit: 3, after: { values: [1e9] } },
          { sort: before, after: { values: [1e9], inclusive: true } },
        ],
        [{ where: [{ op: 'eq', field: 'category', value: 'dvd' }], sort, limit: 0 }, { sort }],
      ];
      for (const [q, probe] of cases) {
        const items = await products.find(q);
        expect(await products.findAndProbe(q, probe), JSON.stringify([q, probe])).to.deep.equal({
          items,
          probed: items.length > 0 && (await products.exists(probe)),
        });
      }
    });

    it('rejects a cursor whose length differs from the sort', async () => {
      const sort: Sort = [
        { field: 'price', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ];
      expect(await rejection(products.find({ sort, after: { values: [10] } }))).to.be.instanceOf(TypeError);
    });
  });
}
