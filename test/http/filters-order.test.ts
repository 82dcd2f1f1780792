/**
 * The order filter over real HTTP — directions in either case, several keys whose order
 * in the URL sets their priority, the per-property default direction for an empty value, invalid
 * directions and unknown properties ignored, nulls sorted as the smallest values, and links that
 * keep the order. Fixture: test/fixtures/filters/filters.api.
 */
import { expect } from 'chai';
import { ALL, useSeeded, ids } from './filters-fixture.js';
import { get } from './harness.js';

// By title, binary order: 'Épée' > 'under_score' > 'the dune…' > 'back\slash' > 'a.b*c…' > 'Dune Messiah' > 'Dune' > 'DUNES' > 'Children…' > '100% Pure'.
const TITLE_DESC = [10, 7, 4, 8, 9, 2, 1, 5, 3, 6];

describe('HTTP filters: order', () => {
  const server = useSeeded();

  const cases: [query: string, expected: number[]][] = [
    ['order[price]=asc', [5, 2, 1, 3, 6, 7, 8, 9, 10, 4]],
    ['order[price]=desc', [4, 10, 9, 8, 7, 6, 3, 1, 2, 5]],
    ['order[price]=DESC', [4, 10, 9, 8, 7, 6, 3, 1, 2, 5]],
    ['order[price]=Asc', [5, 2, 1, 3, 6, 7, 8, 9, 10, 4]],
    ['order[id]=desc', [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]],
    ['order[title]=desc', TITLE_DESC],
    ['order[title]=asc', [...TITLE_DESC].reverse()],
    // Ties keep the default order (identifier ascending).
    ['order[pages]=asc', [6, 7, 5, 8, 9, 10, 2, 1, 3, 4]],
    ['order[pages]=desc', [4, 3, 1, 2, 8, 9, 10, 5, 6, 7]],
    // Priority: the first key sorts first.
    ['order[pages]=asc&order[title]=desc', [7, 6, 5, 10, 8, 9, 2, 1, 3, 4]],
    ['order[title]=desc&order[pages]=asc', TITLE_DESC],
    ['order[pages]=desc&order[id]=desc', [4, 3, 1, 2, 10, 9, 8, 5, 7, 6]],
    ['order[id]=desc&order[pages]=desc', [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]],
    // Nulls are the smallest values.
    ['order[publishedAt]=asc', [4, 5, 6, 7, 8, 9, 10, 1, 2, 3]],
    ['order[publishedAt]=desc', [3, 2, 1, 4, 5, 6, 7, 8, 9, 10]],
    // With other filters.
    ['author=1&order[price]=desc', [3, 1, 2]],
    ['price[gte]=15&order[pages]=desc&order[price]=desc', [4, 10, 9, 8, 7, 6]],
  ];
  for (const [query, expected] of cases) {
    it(`${query} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(expected);
    });
  }

  const ignored = [
    'order[price]=sideways',
    'order[price]=',
    'order[price]=ascending',
    'order[price][]=desc',
    'order[unknown]=desc',
    'order[subtitle]=desc',
    'order=price',
    'order[]=price',
  ];
  for (const query of ignored) {
    it(`ignored: ${query}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(ALL);
    });
  }

  it('an invalid direction next to a valid one: the valid one sorts', async () => {
    expect(await ids(server, '/books?order[title]=sideways&order[price]=asc')).to.deep.equal([
      5, 2, 1, 3, 6, 7, 8, 9, 10, 4,
    ]);
  });

  it('the listing without the order filter ignores order[…]', async () => {
    expect(await ids(server, '/strategies/exact?order[id]=desc')).to.deep.equal(ALL);
  });

  it('links keep the order, and the next page goes on in it', async () => {
    const first = await get(server.url, '/books?order[price]=desc&itemsPerPage=3');
    expect(first.json.member.map((m: { id: number }) => m.id)).to.deep.equal([4, 10, 9]);
    expect(first.json.view.next).to.equal('/books?itemsPerPage=3&order%5Bprice%5D=desc&page=2');
    expect(await ids(server, first.json.view.next)).to.deep.equal([8, 7, 6]);
    expect(first.json.view.last).to.equal('/books?itemsPerPage=3&order%5Bprice%5D=desc&page=4');
    expect(await ids(server, first.json.view.last)).to.deep.equal([5]);
  });
});

describe('HTTP filters: order with default directions ({ title: "DESC", price: "ASC" })', () => {
  const server = useSeeded();

  it('an empty value takes the default direction', async () => {
    expect(await ids(server, '/ordered-with-defaults?order[title]=')).to.deep.equal(TITLE_DESC);
    expect(await ids(server, '/ordered-with-defaults?order[price]=')).to.deep.equal([5, 2, 1, 3, 6, 7, 8, 9, 10, 4]);
  });

  it('an explicit direction wins over the default', async () => {
    expect(await ids(server, '/ordered-with-defaults?order[title]=asc')).to.deep.equal([...TITLE_DESC].reverse());
    expect(await ids(server, '/ordered-with-defaults?order[price]=desc')).to.deep.equal([
      4, 10, 9, 8, 7, 6, 3, 1, 2, 5,
    ]);
  });

  it('no order parameter: the default directions do not sort by themselves', async () => {
    expect(await ids(server, '/ordered-with-defaults')).to.deep.equal(ALL);
  });

  it('an invalid direction is ignored, not replaced by the default one', async () => {
    expect(await ids(server, '/ordered-with-defaults?order[title]=sideways')).to.deep.equal(ALL);
  });
});
