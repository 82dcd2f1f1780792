/**
 * The store-neutral keyset module (server/store/keyset.ts): the total order and the `after` cursor as the
 * conditions both query compilers read.
 */
import { expect } from 'chai';
import { afterCondition, orderTerms, STORE_KEY } from '../../server/store/keyset.js';
import type { CollectionSpec, Condition } from '../../server/store/types.js';

const BOOK: CollectionSpec = {
  name: 'Book',
  identifier: { field: 'id', type: 'int' },
  fields: { price: 'number', meta: 'json' },
  indexes: [],
};

/** "After (10, 5)" on price desc, then `last` on the id among the books priced 10. */
const belowPriceThen = (last: Condition): Condition => ({
  op: 'or',
  conditions: [
    {
      op: 'and',
      conditions: [
        {
          op: 'or',
          conditions: [
            { op: 'lt', field: 'price', value: 10 },
            { op: 'exists', field: 'price', exists: false },
          ],
        },
      ],
    },
    { op: 'and', conditions: [{ op: 'eq', field: 'price', value: 10 }, last] },
  ],
});

describe('keyset', () => {
  it('ends the order with the store key unless the sort holds the identifier', () => {
    expect(orderTerms(BOOK, [{ field: 'price', direction: 'desc' }])).to.deep.equal([
      { field: 'price', direction: 'desc' },
      { field: STORE_KEY, direction: 'desc' },
    ]);
    expect(orderTerms(BOOK, [{ field: 'id', direction: 'asc' }])).to.deep.equal([{ field: 'id', direction: 'asc' }]);
    expect(() => orderTerms(BOOK, [{ field: 'meta', direction: 'asc' }])).to.throw(TypeError, /holds JSON/);
  });

  it('expands "after" into a seek bound and a tuple comparison, nulls smallest', () => {
    const sort = [
      { field: 'price', direction: 'desc' as const },
      { field: 'id', direction: 'asc' as const },
    ];
    expect(afterCondition(BOOK, { sort, after: { values: [10, 5] } })).to.deep.equal(
      belowPriceThen({ op: 'gt', field: 'id', value: 5 }),
    );
    const asc = [
      { field: 'price', direction: 'asc' as const },
      { field: 'id', direction: 'asc' as const },
    ];
    expect(afterCondition(BOOK, { sort: asc, after: { values: [10, 5] } })).to.deep.include({ op: 'and' });
    expect(() => afterCondition(BOOK, { sort: asc, after: { values: [1] } })).to.throw(TypeError);
    expect(afterCondition(BOOK, { sort: asc })).to.equal(undefined);
  });

  it('with `inclusive`, takes the tuple itself: gte or lte on the last field, equal nulls', () => {
    const sort = [
      { field: 'price', direction: 'desc' as const },
      { field: 'id', direction: 'desc' as const },
    ];
    expect(afterCondition(BOOK, { sort, after: { values: [10, 5], inclusive: true } })).to.deep.equal(
      belowPriceThen({ op: 'lte', field: 'id', value: 5 }),
    );
    const price = [{ field: 'price', direction: 'asc' as const }];
    expect(afterCondition(BOOK, { sort: price, after: { values: [null], inclusive: true } })).to.deep.equal({
      op: 'or',
      conditions: [{ op: 'and', conditions: [{ op: 'and', conditions: [] }] }],
    });
    const down = [{ field: 'price', direction: 'desc' as const }];
    expect(afterCondition(BOOK, { sort: down, after: { values: [null], inclusive: true } })).to.deep.equal({
      op: 'or',
      conditions: [{ op: 'and', conditions: [{ op: 'exists', field: 'price', exists: false }] }],
    });
    expect(afterCondition(BOOK, { sort: down, after: { values: [null] } })).to.deep.equal({ op: 'or', conditions: [] });
  });
});
