/**
 * The `refers` condition (types.ts) in the store contract: what row-level scopes through relations compile to
 * (server/expression/scope.ts). Each engine answers it its own way (SQLite and PostgreSQL a sub-query, MongoDB a
 * first read of the related keys); find, count, stream and findPage agree on every engine.
 */
import { expect } from 'chai';
import type { Collection, CollectionSpec, Condition, Store } from '../../server/store/types.js';

const SHOP: CollectionSpec = {
  name: 'Shop',
  identifier: { field: 'id', type: 'int' },
  fields: { id: 'int', owner: 'string', open: 'bool' },
  indexes: [],
};
const PRODUCT: CollectionSpec = {
  name: 'Product',
  identifier: { field: 'id', type: 'int' },
  fields: { id: 'int', title: 'string', shop: 'string', published: 'bool' },
  indexes: [['shop']],
};
const ORDER: CollectionSpec = {
  name: 'Order',
  identifier: { field: 'id', type: 'int' },
  fields: { id: 'int', product: 'string' },
  indexes: [['product']],
};

/** The items whose `field` names an item of `target` (`keyPrefix` then its key) that `owner` owns. */
const ownedThrough = (field: string, target: CollectionSpec, keyPrefix: string, owner: string): Condition => ({
  op: 'refers',
  field,
  target,
  keyPrefix,
  where: [{ op: 'eq', field: 'owner', value: owner }],
});
const ownedBy = (owner: string): Condition => ownedThrough('shop', SHOP, '/shops/', owner);

/** The `refers` conditions, under the store contract's `describe` (`store()` is the fresh store of each test). */
export function describeRefersContract(store: () => Store): void {
  describe('refers (a condition on related items)', () => {
    let products: Collection;
    let orders: Collection;
    const ids = async (collection: Collection, where: Condition[]): Promise<unknown[]> =>
      (await collection.find({ where, sort: [{ field: 'id', direction: 'asc' }] })).map((i) => i.id);

    beforeEach(async () => {
      const shops = await store().collection(SHOP);
      products = await store().collection(PRODUCT);
      orders = await store().collection(ORDER);
      await shops.insert({ id: 1, owner: 'alice', open: true });
      await shops.insert({ id: 2, owner: 'bob', open: true });
      await shops.insert({ id: 3, owner: 'alice', open: false });
      await products.insert({ id: 1, title: 'a1', shop: '/shops/1', published: true });
      await products.insert({ id: 2, title: 'b1', shop: '/shops/2', published: true });
      await products.insert({ id: 3, title: 'a3', shop: '/shops/3', published: false });
      await products.insert({ id: 4, title: 'orphan', shop: '/shops/9', published: true });
      await products.insert({ id: 5, title: 'none', published: true });
      for (const [id, product] of [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ] as const)
        await orders.insert({ id, product: `/products/${product}` });
    });

    it('keeps the items whose related item matches, not those naming a missing or no item', async () => {
      expect(await ids(products, [ownedBy('alice')])).to.deep.equal([1, 3]);
      expect(await ids(products, [ownedBy('carol')])).to.deep.equal([]);
      // An empty `and` matches every shop: every product naming a stored shop.
      const anyShop: Condition = { op: 'refers', field: 'shop', target: SHOP, keyPrefix: '/shops/', where: [] };
      expect(await ids(products, [anyShop])).to.deep.equal([1, 2, 3]);
    });

    it('combines with other conditions, inside and outside, and inside or and and', async () => {
      const openShops: Condition = {
        op: 'refers',
        field: 'shop',
        target: SHOP,
        keyPrefix: '/shops/',
        where: [
          { op: 'eq', field: 'owner', value: 'alice' },
          { op: 'eq', field: 'open', value: true },
        ],
      };
      expect(await ids(products, [openShops])).to.deep.equal([1]);
      const published: Condition = { op: 'eq', field: 'published', value: true };
      expect(await ids(products, [{ op: 'or', conditions: [published, ownedBy('alice')] }])).to.deep.equal([
        1, 2, 3, 4, 5,
      ]);
      expect(await ids(products, [{ op: 'and', conditions: [published, ownedBy('alice')] }])).to.deep.equal([1]);
    });

    it('follows two relations (an order through its product to its shop)', async () => {
      const aliceOrders: Condition = {
        op: 'refers',
        field: 'product',
        target: PRODUCT,
        keyPrefix: '/products/',
        where: [ownedBy('alice')],
      };
      expect(await ids(orders, [aliceOrders])).to.deep.equal([1, 3]);
      expect(await orders.count([aliceOrders])).to.equal(2);
    });

    it('count, stream and findPage agree with find', async () => {
      const where = [ownedBy('alice')];
      expect(await products.count(where)).to.equal(2);
      const streamed: unknown[] = [];
      for await (const item of products.stream({ where, sort: [{ field: 'id', direction: 'asc' }] }))
        streamed.push(item.id);
      expect(streamed).to.deep.equal([1, 3]);
      const page = await products.findPage({ where, sort: [{ field: 'id', direction: 'asc' }], limit: 1 });
      expect(page.items!.map((i) => i.id)).to.deep.equal([1]);
      expect(page.total).to.equal(2);
    });

    it('answers the same through a declared relation (PostgreSQL keeps it as a foreign key), a string key too', async () => {
      const desk: CollectionSpec = {
        name: 'Desk',
        identifier: { field: 'code', type: 'string' },
        fields: { code: 'string', owner: 'string' },
        indexes: [],
      };
      const relation = { target: desk, keyPrefix: '/desks/', many: false, onDelete: 'restrict' } as const;
      const lamp: CollectionSpec = {
        name: 'Lamp',
        identifier: { field: 'id', type: 'int' },
        fields: { id: 'int', desk: 'string' },
        indexes: [['desk']],
        relations: { desk: relation },
      };
      const desks = await store().collection(desk);
      const lamps = await store().collection(lamp);
      for (const [code, owner] of [
        ['d-1', 'alice'],
        ['d-2', 'bob'],
        ["o'3", 'alice'],
      ])
        await desks.insert({ code, owner });
      for (const [id, code] of [
        [1, 'd-1'],
        [2, 'd-2'],
        [3, "o'3"],
        [4, undefined],
      ] as const)
        await lamps.insert({ id, ...(code ? { desk: `/desks/${code}` } : {}) });
      const at = (owner: string): Condition => ownedThrough('desk', desk, '/desks/', owner);
      expect(await ids(lamps, [at('alice')])).to.deep.equal([1, 3]);
      expect(await lamps.count([at('alice')])).to.equal(2);
      expect(await ids(lamps, [at('carol')])).to.deep.equal([]);
      const page = await lamps.findPage({ where: [at('bob')], sort: [{ field: 'id', direction: 'asc' }], limit: 5 });
      expect([page.items!.map((i) => i.id), page.total]).to.deep.equal([[2], 1]);
    });
  });
}
