/**
 * The SQLite query compiler (server/store/sqlite/query.ts): Query → SQL, on its own (no database).
 */
import { expect } from 'chai';
import {
  compileCount,
  compileExists,
  compileFind,
  compileStream,
  compileTotal,
} from '../../../server/store/sqlite/query.js';
import type { CollectionSpec, Sort } from '../../../server/store/types.js';

const BOOK: CollectionSpec = {
  name: 'Book',
  identifier: { field: 'id', type: 'int' },
  fields: { title: 'string', price: 'number', available: 'bool', tags: 'array' },
  indexes: [],
};
const PRICE = `json_extract("doc", '$."price"')`;

describe('SQLite query compiler', () => {
  it('binds every value and never writes one into the SQL', () => {
    const hostile = `x'); DROP TABLE "Book"; --`;
    const { sql, params } = compileFind(BOOK, {
      where: [
        { op: 'eq', field: 'title', value: hostile },
        { op: 'match', field: 'title', mode: 'partial', value: hostile, caseInsensitive: true },
        { op: 'in', field: 'title', values: [hostile] },
      ],
      limit: 5,
      offset: 10,
    });
    expect(sql).not.to.contain('DROP');
    expect(sql).not.to.match(/\b(5|10)\b/);
    expect(params).to.deep.equal([hostile, hostile.toLowerCase(), JSON.stringify([hostile]), 5, 10]);
  });

  it('compiles a mixed-direction cursor to a tuple comparison', () => {
    const sort: Sort = [
      { field: 'price', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ];
    const { sql, params } = compileFind(BOOK, { sort, after: { values: [10, 5] } });
    // price < 10 OR (price = 10 AND id > 5); a missing price sorts last in desc order, so it is after too.
    expect(sql).to.contain(`WHERE ((${PRICE} < ? OR ${PRICE} IS NULL) OR (${PRICE} = ? AND "key" > ?))`);
    expect(sql).to.contain(`ORDER BY ${PRICE} DESC, "key" ASC`);
    expect(params).to.deep.equal([10, 10, 5]);
  });

  it('puts a seekable range on the first field in front of the tuple comparison', () => {
    const sort: Sort = [
      { field: 'price', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    const { sql, params } = compileFind(BOOK, { sort, after: { values: [10, 5] } });
    expect(sql).to.contain(`WHERE (${PRICE} >= ? AND (${PRICE} > ? OR (${PRICE} = ? AND "key" > ?)))`);
    expect(params).to.deep.equal([10, 10, 10, 5]);
  });

  it('compares a null cursor value with IS NULL', () => {
    const sort: Sort = [
      { field: 'price', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    const { sql, params } = compileFind(BOOK, { sort, after: { values: [null, 5] } });
    expect(sql).to.contain(`WHERE (${PRICE} IS NOT NULL OR (${PRICE} IS NULL AND "key" > ?))`);
    expect(params).to.deep.equal([5]);
  });

  it('keeps one SQL text for any number of in values', () => {
    const one = compileFind(BOOK, { where: [{ op: 'in', field: 'price', values: [1] }] });
    const three = compileFind(BOOK, { where: [{ op: 'in', field: 'price', values: [1, 2, 3] }] });
    expect(one.sql).to.equal(three.sql);
  });

  it('binds booleans as JSON true/false read back by json_extract: 1 and 0', () => {
    expect(compileCount(BOOK, [{ op: 'eq', field: 'available', value: false }]).params).to.deep.equal([0]);
    expect(compileCount(BOOK, [{ op: 'in', field: 'available', values: [true] }]).params).to.deep.equal(['[1]']);
  });

  it('rejects unknown fields, unsafe names, opaque fields and bad values', () => {
    expect(() => compileCount(BOOK, [{ op: 'eq', field: 'nope', value: 1 }])).to.throw(TypeError, /unknown field/);
    expect(() => compileCount(BOOK, [{ op: 'exists', field: 'toString', exists: true }])).to.throw(TypeError);
    expect(() =>
      compileCount({ ...BOOK, fields: { 'a"b': 'string' } }, [{ op: 'exists', field: 'a"b', exists: true }]),
    ).to.throw(TypeError);
    expect(() => compileCount({ ...BOOK, name: 'Book"; --' })).to.throw(TypeError);
    expect(() => compileFind(BOOK, { sort: [{ field: 'tags', direction: 'asc' }] })).to.throw(
      TypeError,
      /only 'exists'/,
    );
    expect(() => compileCount(BOOK, [{ op: 'lt', field: 'price', value: Number.NaN }])).to.throw(TypeError);
    expect(() => compileCount(BOOK, [{ op: 'eq', field: 'price', value: { a: 1 } }])).to.throw(TypeError);
    expect(() => compileFind(BOOK, { after: { values: [] } })).to.throw(TypeError);
    expect(() => compileFind(BOOK, { offset: 1.5 })).to.throw(TypeError);
  });

  it('allows exists on opaque fields: a list exists when it has an element', () => {
    expect(compileCount(BOOK, [{ op: 'exists', field: 'tags', exists: false }]).sql).to.match(
      /ifnull\(json_array_length\("doc", '\$\."tags"'\), 0\) = 0$/,
    );
    expect(compileCount(BOOK, [{ op: 'exists', field: 'tags', exists: true }]).sql).to.match(
      /json_array_length\("doc", '\$\."tags"'\) > 0$/,
    );
  });

  it('tests the elements of a list field with eq, in and match, and refuses other comparisons', () => {
    expect(compileCount(BOOK, [{ op: 'eq', field: 'tags', value: 'x' }])).to.deep.equal({
      sql: `SELECT count(*) AS n FROM "Book" WHERE EXISTS (SELECT 1 FROM json_each("doc", '$."tags"') AS element WHERE element.value = ?)`,
      params: ['x'],
    });
    expect(() => compileCount(BOOK, [{ op: 'lt', field: 'tags', value: 'x' }])).to.throw(TypeError, /only 'exists'/);
  });

  it('reads the unfiltered count from the counts table, never from the resource table', () => {
    const { sql, params } = compileTotal(BOOK);
    expect(sql).to.equal('SELECT "n" FROM "_apidsl_counts" WHERE "collection" = ?');
    expect(sql).not.to.contain('Book');
    expect(params).to.deep.equal(['Book']);
    expect(compileTotal({ ...BOOK, name: 'Other' }).sql).to.equal(sql);
    expect(() => compileTotal({ ...BOOK, name: 'Book"; --' })).to.throw(TypeError);
    expect(compileCount(BOOK).sql).to.equal('SELECT count(*) AS n FROM "Book"');
  });

  it('probes existence with SELECT 1 … LIMIT 1, keeping the offset and the cursor, without ORDER BY', () => {
    const sort: Sort = [
      { field: 'price', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    const { sql, params } = compileExists(BOOK, {
      where: [{ op: 'gt', field: 'price', value: 1 }],
      sort,
      after: { values: [10, 5] },
      limit: 0,
      offset: 3,
    });
    expect(sql).to.equal(
      `SELECT 1 AS found FROM "Book" WHERE (${PRICE} > ? AND (${PRICE} >= ? AND (${PRICE} > ? OR (${PRICE} = ? AND "key" > ?)))) LIMIT 1 OFFSET +?`,
    );
    expect(params).to.deep.equal([1, 10, 10, 10, 5, 3]);
    expect(() => compileExists(BOOK, { sort: [{ field: 'tags', direction: 'asc' }] })).to.throw(
      TypeError,
      /only 'exists'/,
    );
  });

  it('selects the order values for a stream and resumes after them on the total order, without the offset', () => {
    const sort: Sort = [{ field: 'price', direction: 'desc' }];
    const q = { where: [{ op: 'eq' as const, field: 'title', value: 't' }], sort, limit: 100, offset: 20 };
    const first = compileStream(BOOK, q);
    expect(first.sql).to.equal(
      `SELECT "key", "doc", ${PRICE} AS "o0", "key" AS "o1" FROM "Book" WHERE json_extract("doc", '$."title"') = ? ORDER BY ${PRICE} DESC, "key" DESC LIMIT +? OFFSET +?`,
    );
    expect(first.params).to.deep.equal(['t', 100, 20]);
    expect(first.orderColumns).to.deep.equal(['o0', 'o1']);
    const resumed = compileStream(BOOK, q, { values: [10, 7], read: 30 });
    expect(resumed.sql).to.contain(`AND ((${PRICE} < ? OR ${PRICE} IS NULL) OR (${PRICE} = ? AND "key" < ?))`);
    expect(resumed.params).to.deep.equal(['t', 10, 10, 7, 70, 0]);
    // The sort already ends with the identifier: no key term is added.
    expect(compileStream(BOOK, { sort: [{ field: 'id', direction: 'asc' }] }).orderColumns).to.deep.equal(['o0']);
  });
});
