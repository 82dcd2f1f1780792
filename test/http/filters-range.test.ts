/**
 * The range filter over real HTTP — lt, lte, gt, gte, between (both bounds included),
 * on numbers, integers and date-times, combined with AND; malformed values are ignored.
 * Fixture: test/fixtures/filters/filters.api (prices 9.5, 8, 12.25, 30, 5, 15, 16, 17, 18, 20).
 */
import { expect } from 'chai';
import { ALL, useSeeded, ids } from './filters-fixture.js';
import { get } from './harness.js';

describe('HTTP filters: range', () => {
  const server = useSeeded();

  const cases: [query: string, expected: number[]][] = [
    ['price[gt]=12.25', [4, 6, 7, 8, 9, 10]],
    ['price[gte]=12.25', [3, 4, 6, 7, 8, 9, 10]],
    ['price[lt]=8', [5]],
    ['price[lte]=8', [2, 5]],
    ['price[lt]=9.50', [2, 5]],
    ['price[gte]=-1', ALL],
    ['price[between]=8..12.25', [1, 2, 3]],
    ['price[between]=12.25..12.25', [3]],
    ['price[between]=12.25..8', []],
    ['price[between]=-5..5', [5]],
    ['price[gt]=8&price[lt]=12.25', [1]],
    ['price[between]=8..12.25&price[gt]=8', [1, 3]],
    ['price[gt]=100', []],
    ['pages[gte]=400', [1, 3, 4]],
    ['pages[lt]=100', [6, 7]],
    ['pages[between]=100..256', [2, 5, 8, 9, 10]],
    ['publishedAt[gt]=1969-01-01T00:00:00Z', [2, 3]],
    ['publishedAt[lte]=1969-10-15T10:00:00%2B00:00', [1, 2]],
    ['publishedAt[lt]=1969-10-15T12:00:00%2B02:00', [1]],
    ['publishedAt[between]=1965-08-01T00:00:00Z..1969-10-15T10:00:00Z', [1, 2]],
  ];
  for (const [query, expected] of cases) {
    it(`${decodeURIComponent(query)} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(expected);
    });
  }

  const malformed = [
    'price[gt]=abc',
    'price[gt]=',
    'price[gt]=12abc',
    'price[lt]=NaN',
    'price[lt]=Infinity',
    'price[between]=8..',
    'price[between]=..8',
    'price[between]=8',
    'price[between]=a..b',
    'price[between]=1..2..3',
    'price[foo]=3',
    'price[gt][x]=1',
    'pages[gt]=ten',
    'publishedAt[gt]=yesterday',
    'publishedAt[gt]=2024-13-45T00:00:00Z',
  ];
  for (const query of malformed) {
    it(`malformed: ${query} is ignored`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(ALL);
    });
  }

  it('numbers are read as PHP is_numeric() reads them: hexadecimal, binary, octal literals are malformed', async () => {
    for (const value of ['0x10', '0b101', '0o7', '1_000'])
      expect(await ids(server, `/books?price[gt]=${value}`), value).to.deep.equal(ALL);
    expect(await ids(server, '/books?price[gt]=1.7e1')).to.deep.equal([4, 9, 10]);
    expect(await ids(server, '/books?price[gt]=.5e2')).to.deep.equal([]);
  });

  it('a malformed bound leaves the valid ones in force', async () => {
    expect(await ids(server, '/books?price[gt]=abc&price[lt]=10')).to.deep.equal([1, 2, 5]);
    expect(await ids(server, '/books?price[between]=oops&pages[gte]=444')).to.deep.equal([3, 4]);
  });

  it('a property the range filter does not name is ignored', async () => {
    expect(await ids(server, '/books?subtitle[gt]=A')).to.deep.equal(ALL);
    expect(await ids(server, '/strategies/exact?price[gt]=12')).to.deep.equal(ALL);
  });

  it('malformed values are kept in the links', async () => {
    const r = await get(server.url, '/books?price[gt]=abc&itemsPerPage=4');
    expect(r.status).to.equal(200);
    expect(r.json.member).to.have.lengthOf(4);
    expect(r.json.view['@id']).to.equal('/books?itemsPerPage=4&price%5Bgt%5D=abc&page=1');
    expect(r.json.view.next).to.equal('/books?itemsPerPage=4&price%5Bgt%5D=abc&page=2');
  });
});
