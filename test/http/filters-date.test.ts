/**
 * The date filter over real HTTP — after and before (inclusive), strictly_after and
 * strictly_before, dates and date-times with offsets, date properties, and each null strategy
 * (exclude_null, include_null_before, include_null_after, include_null_before_and_after);
 * malformed dates are ignored. Fixture: test/fixtures/filters/filters.api (publishedAt: book 1
 * 1965-08-01T00:00Z, book 2 1969-10-15T10:00Z, book 3 1976-04-01T00:00Z, the others none).
 */
import { expect } from 'chai';
import { ALL, useSeeded, ids } from './filters-fixture.js';

const NULLS = [4, 5, 6, 7, 8, 9, 10];

describe('HTTP filters: date (exclude_null)', () => {
  const server = useSeeded();

  const cases: [query: string, expected: number[]][] = [
    ['publishedAt[after]=1969-10-15T10:00:00Z', [2, 3]],
    ['publishedAt[strictly_after]=1969-10-15T10:00:00Z', [3]],
    ['publishedAt[before]=1969-10-15T10:00:00Z', [1, 2]],
    ['publishedAt[strictly_before]=1969-10-15T10:00:00Z', [1]],
    // A date alone is midnight UTC.
    ['publishedAt[after]=1969-10-15', [2, 3]],
    ['publishedAt[before]=1969-10-15', [1]],
    ['publishedAt[before]=1965-08-01', [1]],
    ['publishedAt[strictly_before]=1965-08-01', []],
    // Offsets are read: 12:00+02:00 is 10:00Z.
    ['publishedAt[after]=1969-10-15T12:00:00%2B02:00', [2, 3]],
    ['publishedAt[strictly_after]=1969-10-15T12:00:00%2B02:00', [3]],
    ['publishedAt[after]=1966-01-01&publishedAt[before]=1970-01-01', [2]],
    ['publishedAt[after]=1970-01-01&publishedAt[before]=1966-01-01', []],
    // A date property.
    ['releasedOn[after]=1969-10-15', [2]],
    ['releasedOn[strictly_after]=1969-10-15', []],
    ['releasedOn[before]=1969-10-15', [1, 2]],
    ['releasedOn[strictly_before]=1969-10-15', [1]],
    ['releasedOn[before]=1969-10-15T23:59:59Z', [1, 2]],
  ];
  for (const [query, expected] of cases) {
    it(`${decodeURIComponent(query)} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(expected);
    });
  }

  const malformed = [
    'publishedAt[after]=notadate',
    'publishedAt[after]=',
    'publishedAt[after]=2024-02-30',
    'publishedAt[after]=1969-13-01',
    'publishedAt[after]=1969-10-15T25:00:00Z',
    'publishedAt[after][]=1969-10-15',
    'publishedAt[yesterday]=1969-10-15',
    'publishedAt=1969-10-15',
    'releasedOn[before]=soon',
  ];
  for (const query of malformed) {
    it(`malformed: ${query} is ignored`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(ALL);
    });
  }

  it('a malformed bound leaves the valid one in force', async () => {
    expect(await ids(server, '/books?publishedAt[after]=nope&publishedAt[before]=1966-01-01')).to.deep.equal([1]);
  });
});

describe('HTTP filters: date null strategies', () => {
  const server = useSeeded();

  const table: [path: string, before: number[], after: number[], both: number[]][] = [
    ['/books', [1], [2, 3], [2]],
    ['/dates/include_null_before', [1, ...NULLS], [2, 3], [2]],
    ['/dates/include_null_after', [1], [2, 3, ...NULLS], [2]],
    ['/dates/include_null_before_and_after', [1, ...NULLS], [2, 3, ...NULLS], [2, ...NULLS]],
  ];
  for (const [path, beforeIds, afterIds, both] of table) {
    const name = path === '/books' ? 'exclude_null' : path.split('/').pop();
    it(`${name}: before and strictly_before`, async () => {
      expect(await ids(server, `${path}?publishedAt[before]=1966-01-01`)).to.deep.equal(beforeIds);
      expect(await ids(server, `${path}?publishedAt[strictly_before]=1966-01-01`)).to.deep.equal(beforeIds);
    });
    it(`${name}: after and strictly_after`, async () => {
      expect(await ids(server, `${path}?publishedAt[after]=1966-01-01`)).to.deep.equal(afterIds);
      expect(await ids(server, `${path}?publishedAt[strictly_after]=1966-01-01`)).to.deep.equal(afterIds);
    });
    it(`${name}: after and before together`, async () => {
      expect(await ids(server, `${path}?publishedAt[after]=1966-01-01&publishedAt[before]=1970-01-01`)).to.deep.equal(
        both,
      );
    });
    it(`${name}: no bound, no filtering`, async () => {
      expect(await ids(server, path)).to.deep.equal(ALL);
    });
  }
});
