/**
 * The behaviour every store must share: CRUD and id assignment, conditions and match modes, exists, counts,
 * sort, limit and offset, streaming, keyset pagination. test/store/contract.test.ts runs it on every engine of
 * store-engines.ts; each engine's own test files keep only what is its own.
 */
import { expect } from 'chai';
import { StoreConflictError } from '../../server/store/types.js';
import type { Collection, CollectionSpec, Condition, Id, Item, Query, Sort, Store } from '../../server/store/types.js';
import { rejection } from './rejection.js';
import { describeKeysetContract } from './store-contract-keyset.js';
import { describeRefersContract } from './store-contract-refers.js';
import type { StoreEngine, StoreFixture } from './store-engines.js';

export { rejection } from './rejection.js';

export const BOOK: CollectionSpec = {
  name: 'Book',
  identifier: { field: 'id', type: 'int' },
  fields: {
    id: 'int',
    title: 'string',
    price: 'number',
    available: 'bool',
    publishedAt: 'datetime',
    tags: 'array',
    meta: 'json',
  },
  indexes: [['price'], ['publishedAt', 'id']],
};

/** The shared suite, under `describe(engine.name)`: each test on a fresh store of the engine, closed after it. */
export function describeStoreContract(engine: StoreEngine): void {
  describe(`${engine.name} store: the store contract`, function () {
    this.timeout(60_000);
    let fixture: StoreFixture;
    let store: Store;
    beforeEach(async function () {
      fixture = await engine.open(this);
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture?.close();
    });

    describe('CRUD', () => {
      it('assigns integer ids 1, 2, 3, accepts explicit ids and continues after the largest', async () => {
        const books = await store.collection(BOOK);
        const assigned = [];
        for (const title of ['a', 'b', 'c']) assigned.push((await books.insert({ title })).id);
        expect(assigned).to.deep.equal([1, 2, 3]);
        expect(await books.insert({ id: 10, title: 'ten' })).to.deep.equal({ id: 10, title: 'ten' });
        expect((await books.insert({ title: 'next' })).id).to.equal(11);
        expect(await books.get(2)).to.deep.equal({ id: 2, title: 'b' });
        expect(typeof (await books.get(10))!.id).to.equal('number');
      });

      it('replace and delete with expected write only while the stored item still equals it, every field', async () => {
        const books = await store.collection(BOOK);
        const read = await books.insert({ title: 'a', price: 1, tags: ['x'], meta: { n: 1 } });
        const id = read.id as number;
        // A field changed, a field added since: the condition fails and nothing is written.
        await books.replace(id, { ...read, price: 2 });
        expect(await books.replace(id, { ...read, title: 'lost' }, read)).to.equal(null);
        expect(await books.delete(id, read)).to.equal(false);
        const now = (await books.get(id))!;
        expect(now).to.deep.include({ title: 'a', price: 2 });
        await books.replace(id, { ...now, available: true });
        expect(await books.replace(id, { ...now, title: 'lost' }, now)).to.equal(null);
        const current = (await books.get(id))!;
        expect(await books.replace(id, { ...current, title: 'b' }, current)).to.deep.include({ id, title: 'b' });
        expect(await books.replace(id, { ...current, title: 'c' }, current)).to.equal(null); // the second of two
        expect((await books.get(id))!.title).to.equal('b');
        expect(await books.replace(99, { title: 'none' }, current)).to.equal(null);
        expect(await books.delete(id, (await books.get(id))!)).to.equal(true);
        expect(await books.get(id)).to.equal(null);
      });

      it('getMany reads the items with the identifiers given, in one call; others give nothing', async () => {
        const books = await store.collection(BOOK);
        for (const title of ['a', 'b', 'c', 'd']) await books.insert({ title });
        const sorted = (items: Item[]) => [...items].sort((x, y) => (x.id as number) - (y.id as number));
        expect(sorted(await books.getMany([4, 2, 2, 99]))).to.deep.equal([
          { id: 2, title: 'b' },
          { id: 4, title: 'd' },
        ]);
        // Values that cannot be integer identifiers name nothing (no error, no coercion of "1" to 1).
        expect(await books.getMany(['1', 1.5, -0.5] as unknown as Id[])).to.deep.equal([]);
        expect(await books.getMany([])).to.deep.equal([]);
        const tags = await store.collection({
          name: 'tag_many',
          identifier: { field: 'id', type: 'string' },
          fields: { label: 'string' },
          indexes: [],
        });
        await tags.insert({ id: 'x', label: 'X' });
        await tags.insert({ id: '1', label: 'one' });
        expect(await tags.getMany(['1', 1 as unknown as Id, 'y'])).to.deep.equal([{ id: '1', label: 'one' }]);
      });

      it('rejects a duplicate identifier with StoreConflictError and keeps the original', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ id: 1, title: 'first' });
        expect(await rejection(books.insert({ id: 1, title: 'second' }))).to.be.instanceOf(StoreConflictError);
        expect(await books.get(1)).to.deep.equal({ id: 1, title: 'first' });
        expect(await books.count()).to.equal(1);
      });

      it('assigns increasing UUID v7 string ids, accepts explicit ones and rejects duplicates', async () => {
        const tags = await store.collection({
          name: 'Tag',
          identifier: { field: 'id', type: 'string' },
          fields: { label: 'string' },
          indexes: [],
        });
        const ids: string[] = [];
        for (let i = 0; i < 50; i++) ids.push((await tags.insert({ label: `t${i}` })).id as string);
        for (const id of ids)
          expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect([...ids].sort()).to.deep.equal(ids);
        expect(new Set(ids).size).to.equal(50);
        expect(await tags.insert({ id: 'custom', label: 'c' })).to.deep.equal({ id: 'custom', label: 'c' });
        expect(await rejection(tags.insert({ id: ids[3], label: 'dup' }))).to.be.instanceOf(StoreConflictError);
        expect(await tags.get(ids[3]!)).to.deep.equal({ id: ids[3], label: 't3' });
      });

      it('keeps items without an identifier in insertion order', async () => {
        const logs = await store.collection({ name: 'Log', fields: { line: 'string' }, indexes: [] });
        for (const line of ['x', 'y', 'z']) expect(await logs.insert({ line })).to.deep.equal({ line });
        expect(await logs.find({})).to.deep.equal([{ line: 'x' }, { line: 'y' }, { line: 'z' }]);
      });

      it('replaces the whole item and answers null for a missing one', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ title: 'old', price: 3 });
        expect(await books.replace(1, { id: 99, title: 'new' })).to.deep.equal({ id: 1, title: 'new' });
        expect(await books.get(1)).to.deep.equal({ id: 1, title: 'new' });
        expect(await books.replace(2, { title: 'nobody' })).to.equal(null);
        expect(await books.count()).to.equal(1);
      });

      it('upserts: created first, replaced after', async () => {
        const books = await store.collection(BOOK);
        expect(await books.upsert(7, { title: 'a', price: 1 })).to.deep.equal({
          item: { id: 7, title: 'a', price: 1 },
          created: true,
        });
        expect(await books.upsert(7, { title: 'b' })).to.deep.equal({ item: { id: 7, title: 'b' }, created: false });
        expect(await books.get(7)).to.deep.equal({ id: 7, title: 'b' });
        expect((await books.insert({})).id).to.equal(8);
        expect(await books.count()).to.equal(2);
      });

      it('deletes once', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ title: 'gone' });
        expect(await books.delete(1)).to.equal(true);
        expect(await books.delete(1)).to.equal(false);
        expect(await books.get(1)).to.equal(null);
        expect(await books.count()).to.equal(0);
      });

      it('deletes with conditions only while the item still matches them (the count kept exact)', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ title: 'moved' });
        expect(await books.delete(1, undefined, [{ op: 'eq', field: 'title', value: 'kept' }])).to.equal(false);
        expect(await books.get(1)).to.deep.equal({ id: 1, title: 'moved' });
        expect(await books.delete(1, undefined, [{ op: 'in', field: 'title', values: ['moved', 'x'] }])).to.equal(true);
        expect(await books.get(1)).to.equal(null);
        expect(await books.count()).to.equal(0);
      });

      it('clears: every item deleted, the count back to 0, integer ids going on (never from 1 again), other collections kept', async () => {
        const books = await store.collection(BOOK);
        for (const title of ['a', 'b', 'c']) await books.insert({ title });
        const other = await store.collection({ ...BOOK, name: 'Other' });
        await other.insert({ title: 'stays' });
        expect(await books.clear()).to.equal(3);
        expect(await books.count()).to.equal(0);
        expect(await books.find({})).to.deep.equal([]);
        expect((await books.insert({ title: 'new' })).id).to.equal(4);
        expect((await books.insertMany([{ title: 'x' }])).map((b) => b.id)).to.deep.equal([5]);
        expect(await other.count()).to.equal(1);
      });

      it('never hands out an integer key twice: not after deleting the last item, nor after reopening the collection', async () => {
        const books = await store.collection(BOOK);
        for (const title of ['a', 'b', 'c']) await books.insert({ title });
        expect(await books.delete(3)).to.equal(true);
        expect((await books.insert({ title: 'd' })).id).to.equal(4);
        expect(await books.delete(4)).to.equal(true);
        const reopened = await store.collection(BOOK);
        expect((await reopened.insert({ title: 'e' })).id).to.equal(5);
        expect(await reopened.delete(5)).to.equal(true);
        expect((await reopened.insertMany([{ title: 'f' }, { title: 'g' }])).map((b) => b.id)).to.deep.equal([6, 7]);
        await reopened.delete(6);
        await reopened.delete(7);
        expect((await reopened.insert({ title: 'h' })).id).to.equal(8);
      });

      it('moves the sequence past given keys that were deleted since: insert, insertMany and a creating upsert', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ id: 10, title: 'given' });
        await books.delete(10);
        expect((await books.insert({ title: 'a' })).id).to.equal(11);
        await books.insertMany([{ id: 20, title: 'given' }]);
        await books.delete(20);
        expect((await books.insert({ title: 'b' })).id).to.equal(21);
        await books.upsert(30, { title: 'given' });
        await books.delete(30);
        expect((await books.insert({ title: 'c' })).id).to.equal(31);
        // A given key below the sequence leaves it where it is.
        await books.insert({ id: 2, title: 'low' });
        expect((await books.insert({ title: 'd' })).id).to.equal(32);
      });

      it('refuses to assign a key past 2^53 - 1 (StoreConflictError) rather than one a JSON number cannot hold', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ id: Number.MAX_SAFE_INTEGER, title: 'last' });
        expect(await rejection(books.insert({ title: 'beyond' }))).to.be.instanceOf(StoreConflictError);
        expect(await rejection(books.insertMany([{ title: 'beyond' }]))).to.be.instanceOf(StoreConflictError);
        expect(await books.count()).to.equal(1);
      });

      it('keys items without an identifier from the same never-reused sequence (their order survives deletes)', async () => {
        const logs = await store.collection({ name: 'Log', fields: { line: 'string' }, indexes: [] });
        await logs.insert({ line: 'x' });
        await logs.insert({ line: 'y' });
        await logs.clear();
        await logs.insert({ line: 'z' });
        await logs.insertMany([{ line: 'w' }]);
        expect(await logs.find({})).to.deep.equal([{ line: 'z' }, { line: 'w' }]);
      });

      it('treats an identifier of the wrong type as not found', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ title: 'a' });
        expect(await books.get('abc')).to.equal(null);
        expect(await books.replace('1', { title: 'b' })).to.equal(null);
        expect(await books.delete(1.5)).to.equal(false);
        expect(await rejection(books.insert({ id: 'x' }))).to.be.instanceOf(TypeError);
      });

      it('keeps unfiltered counts exact across insert, conflict, upsert, replace and delete', async () => {
        const books = await store.collection(BOOK);
        const everything: Condition = { op: 'and', conditions: [] };
        const expectCount = async (n: number): Promise<void> => {
          expect(await books.count()).to.equal(n);
          expect(await books.count([])).to.equal(n);
          expect(await books.count([everything])).to.equal(n);
        };
        await expectCount(0);
        await books.insert({ title: 'a' });
        await books.insert({ id: 10, title: 'b' });
        await expectCount(2);
        await rejection(books.insert({ id: 10, title: 'dup' }));
        await expectCount(2);
        await books.upsert(20, { title: 'c' });
        await books.upsert(20, { title: 'd' });
        await expectCount(3);
        await books.replace(1, { title: 'e' });
        await books.delete(10);
        await books.delete(10);
        await expectCount(2);
      });
    });

    describe('insertMany', () => {
      it('stores nothing for an empty list, and answers an empty list', async () => {
        const books = await store.collection(BOOK);
        expect(await books.insertMany([])).to.deep.equal([]);
        expect(await books.count()).to.equal(0);
        expect((await books.insert({ title: 'first' })).id).to.equal(1);
      });

      it('inserts in order, assigning ids as insert does, and keeps the count and the sequence', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ title: 'before' });
        const saved = await books.insertMany([{ title: 'a' }, { title: 'c', price: 2 }, { id: 10, title: 'b' }]);
        expect(saved).to.deep.equal([
          { id: 2, title: 'a' },
          { id: 3, title: 'c', price: 2 },
          { id: 10, title: 'b' },
        ]);
        expect(await books.count()).to.equal(4);
        expect((await books.insert({ title: 'after' })).id).to.equal(11);
        expect((await books.find({ sort: [{ field: 'id', direction: 'asc' }] })).map((b) => b.title)).to.deep.equal([
          'before',
          'a',
          'c',
          'b',
          'after',
        ]);
        // After a given key, assigned ones go on above it, as with one insert after another.
        expect((await books.insertMany([{ id: 20, title: 'x' }, { title: 'y' }])).map((b) => b.id)).to.deep.equal([
          20, 21,
        ]);
      });

      it('writes none of the items when one identifier is taken, stored or repeated in the batch', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ id: 5, title: 'stored' });
        expect(
          await rejection(
            books.insertMany([
              { id: 1, title: 'a' },
              { id: 2, title: 'b' },
              { id: 5, title: 'taken' },
            ]),
          ),
        ).to.be.instanceOf(StoreConflictError);
        expect(
          await rejection(
            books.insertMany([
              { id: 7, title: 'a' },
              { id: 7, title: 'again' },
            ]),
          ),
        ).to.be.instanceOf(StoreConflictError);
        expect(await books.find({})).to.deep.equal([{ id: 5, title: 'stored' }]);
        expect(await books.count()).to.equal(1);
      });

      it('goes on after a refused write, inside a transaction where the store has them: that one alone is undone', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ id: 5, title: 'stored' });
        const together = store.transaction?.bind(store) ?? (<T>(run: () => Promise<T>): Promise<T> => run());
        const refused = await together(async () => {
          await books.insert({ id: 1, title: 'before' });
          const error = await rejection(books.insert({ id: 5, title: 'taken' }));
          await books.insert({ id: 2, title: 'after' });
          return error;
        });
        expect(refused).to.be.instanceOf(StoreConflictError);
        expect((await books.find({})).map((b) => b.title)).to.deep.equal(['before', 'after', 'stored']);
      });

      it('assigns UUID v7 string ids to the items that lack one', async () => {
        const tags = await store.collection({
          name: 'Tag',
          identifier: { field: 'id', type: 'string' },
          fields: { label: 'string' },
          indexes: [],
        });
        const saved = await tags.insertMany([{ label: 'a' }, { id: 'given', label: 'b' }]);
        expect(saved[0].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
        expect(saved[1]).to.deep.equal({ id: 'given', label: 'b' });
        expect(await tags.count()).to.equal(2);
      });
    });

    describe('conditions', () => {
      let books: Collection;
      const ids = async (...where: Condition[]): Promise<unknown[]> => (await books.find({ where })).map((b) => b.id);
      const match = (
        mode: 'exact' | 'partial' | 'start' | 'end' | 'word_start',
        value: string,
        caseInsensitive = false,
        field = 'title',
      ): Condition => ({
        op: 'match',
        field,
        mode,
        value,
        caseInsensitive,
      });

      beforeEach(async () => {
        books = await store.collection(BOOK);
        const items: Item[] = [
          {
            title: 'The Hobbit',
            price: 10,
            available: true,
            publishedAt: '1937-09-21T00:00:00.000Z',
            tags: ['fantasy'],
          },
          { title: 'the hobbit', price: 12.5, available: false },
          { title: '100% Pure_Fun\\Book', price: 5, available: true, publishedAt: null },
          { title: 'Élise au pays', price: 20 },
          { title: 'Old Man and the Sea', price: 7, meta: { a: 1 }, tags: [] },
          {},
          { title: '100 Pure Fun', price: 8, tags: ['Sci-Fi', 'fantasy classics', 'x.*'] },
          { title: '100X PureXFunXBook (a.*) [b]+ $c^ {d}? e|f', price: 9 },
        ];
        for (const item of items) await books.insert(item);
      });

      it('compares numbers', async () => {
        expect(await ids({ op: 'eq', field: 'price', value: 10 })).to.deep.equal([1]);
        expect(await ids({ op: 'lt', field: 'price', value: 8 })).to.deep.equal([3, 5]);
        expect(await ids({ op: 'lte', field: 'price', value: 8 })).to.deep.equal([3, 5, 7]);
        expect(await ids({ op: 'gt', field: 'price', value: 10 })).to.deep.equal([2, 4]);
        expect(await ids({ op: 'gte', field: 'price', value: 10 })).to.deep.equal([1, 2, 4]);
        expect(
          await ids({ op: 'gt', field: 'price', value: 8 }, { op: 'lt', field: 'price', value: 12.5 }),
        ).to.deep.equal([1, 8]);
      });

      it('never matches null or absent values with a comparison, ne included', async () => {
        expect(await ids({ op: 'ne', field: 'price', value: 10 })).to.deep.equal([2, 3, 4, 5, 7, 8]);
        expect(await ids({ op: 'ne', field: 'available', value: true })).to.deep.equal([2]);
      });

      it('compares booleans with JS booleans', async () => {
        expect(await ids({ op: 'eq', field: 'available', value: true })).to.deep.equal([1, 3]);
        expect(await ids({ op: 'eq', field: 'available', value: false })).to.deep.equal([2]);
        expect(await ids({ op: 'in', field: 'available', values: [false] })).to.deep.equal([2]);
      });

      it('filters and compares the identifier like any field', async () => {
        expect(await ids({ op: 'eq', field: 'id', value: 4 })).to.deep.equal([4]);
        expect(await ids({ op: 'gt', field: 'id', value: 6 })).to.deep.equal([7, 8]);
        expect(await ids({ op: 'in', field: 'id', values: [8, 2, 42] })).to.deep.equal([2, 8]);
      });

      it('compares datetime strings', async () => {
        expect(await ids({ op: 'lt', field: 'publishedAt', value: '1950-01-01T00:00:00.000Z' })).to.deep.equal([1]);
      });

      it('matches a list of values with in, and nothing with an empty list', async () => {
        expect(await ids({ op: 'in', field: 'price', values: [5, 20, 99] })).to.deep.equal([3, 4]);
        expect(await ids({ op: 'in', field: 'title', values: ['The Hobbit', 'x'] })).to.deep.equal([1]);
        expect(await ids({ op: 'in', field: 'price', values: [] })).to.deep.equal([]);
      });

      it('matches exact, partial, start and end case-sensitively', async () => {
        expect(await ids(match('exact', 'The Hobbit'))).to.deep.equal([1]);
        expect(await ids(match('exact', 'the HOBBIT'))).to.deep.equal([]);
        expect(await ids(match('partial', 'hobbit'))).to.deep.equal([2]);
        expect(await ids(match('start', 'The'))).to.deep.equal([1]);
        expect(await ids(match('start', 'Hobbit'))).to.deep.equal([]);
        expect(await ids(match('end', 'Sea'))).to.deep.equal([5]);
        expect(await ids(match('end', 'sea'))).to.deep.equal([]);
        expect(await ids(match('end', 'Old Man and the Sea, longer'))).to.deep.equal([]);
      });

      it('matches case-insensitively, Unicode included', async () => {
        expect(await ids(match('exact', 'the HOBBIT', true))).to.deep.equal([1, 2]);
        expect(await ids(match('partial', 'HOBB', true))).to.deep.equal([1, 2]);
        expect(await ids(match('start', 'THE', true))).to.deep.equal([1, 2]);
        expect(await ids(match('end', 'SEA', true))).to.deep.equal([5]);
        expect(await ids(match('partial', 'élise', true))).to.deep.equal([4]);
        expect(await ids(match('partial', 'élise'))).to.deep.equal([]);
      });

      it('matches word starts: the start of the value or after a space', async () => {
        expect(await ids(match('word_start', 'Man'))).to.deep.equal([5]);
        expect(await ids(match('word_start', 'man'))).to.deep.equal([]);
        expect(await ids(match('word_start', 'man', true))).to.deep.equal([5]);
        expect(await ids(match('word_start', 'Old'))).to.deep.equal([5]);
        expect(await ids(match('word_start', 'ea'))).to.deep.equal([]);
        expect(await ids(match('word_start', 'hob', true))).to.deep.equal([1, 2]);
      });

      it('takes regular-expression metacharacters, %, _ and \\ in user input literally', async () => {
        for (const caseInsensitive of [false, true]) {
          expect(await ids(match('partial', '100%', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('partial', 'Pure_Fun', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('partial', 'Fun\\Book', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('start', '100%', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('end', '\\Book', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('word_start', 'Pure_', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('exact', '%', caseInsensitive))).to.deep.equal([]);
          expect(await ids(match('partial', '_', caseInsensitive))).to.deep.equal([3]);
          expect(await ids(match('partial', '.', caseInsensitive))).to.deep.equal([8]);
          expect(await ids(match('partial', '(a.*) [b]+ $c^ {d}? e|f', caseInsensitive))).to.deep.equal([8]);
          expect(await ids(match('end', 'e|f', caseInsensitive))).to.deep.equal([8]);
          expect(await ids(match('start', '100X', caseInsensitive))).to.deep.equal([8]);
          expect(await ids(match('partial', '.*', caseInsensitive))).to.deep.equal([8]);
          expect(await ids(match('exact', '.*', caseInsensitive))).to.deep.equal([]);
        }
      });

      it('eq and in on an array field: an element equal to the value, with and without an index on the field, kept in step by every write', async () => {
        for (const spec of [
          { ...BOOK, name: 'TaggedBook' },
          { ...BOOK, name: 'IndexedBook', indexes: [...BOOK.indexes, ['tags']] },
        ]) {
          const c = await store.collection(spec);
          const holding = async (value: unknown): Promise<unknown[]> =>
            (await c.find({ where: [{ op: 'eq', field: 'tags', value }] })).map((b) => b.id);
          await c.insert({ id: 1, tags: ['/a/1', '/a/2', '/a/2'] });
          await c.insert({ id: 2, tags: ['/a/2', 3, true] });
          await c.insert({ id: 4, tags: [{ x: '/a/1' }] });
          await c.insert({ id: 5 });
          expect(await holding('/a/1'), spec.name).to.deep.equal([1]);
          expect(await holding('/a/2'), spec.name).to.deep.equal([1, 2]);
          expect(await holding(3), spec.name).to.deep.equal([2]);
          expect(await holding(true), spec.name).to.deep.equal([2]);
          expect(await c.count([{ op: 'eq', field: 'tags', value: '/a/2' }]), spec.name).to.equal(2);
          await c.replace(1, { id: 1, tags: ['/a/3'] });
          await c.upsert(6, { id: 6, tags: ['/a/1'] });
          await c.delete(2);
          expect(await holding('/a/2'), spec.name).to.deep.equal([]);
          expect(await holding('/a/3'), spec.name).to.deep.equal([1]);
          expect(await holding('/a/1'), spec.name).to.deep.equal([6]);
          expect(
            await c.find({ where: [{ op: 'in', field: 'tags', values: ['/a/3', '/a/1'] }] }),
            spec.name,
          ).to.have.length(2);
          await c.clear();
          expect(await holding('/a/1'), spec.name).to.deep.equal([]);
        }
      });

      it('treats null and absent as not existing', async () => {
        expect(await ids({ op: 'exists', field: 'publishedAt', exists: true })).to.deep.equal([1]);
        expect(await ids({ op: 'exists', field: 'publishedAt', exists: false })).to.deep.equal([2, 3, 4, 5, 6, 7, 8]);
        expect(await ids({ op: 'exists', field: 'tags', exists: true })).to.deep.equal([1, 7]);
        expect(await ids({ op: 'exists', field: 'meta', exists: true })).to.deep.equal([5]);
        expect(await ids({ op: 'exists', field: 'title', exists: false })).to.deep.equal([6]);
      });

      it('combines conditions with and / or, nested', async () => {
        const cheapOrDear: Condition = {
          op: 'or',
          conditions: [
            { op: 'lt', field: 'price', value: 6 },
            { op: 'and', conditions: [{ op: 'gt', field: 'price', value: 15 }, match('start', 'É')] },
          ],
        };
        expect(await ids(cheapOrDear)).to.deep.equal([3, 4]);
        expect(await ids({ op: 'and', conditions: [] })).to.have.length(8);
        expect(await ids({ op: 'or', conditions: [] })).to.deep.equal([]);
      });

      it('treats an empty list as not existing', async () => {
        expect(await ids({ op: 'exists', field: 'tags', exists: false })).to.deep.equal([2, 3, 4, 5, 6, 8]);
      });

      it('applies eq, in and match to the elements of an array field: some element satisfies them', async () => {
        expect(await ids({ op: 'eq', field: 'tags', value: 'fantasy' })).to.deep.equal([1]);
        expect(await ids({ op: 'eq', field: 'tags', value: 'Sci-Fi' })).to.deep.equal([7]);
        expect(await ids({ op: 'eq', field: 'tags', value: 'sci-fi' })).to.deep.equal([]);
        expect(await ids({ op: 'in', field: 'tags', values: ['fantasy', 'Sci-Fi', 'none'] })).to.deep.equal([1, 7]);
        expect(await ids({ op: 'in', field: 'tags', values: [] })).to.deep.equal([]);
        const tags = (mode: Parameters<typeof match>[0], value: string, ci = false): Condition =>
          match(mode, value, ci, 'tags');
        expect(await ids(tags('partial', 'fantasy'))).to.deep.equal([1, 7]);
        expect(await ids(tags('exact', 'fantasy'))).to.deep.equal([1]);
        expect(await ids(tags('exact', 'SCI-FI', true))).to.deep.equal([7]);
        expect(await ids(tags('start', 'sci', true))).to.deep.equal([7]);
        expect(await ids(tags('start', 'sci'))).to.deep.equal([]);
        expect(await ids(tags('end', 'classics'))).to.deep.equal([7]);
        expect(await ids(tags('word_start', 'CLASS', true))).to.deep.equal([7]);
        expect(await ids(tags('word_start', 'lassics'))).to.deep.equal([]);
        // Each element is matched on its own (no match across two elements) and literally.
        expect(await ids(tags('partial', 'Fi fantasy'))).to.deep.equal([]);
        expect(await ids(tags('exact', 'x.*'))).to.deep.equal([7]);
        expect(await ids(tags('partial', '.*', true))).to.deep.equal([7]);
        expect(await books.count([tags('partial', 'fantasy')])).to.equal(2);
      });

      it('rejects unknown fields, comparisons on JSON fields and null comparison values', async () => {
        expect(await rejection(ids({ op: 'eq', field: 'nope', value: 1 }))).to.be.instanceOf(TypeError);
        expect(await rejection(ids({ op: 'eq', field: 'meta', value: 'fantasy' }))).to.be.instanceOf(TypeError);
        expect(await rejection(ids({ op: 'gt', field: 'tags', value: 'fantasy' }))).to.be.instanceOf(TypeError);
        expect(await rejection(ids({ op: 'eq', field: 'price', value: null }))).to.be.instanceOf(TypeError);
      });

      it('counts with and without conditions', async () => {
        expect(await books.count()).to.equal(8);
        expect(await books.count([])).to.equal(8);
        expect(await books.count([match('partial', 'hobbit', true)])).to.equal(2);
      });

      it('answers exists() with the offset applied and the limit ignored', async () => {
        expect(await books.exists({ where: [{ op: 'gt', field: 'price', value: 10 }], limit: 0 })).to.equal(true);
        expect(await books.exists({ where: [{ op: 'gt', field: 'price', value: 10 }], offset: 1 })).to.equal(true);
        expect(await books.exists({ where: [{ op: 'gt', field: 'price', value: 10 }], offset: 2 })).to.equal(false);
        expect(await rejection(books.exists({ sort: [{ field: 'meta', direction: 'asc' }] }))).to.be.instanceOf(
          TypeError,
        );
      });
    });

    describe('sort, limit and offset', () => {
      let rows: Collection;
      beforeEach(async () => {
        rows = await store.collection({
          name: 'Row',
          identifier: { field: 'id', type: 'int' },
          fields: { a: 'int', b: 'string' },
          indexes: [],
        });
        for (const item of [{ a: 1, b: 'b' }, { a: 1, b: 'a' }, { a: 2, b: 'a' }, { a: 0, b: 'z' }, { b: 'n' }])
          await rows.insert(item);
      });
      const ids = async (q: Query): Promise<unknown[]> => (await rows.find(q)).map((r) => r.id);

      it('sorts by several fields in mixed directions, nulls smallest', async () => {
        expect(
          await ids({
            sort: [
              { field: 'a', direction: 'asc' },
              { field: 'b', direction: 'desc' },
            ],
          }),
        ).to.deep.equal([5, 4, 1, 2, 3]);
        expect(
          await ids({
            sort: [
              { field: 'a', direction: 'desc' },
              { field: 'b', direction: 'asc' },
            ],
          }),
        ).to.deep.equal([3, 2, 1, 4, 5]);
        expect(
          await ids({
            sort: [
              { field: 'b', direction: 'asc' },
              { field: 'id', direction: 'desc' },
            ],
          }),
        ).to.deep.equal([3, 2, 1, 5, 4]);
      });

      it('breaks ties by the key when the sort lacks the identifier', async () => {
        expect(await ids({ sort: [{ field: 'a', direction: 'asc' }] })).to.deep.equal([5, 4, 1, 2, 3]);
        expect(await ids({ sort: [{ field: 'a', direction: 'desc' }] })).to.deep.equal([3, 2, 1, 4, 5]);
        expect(await ids({})).to.deep.equal([1, 2, 3, 4, 5]);
      });

      it('applies limit and offset', async () => {
        const sort: Sort = [{ field: 'id', direction: 'asc' }];
        expect(await ids({ sort, limit: 2 })).to.deep.equal([1, 2]);
        expect(await ids({ sort, limit: 2, offset: 2 })).to.deep.equal([3, 4]);
        expect(await ids({ sort, offset: 3 })).to.deep.equal([4, 5]);
        expect(await ids({ sort, limit: 0 })).to.deep.equal([]);
        expect(await rejection(ids({ limit: -1 }))).to.be.instanceOf(TypeError);
      });

      it('streams the same items as find, and releases the cursor when the loop ends early', async () => {
        const q: Query = { sort: [{ field: 'a', direction: 'desc' }], offset: 1, limit: 3 };
        const streamed: Item[] = [];
        for await (const item of rows.stream(q)) streamed.push(item);
        expect(streamed).to.deep.equal(await rows.find(q));
        for await (const item of rows.stream({})) {
          expect(item.id).to.equal(1);
          break;
        }
        const none: Item[] = [];
        for await (const item of rows.stream({ limit: 0 })) none.push(item);
        expect(none).to.deep.equal([]);
        const stream = rows.stream({ sort: [{ field: 'nope', direction: 'asc' }] })[Symbol.asyncIterator]();
        expect(await rejection(stream.next())).to.be.instanceOf(TypeError);
      });
    });

    describe('findPage', () => {
      it("answers find's items and count(where): limit, offset and after apply to the items only", async () => {
        const books = await store.collection(BOOK);
        for (let i = 1; i <= 7; i++) await books.insert({ title: `b${i}`, price: i });
        const sort: Sort = [{ field: 'id', direction: 'asc' }];
        const cheap: Condition[] = [{ op: 'lt', field: 'price', value: 6 }];
        const queries: Query[] = [
          { sort, limit: 3 },
          { sort, limit: 3, offset: 6 },
          { sort, limit: 3, offset: 30 },
          { where: cheap, sort, limit: 2, offset: 2 },
          { where: cheap, sort, limit: 2, after: { values: [4] } },
          { where: [], sort, limit: 0 },
        ];
        for (const q of queries) {
          const expected = { items: await books.find(q), total: await books.count(q.where) };
          expect(await books.findPage(q), JSON.stringify(q)).to.deep.equal(expected);
        }
        expect(await books.findPage({ where: cheap, sort, limit: 2, offset: 3 })).to.deep.equal({
          items: [
            { id: 4, title: 'b4', price: 4 },
            { id: 5, title: 'b5', price: 5 },
          ],
          total: 5,
        });
      });

      it('takes the cursor tuple itself with an inclusive after; findAndProbe, where the store has it, answers find and exists together', async () => {
        const books = await store.collection(BOOK);
        for (let i = 1; i <= 7; i++) await books.insert({ title: `b${i}`, price: i % 3 });
        const sort: Sort = [
          { field: 'price', direction: 'desc' },
          { field: 'id', direction: 'asc' },
        ];
        const order = (await books.find({ sort })).map((b) => b.id);
        const fromFourth = order.slice(3);
        const tuple = (await books.find({ sort, offset: 3, limit: 1 }))[0]!;
        const at = { values: [tuple.price, tuple.id] };
        expect((await books.find({ sort, after: { ...at, inclusive: true } })).map((b) => b.id)).to.deep.equal(
          fromFourth,
        );
        expect((await books.find({ sort, after: at })).map((b) => b.id)).to.deep.equal(fromFourth.slice(1));
        if (!books.findAndProbe) return;
        const backwards: Sort = sort.map((s) => ({ ...s, direction: s.direction === 'asc' ? 'desc' : 'asc' }));
        const cases: [Query, Query][] = [
          [
            { sort, after: at, limit: 2 },
            { sort: backwards, after: { ...at, inclusive: true } },
          ],
          [
            { sort, limit: 2 },
            { sort: backwards, where: [{ op: 'eq', field: 'price', value: 99 }] },
          ],
          [{ sort, after: at, limit: 2, where: [{ op: 'eq', field: 'price', value: 99 }] }, { sort }],
        ];
        for (const [q, probe] of cases)
          expect(await books.findAndProbe(q, probe), JSON.stringify([q, probe])).to.deep.equal({
            items: await books.find(q),
            probed: (await books.find(q)).length > 0 && (await books.exists(probe)),
          });
      });

      it('answers the rendered texts where the store keeps them, else the items', async () => {
        const spec: CollectionSpec = { ...BOOK, rendering: { version: 'v1', render: (item) => `<${item.title}>` } };
        const books = await store.collection(spec);
        for (const title of ['a', 'b', 'c']) await books.insert({ title });
        const q: Query = { sort: [{ field: 'id', direction: 'desc' }], limit: 2 };
        const page = await books.findPage(q, { rendered: true });
        if (page.texts) expect(page.texts).to.deep.equal(['<c>', '<b>']);
        else expect(page.items).to.deep.equal(await books.find(q));
        expect(page.total).to.equal(3);
        expect(await books.findPage(q)).to.deep.equal({ items: await books.find(q), total: 3 });
      });

      it('rejects an invalid query', async () => {
        const books = await store.collection(BOOK);
        await books.insert({ title: 'a' });
        expect(await rejection(books.findPage({ sort: [{ field: 'nope', direction: 'asc' }] }))).to.be.instanceOf(
          TypeError,
        );
        expect(
          await rejection(books.findPage({ where: [{ op: 'eq', field: 'nope', value: 1 }], limit: 1 })),
        ).to.be.instanceOf(TypeError);
      });
    });

    describeKeysetContract(engine);
    describeRefersContract(() => store);
  });
}
