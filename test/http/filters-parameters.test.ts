/**
 * Named `parameters` (one filter on one property each, GET /named) and unknown query
 * parameters, which filter nothing but stay in the links. Fixture: test/fixtures/filters/filters.api.
 */
import { expect } from 'chai';
import { ALL, useSeeded, ids } from './filters-fixture.js';
import { get } from './harness.js';

describe('HTTP filters: named parameters', () => {
  const server = useSeeded();

  const cases: [query: string, expected: number[]][] = [
    ['q=DUNE', [1, 2, 3, 4, 5]],
    ['q=pure', [6]],
    ['q=%25', [6]],
    ['cost[gt]=17', [4, 9, 10]],
    ['cost[between]=8..9.5', [1, 2]],
    ['cost[gte]=16&cost[lte]=18', [7, 8, 9]],
    ['sortByPrice=desc', [4, 10, 9, 8, 7, 6, 3, 1, 2, 5]],
    ['sortByPrice=ASC', [5, 2, 1, 3, 6, 7, 8, 9, 10, 4]],
    ['sortByTitle=asc', [6, 3, 5, 1, 2, 9, 8, 4, 7, 10]],
    ['hasSubtitle=true', [1, 5]],
    ['hasSubtitle=0', [2, 3, 4, 6, 7, 8, 9, 10]],
    ['inStock=false', [3, 4]],
    ['inStock=1', [1, 2]],
    ['published[after]=1970-01-01', [3]],
    ['published[strictly_before]=1965-08-01T00:00:01Z', [1]],
    ['writer=1', [1, 2, 3]],
    ['writer=/authors/2', [4]],
    ['q=dune&inStock=true', [1, 2]],
    ['q=dune&sortByPrice=desc', [4, 3, 1, 2, 5]],
  ];
  for (const [query, expected] of cases) {
    it(`${decodeURIComponent(query)} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/named?${query}`)).to.deep.equal(expected);
    });
  }

  for (const query of [
    'cost[gt]=abc',
    'cost=5',
    'inStock=maybe',
    'hasSubtitle=perhaps',
    'sortByPrice=sideways',
    'published[after]=never',
    'published=1970-01-01',
  ]) {
    it(`malformed: ${query} is ignored`, async () => {
      expect(await ids(server, `/named?${query}`)).to.deep.equal(ALL);
    });
  }

  it("the filters' own syntax does not apply where only named parameters are declared", async () => {
    for (const query of [
      'title=Dune',
      'price[gt]=10',
      'order[price]=desc',
      'exists[subtitle]=true',
      'available=true',
      'author=1',
    ]) {
      expect(await ids(server, `/named?${query}`), query).to.deep.equal(ALL);
    }
  });
});

describe('HTTP filters: unknown parameters', () => {
  const server = useSeeded();

  it('filter nothing and stay in the view, sorted by key', async () => {
    const r = await get(server.url, '/books?zeta=1&alpha=2&title=Dune');
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([1]);
    expect(r.json.totalItems).to.equal(1);
    expect(r.json.view).to.deep.equal({ '@id': '/books?alpha=2&title=Dune&zeta=1', '@type': 'PartialCollectionView' });
  });

  it('alone: every item, and a view naming them', async () => {
    const r = await get(server.url, '/books?foo=bar');
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal(ALL);
    expect(r.json.view['@id']).to.equal('/books?foo=bar');
  });

  it('are kept in every page link, encoded per RFC 3986', async () => {
    const r = await get(server.url, '/books?foo=a%20b&x[y]=1&itemsPerPage=4&page=2');
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([5, 6, 7, 8]);
    expect(r.json.view).to.deep.equal({
      '@id': '/books?foo=a%20b&itemsPerPage=4&x%5By%5D=1&page=2',
      '@type': 'PartialCollectionView',
      first: '/books?foo=a%20b&itemsPerPage=4&x%5By%5D=1&page=1',
      last: '/books?foo=a%20b&itemsPerPage=4&x%5By%5D=1&page=3',
      previous: '/books?foo=a%20b&itemsPerPage=4&x%5By%5D=1&page=1',
      next: '/books?foo=a%20b&itemsPerPage=4&x%5By%5D=1&page=3',
    });
  });

  it('a filter parameter of another listing is unknown here', async () => {
    const r = await get(server.url, '/strategies/exact?pages=412');
    expect(r.json.member).to.have.lengthOf(10);
    expect(r.json.view['@id']).to.equal('/strategies/exact?pages=412');
  });
});
