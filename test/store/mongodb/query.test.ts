/**
 * The MongoDB query compiler on its own (no server): Query → filter, sort, skip, limit, and the indexes a
 * collection gets, including that the page and cursor queries the pipeline sends are served by those indexes.
 */
import { expect } from 'chai';
import {
  compileExists,
  compileFind,
  compileSort,
  compileWhere,
  escapeRegex,
  indexServesSort,
  indexSpecs,
  NOTHING,
  type SortDoc,
} from '../../../server/store/mongodb/query.js';
import type { CollectionSpec, Condition, Sort } from '../../../server/store/types.js';

/** The filter of a keyset query: the items after `values` in `sort` order. */
const compileAfter = (spec: CollectionSpec, sort: Sort, values: unknown[]): unknown =>
  compileFind(spec, { sort, after: { values } }).filter;

const BOOK: CollectionSpec = {
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
    _id: 'string',
    _labels: 'array',
  },
  indexes: [['price'], ['publishedAt', 'id']],
};

const where = (...conditions: Condition[]): unknown => compileWhere(BOOK, conditions);

describe('MongoDB query compiler', () => {
  describe('conditions', () => {
    it('maps the identifier to _id and escapes field names starting with _', () => {
      expect(where({ op: 'eq', field: 'id', value: 3 })).to.deep.equal({ _id: { $eq: 3 } });
      expect(where({ op: 'eq', field: '_id', value: 'x' })).to.deep.equal({ __id: { $eq: 'x' } });
    });

    it('compiles comparisons; ne excludes null and absent values', () => {
      expect(where({ op: 'gt', field: 'price', value: 8 }, { op: 'lt', field: 'price', value: 12.5 })).to.deep.equal({
        $and: [{ price: { $gt: 8 } }, { price: { $lt: 12.5 } }],
      });
      expect(where({ op: 'gte', field: 'price', value: 1 }, { op: 'eq', field: 'title', value: 'x' })).to.deep.equal({
        price: { $gte: 1 },
        title: { $eq: 'x' },
      });
      expect(where({ op: 'ne', field: 'available', value: true })).to.deep.equal({ available: { $nin: [true, null] } });
    });

    it('compiles in, exists and the empty and / or', () => {
      expect(where({ op: 'in', field: 'price', values: [5, 20] })).to.deep.equal({ price: { $in: [5, 20] } });
      // A list exists when it has a first element.
      expect(where({ op: 'exists', field: 'tags', exists: true })).to.deep.equal({ 'tags.0': { $exists: true } });
      expect(where({ op: 'exists', field: 'tags', exists: false })).to.deep.equal({ 'tags.0': { $exists: false } });
      expect(where({ op: 'exists', field: 'meta', exists: false })).to.deep.equal({ meta: null });
      expect(where({ op: 'and', conditions: [] })).to.deep.equal({});
      expect(where({ op: 'or', conditions: [] })).to.deep.equal(NOTHING);
      expect(
        where({
          op: 'or',
          conditions: [
            { op: 'lt', field: 'price', value: 6 },
            { op: 'and', conditions: [] },
          ],
        }),
      ).to.deep.equal({});
    });

    it('compiles match to an anchored, escaped regular expression (equality when exact and case-sensitive)', () => {
      const m = (
        mode: 'exact' | 'partial' | 'start' | 'end' | 'word_start',
        value: string,
        caseInsensitive = false,
      ): unknown => where({ op: 'match', field: 'title', mode, value, caseInsensitive });
      expect(m('exact', 'a.b')).to.deep.equal({ title: { $eq: 'a.b' } });
      expect(m('exact', 'a.b', true)).to.deep.equal({ title: { $regex: '^a\\.b\\z', $options: 'i' } });
      expect(m('partial', '100%(x)')).to.deep.equal({ title: { $regex: '100%\\(x\\)' } });
      expect(m('start', 'C++')).to.deep.equal({ title: { $regex: '^C\\+\\+' } });
      expect(m('end', '$1')).to.deep.equal({ title: { $regex: '\\$1\\z' } });
      expect(m('word_start', 'Man', true)).to.deep.equal({ title: { $regex: '(?:^| )Man', $options: 'i' } });
    });

    it('escapes every regular-expression metacharacter and NUL', () => {
      expect(escapeRegex('\\^$.*+?()[]{}|')).to.equal('\\\\\\^\\$\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|');
      expect(escapeRegex('a\0b')).to.equal('a\\x00b');
      expect(escapeRegex('plain text, 100% _literal_')).to.equal('plain text, 100% _literal_');
    });

    it('rejects unknown fields, comparisons on JSON fields and null values', () => {
      expect(() => where({ op: 'eq', field: 'nope', value: 1 })).to.throw(TypeError);
      expect(() => where({ op: 'eq', field: 'meta', value: 'x' })).to.throw(TypeError);
      expect(() => where({ op: 'gt', field: 'tags', value: 'x' })).to.throw(TypeError);
      expect(() => where({ op: 'eq', field: 'price', value: null })).to.throw(TypeError);
      expect(() => where({ op: 'in', field: 'price', values: [Number.NaN] })).to.throw(TypeError);
    });

    it('leaves eq, in and match on a list field to MongoDB, which applies them to each element', () => {
      expect(where({ op: 'eq', field: 'tags', value: 'x' })).to.deep.equal({ tags: { $eq: 'x' } });
      expect(where({ op: 'in', field: 'tags', values: ['x', 'y'] })).to.deep.equal({ tags: { $in: ['x', 'y'] } });
      expect(where({ op: 'match', field: 'tags', mode: 'start', value: 'x', caseInsensitive: true })).to.deep.equal({
        tags: { $regex: '^x', $options: 'i' },
      });
      // A renamed list field (`_labels` is stored as `__labels`) keeps its stored name.
      expect(where({ op: 'eq', field: '_labels', value: 'x' })).to.deep.equal({ __labels: { $eq: 'x' } });
      expect(where({ op: 'exists', field: '_labels', exists: true })).to.deep.equal({
        '__labels.0': { $exists: true },
      });
    });
  });

  describe('sort, skip and limit', () => {
    it('ends every sort with _id in the last direction unless it holds the identifier', () => {
      expect(compileSort(BOOK, [])).to.deep.equal({ _id: 1 });
      expect(compileSort(BOOK, [{ field: 'price', direction: 'desc' }])).to.deep.equal({ price: -1, _id: -1 });
      expect(
        compileSort(BOOK, [
          { field: 'id', direction: 'desc' },
          { field: 'price', direction: 'asc' },
        ]),
      ).to.deep.equal({ _id: -1, price: 1 });
      expect(() => compileSort(BOOK, [{ field: 'meta', direction: 'asc' }])).to.throw(TypeError);
    });

    it('passes offset as skip and keeps a limit of 0 (MongoDB would read it as no limit)', () => {
      expect(compileFind(BOOK, { limit: 0 })).to.deep.equal({ filter: {}, sort: { _id: 1 }, limit: 0 });
      expect(compileFind(BOOK, { offset: 20, limit: 10 })).to.deep.equal({
        filter: {},
        sort: { _id: 1 },
        skip: 20,
        limit: 10,
      });
      expect(() => compileFind(BOOK, { limit: -1 })).to.throw(TypeError);
      expect(() => compileFind(BOOK, { offset: 1.5 })).to.throw(TypeError);
      expect(compileExists(BOOK, { offset: 3, limit: 7 })).to.deep.equal({ filter: {}, skip: 3 });
    });
  });

  describe('keyset (after)', () => {
    it('is a tuple comparison with a seek bound on the first field', () => {
      const sort: Sort = [
        { field: 'price', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ];
      expect(compileAfter(BOOK, sort, [10, 5])).to.deep.equal({
        $and: [{ price: { $gte: 10 } }, { $or: [{ price: { $gt: 10 } }, { price: { $eq: 10 }, _id: { $gt: 5 } }] }],
      });
    });

    it('puts nulls first: beyond every value in desc, behind every value in asc', () => {
      const desc: Sort = [
        { field: 'price', direction: 'desc' },
        { field: 'id', direction: 'asc' },
      ];
      expect(compileAfter(BOOK, desc, [10, 5])).to.deep.equal({
        $or: [{ $or: [{ price: { $lt: 10 } }, { price: null }] }, { price: { $eq: 10 }, _id: { $gt: 5 } }],
      });
      expect(compileAfter(BOOK, desc, [null, 5])).to.deep.equal({ price: null, _id: { $gt: 5 } });
      const asc: Sort = [
        { field: 'price', direction: 'asc' },
        { field: 'id', direction: 'desc' },
      ];
      expect(compileAfter(BOOK, asc, [null, 5])).to.deep.equal({
        $or: [{ price: { $ne: null } }, { price: null, _id: { $lt: 5 } }],
      });
    });

    it('seeks _id alone for an identifier cursor', () => {
      expect(compileAfter(BOOK, [{ field: 'id', direction: 'desc' }], [8])).to.deep.equal({ _id: { $lt: 8 } });
    });

    it('rejects a cursor whose length differs from the sort', () => {
      expect(() => compileAfter(BOOK, [{ field: 'price', direction: 'asc' }], [1, 2])).to.throw(TypeError);
      expect(() => compileFind(BOOK, { after: { values: [1] } })).to.throw(TypeError);
    });

    it('ANDs the cursor with the conditions', () => {
      const q = compileFind(BOOK, {
        where: [{ op: 'eq', field: 'available', value: true }],
        sort: [{ field: 'id', direction: 'asc' }],
        after: { values: [3] },
        limit: 31,
      });
      expect(q).to.deep.equal({ filter: { available: { $eq: true }, _id: { $gt: 3 } }, sort: { _id: 1 }, limit: 31 });
    });
  });

  describe('indexes', () => {
    it('creates one index per field list, ending with _id, and none for the identifier alone', () => {
      const spec: CollectionSpec = { ...BOOK, indexes: [['price'], ['id'], ['publishedAt', 'id'], ['id', 'id']] };
      expect(indexSpecs(spec)).to.deep.equal([
        { key: { price: 1, _id: 1 }, name: 'price_1__id_1' },
        { key: { publishedAt: 1, _id: 1 }, name: 'publishedAt_1__id_1' },
      ]);
    });

    it('indexes an array field (a to-many relation) with a multikey index that an eq on it uses', () => {
      const spec: CollectionSpec = { ...BOOK, indexes: [['tags']] };
      expect(indexSpecs(spec)).to.deep.equal([{ key: { tags: 1, _id: 1 }, name: 'tags_1__id_1' }]);
      // The filter names the indexed path itself (an equality on an array path is element-wise, index-backed).
      expect(compileWhere(spec, [{ op: 'eq', field: 'tags', value: '/a/1' }])).to.deep.equal({
        tags: { $eq: '/a/1' },
      });
    });

    it('creates both direction patterns of a two-field cursor, the tie-breaker following the last field', () => {
      const spec: CollectionSpec = { ...BOOK, indexes: [['title', 'price', 'id']] };
      expect(indexSpecs(spec).map((i) => i.key)).to.deep.equal([
        { title: 1, price: 1, _id: 1 },
        { title: 1, price: -1, _id: -1 },
      ]);
    });

    it('creates both directions of _id when the identifier is declared inside the cursor', () => {
      const spec: CollectionSpec = { ...BOOK, indexes: [['id', 'price']] };
      expect(indexSpecs(spec).map((i) => i.key)).to.deep.equal([
        { _id: 1, price: 1 },
        { _id: 1, price: -1 },
      ]);
    });

    it('creates the ascending pattern only beyond four patterns', () => {
      const spec: CollectionSpec = {
        name: 'Wide',
        identifier: { field: 'id', type: 'int' },
        fields: { a: 'int', b: 'int', c: 'int', d: 'int' },
        indexes: [['a', 'b', 'c', 'd']],
      };
      expect(indexSpecs(spec).map((i) => i.key)).to.deep.equal([{ a: 1, b: 1, c: 1, d: 1, _id: 1 }]);
    });

    // The sorts the pipeline sends: pages ordered by one filter property (order[price]=asc|desc, the
    // identifier as tie-breaker) and cursors in every direction, forward and backward (reversed).
    const shapes: [string, CollectionSpec, Sort][] = [
      ['page by price asc', BOOK, [{ field: 'price', direction: 'asc' }]],
      ['page by price desc', BOOK, [{ field: 'price', direction: 'desc' }]],
      ['page by identifier', BOOK, []],
      ['cursor id desc', BOOK, [{ field: 'id', direction: 'desc' }]],
      [
        'cursor publishedAt desc, id desc',
        BOOK,
        [
          { field: 'publishedAt', direction: 'desc' },
          { field: 'id', direction: 'desc' },
        ],
      ],
      [
        'cursor publishedAt asc, id asc (previous page)',
        BOOK,
        [
          { field: 'publishedAt', direction: 'asc' },
          { field: 'id', direction: 'asc' },
        ],
      ],
      [
        'cursor title asc, price desc, id desc',
        { ...BOOK, indexes: [['title', 'price', 'id']] },
        [
          { field: 'title', direction: 'asc' },
          { field: 'price', direction: 'desc' },
          { field: 'id', direction: 'desc' },
        ],
      ],
      [
        'the same cursor reversed',
        { ...BOOK, indexes: [['title', 'price', 'id']] },
        [
          { field: 'title', direction: 'desc' },
          { field: 'price', direction: 'asc' },
          { field: 'id', direction: 'asc' },
        ],
      ],
    ];
    for (const [label, spec, sort] of shapes) {
      it(`serves the sort of a ${label} from an index, and seeks it by the sort's first field`, () => {
        const values = sort.map((s) => (s.field === 'publishedAt' || s.field === 'title' ? '2024-01-01' : 7));
        const q = compileFind(spec, { sort, limit: 31, ...(sort.length ? { after: { values } } : {}) });
        const candidates: SortDoc[] = [{ _id: 1 }, ...indexSpecs(spec).map((i) => i.key)];
        const serving = candidates.filter((key) => indexServesSort(key, q.sort));
        expect(serving, `no index serves ${JSON.stringify(q.sort)}`).to.not.be.empty;
        const first = Object.keys(q.sort)[0]!;
        if (sort.length)
          expect(JSON.stringify(q.filter), 'the filter bounds the first sort field').to.contain(`"${first}"`);
      });
    }
  });
});
