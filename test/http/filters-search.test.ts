/**
 * The search filter over real HTTP — every strategy and its case-insensitive variant,
 * arrays of values, literal text (`%`, `_`, `\` and regular-expression metacharacters match
 * themselves), other property types compared for equality, relations by IRI or by id.
 * Fixture: test/fixtures/filters/filters.api, useSeeded with test/fixtures/filters/seed.json.
 */
import { expect } from 'chai';
import { ALL, useSeeded, ids } from './filters-fixture.js';

describe('HTTP filters: search strategies', () => {
  const server = useSeeded();

  const cases: [strategy: string, value: string, expected: number[]][] = [
    ['exact', 'Dune', [1]],
    ['exact', 'dune', []],
    ['exact', 'Dun', []],
    ['iexact', 'dune', [1]],
    ['iexact', 'dUNES', [5]],
    ['iexact', 'épée', [10]],
    ['iexact', 'ÉPÉE', [10]],
    ['partial', 'Dune', [1, 2, 3]],
    ['partial', 'une', [1, 2, 3, 4]],
    ['ipartial', 'dune', [1, 2, 3, 4, 5]],
    ['ipartial', 'PÉ', [10]],
    ['start', 'Dune', [1, 2]],
    ['start', 'dune', []],
    ['istart', 'dune', [1, 2, 5]],
    ['istart', 'THE', [4]],
    ['end', 'Dune', [1, 3]],
    ['end', 'DUNE', []],
    ['iend', 'dune', [1, 3]],
    ['iend', 'UNES', [5]],
    ['word_start', 'Dun', [1, 2, 3]],
    ['word_start', 'dun', [4]],
    ['word_start', 'une', []],
    ['word_start', 'Mess', [2]],
    ['iword_start', 'dun', [1, 2, 3, 4, 5]],
    ['iword_start', 'ENCYC', [4]],
    ['iword_start', 'essiah', []],
  ];
  for (const [strategy, value, expected] of cases) {
    it(`${strategy}: title=${value} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/strategies/${strategy}?title=${encodeURIComponent(value)}`)).to.deep.equal(expected);
    });
  }

  it('an empty value: exact matches no title, partial matches every title (LIKE "%%", as API Platform)', async () => {
    expect(await ids(server, '/strategies/exact?title=')).to.deep.equal([]);
    expect(await ids(server, '/strategies/partial?title=')).to.deep.equal(ALL);
  });

  it('no value at all: the filter does nothing', async () => {
    expect(await ids(server, '/strategies/exact')).to.deep.equal(ALL);
  });
});

describe('HTTP filters: search with several values (title[]=…)', () => {
  const server = useSeeded();

  it('exact: any of the values', async () => {
    expect(await ids(server, '/strategies/exact?title[]=Dune&title[]=DUNES')).to.deep.equal([1, 5]);
    expect(
      await ids(
        server,
        `/strategies/exact?${encodeURIComponent('title[]')}=Dune&${encodeURIComponent('title[]')}=Nothing`,
      ),
    ).to.deep.equal([1]);
  });

  it('iexact, partial, ipartial, start, end, word_start: any of the values', async () => {
    expect(await ids(server, '/strategies/iexact?title[]=dune&title[]=dunes')).to.deep.equal([1, 5]);
    expect(await ids(server, '/strategies/partial?title[]=Messiah&title[]=Children')).to.deep.equal([2, 3]);
    expect(await ids(server, '/strategies/ipartial?title[]=MESSIAH&title[]=pure')).to.deep.equal([2, 6]);
    expect(await ids(server, '/strategies/start?title[]=Children&title[]=DUNES')).to.deep.equal([3, 5]);
    expect(await ids(server, '/strategies/end?title[]=Messiah&title[]=Pure')).to.deep.equal([2, 6]);
    expect(await ids(server, '/strategies/word_start?title[]=Mess&title[]=encyc')).to.deep.equal([2, 4]);
  });

  it('indexed keys (title[0]=…&title[1]=…) are read as the same list', async () => {
    expect(await ids(server, '/strategies/exact?title[0]=Dune&title[1]=DUNES')).to.deep.equal([1, 5]);
  });

  it('repeated plain keys (title=a&title=b) are read as a list too', async () => {
    expect(await ids(server, '/strategies/exact?title=Dune&title=DUNES')).to.deep.equal([1, 5]);
  });
});

describe('HTTP filters: search input is literal text, never a pattern', () => {
  const server = useSeeded();

  const literal: [strategy: string, value: string, expected: number[]][] = [
    ['partial', '%', [6]],
    ['partial', '100%', [6]],
    ['partial', '_', [7]],
    ['partial', 'under_', [7]],
    ['partial', 'D_ne', []],
    ['partial', 'D%e', []],
    ['exact', '%', []],
    ['start', '%', []],
    ['start', '_', []],
    ['ipartial', '%', [6]],
    ['partial', '\\', [8]],
    ['exact', 'back\\slash', [8]],
    ['partial', '\\s', [8]],
    ['partial', '.', [9]],
    ['partial', '.*', []],
    ['partial', 'b*c', [9]],
    ['partial', '+d?', [9]],
    ['partial', '(e)', [9]],
    ['partial', '[f]', [9]],
    ['partial', '{g}', [9]],
    ['partial', '|h^$', [9]],
    ['end', '$', [9]],
    ['start', '^', []],
    ['istart', 'A.B*C', [9]],
    ['word_start', '(e', []],
    ['exact', 'a.b*c+d?(e)[f]{g}|h^$', [9]],
    ['iexact', 'A.B*C+D?(E)[F]{G}|H^$', [9]],
    ['partial', "'", []],
    ['partial', '"', []],
  ];
  for (const [strategy, value, expected] of literal) {
    it(`${strategy}: title=${value} matches ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/strategies/${strategy}?title=${encodeURIComponent(value)}`)).to.deep.equal(expected);
    });
  }
});

describe('HTTP filters: search on other types and on relations', () => {
  const server = useSeeded();

  it('a string property with the exact strategy (isbn)', async () => {
    expect(await ids(server, '/books?isbn=978-0441013593')).to.deep.equal([1]);
    expect(await ids(server, '/books?isbn=978')).to.deep.equal([]);
  });

  it('an int property: equality with the typed value', async () => {
    expect(await ids(server, '/books?pages=412')).to.deep.equal([1]);
    expect(await ids(server, '/books?pages[]=412&pages[]=256')).to.deep.equal([1, 2]);
    expect(await ids(server, '/books?pages=10')).to.deep.equal([6, 7]);
  });

  it('a number property under the partial strategy is still compared for equality', async () => {
    expect(await ids(server, '/books?price=9.5')).to.deep.equal([1]);
    expect(await ids(server, '/books?price=9')).to.deep.equal([]);
    expect(await ids(server, '/books?price=12.25')).to.deep.equal([3]);
  });

  it('a relation by IRI', async () => {
    expect(await ids(server, '/books?author=/authors/1')).to.deep.equal([1, 2, 3]);
    expect(await ids(server, `/books?author=${encodeURIComponent('/authors/2')}`)).to.deep.equal([4]);
  });

  it('a relation by identifier', async () => {
    expect(await ids(server, '/books?author=1')).to.deep.equal([1, 2, 3]);
    expect(await ids(server, '/books?author=2')).to.deep.equal([4]);
  });

  it('a relation by several IRIs and ids mixed', async () => {
    expect(await ids(server, '/books?author[]=/authors/2&author[]=1')).to.deep.equal([1, 2, 3, 4]);
  });

  it('a relation that names nothing matches nothing', async () => {
    expect(await ids(server, '/books?author=/authors/999')).to.deep.equal([]);
    expect(await ids(server, '/books?author=999')).to.deep.equal([]);
    expect(await ids(server, '/books?author=/books/1')).to.deep.equal([]);
  });

  it('a value that is not an int (pages=abc) is ignored', async () => {
    expect(await ids(server, '/books?pages=abc')).to.deep.equal(ALL);
    expect(await ids(server, '/books?price=abc')).to.deep.equal(ALL);
  });

  it('filters combine with AND', async () => {
    expect(await ids(server, '/books?author=1&pages=256')).to.deep.equal([2]);
    expect(await ids(server, '/books?author=1&title=Dune')).to.deep.equal([1]);
  });

  it('a property no filter names is ignored (subtitle is not searchable)', async () => {
    expect(await ids(server, '/books?subtitle=Sand')).to.deep.equal(ALL);
  });

  it('the filter applies to the listing that declares it only', async () => {
    expect(await ids(server, '/strategies/partial?isbn=978-0441013593')).to.deep.equal(ALL);
  });
});
