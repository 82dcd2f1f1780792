/**
 * The exists and boolean filters over real HTTP, and the exists parameter under the name
 * `collection.exists_parameter_name` gives it (test/fixtures/filters/renamed.api: `has`, with the
 * order parameter renamed `sort`). Fixture: test/fixtures/filters/filters.api.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { ALL, useSeeded, ids } from './filters-fixture.js';
import { get, request, useServer } from './harness.js';

describe('HTTP filters: exists', () => {
  const server = useSeeded();

  const cases: [query: string, expected: number[]][] = [
    ['exists[subtitle]=true', [1, 5]],
    ['exists[subtitle]=1', [1, 5]],
    ['exists[subtitle]=false', [2, 3, 4, 6, 7, 8, 9, 10]],
    ['exists[subtitle]=0', [2, 3, 4, 6, 7, 8, 9, 10]],
    ['exists[publishedAt]=true', [1, 2, 3]],
    ['exists[publishedAt]=false', [4, 5, 6, 7, 8, 9, 10]],
    ['exists[author]=true', [1, 2, 3, 4]],
    ['exists[author]=false', [5, 6, 7, 8, 9, 10]],
    ['exists[subtitle]=false&exists[author]=true', [2, 3, 4]],
    ['exists[publishedAt]=true&exists[subtitle]=true', [1]],
  ];
  for (const [query, expected] of cases) {
    it(`${query} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(expected);
    });
  }

  for (const query of [
    'exists[subtitle]=maybe',
    'exists[subtitle]=',
    'exists[subtitle][]=true',
    'exists[isbn]=true',
    'exists[nothing]=true',
    'exists=subtitle',
    'has[subtitle]=true',
  ]) {
    it(`ignored: ${query}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(ALL);
    });
  }

  it('a property cleared by PATCH no longer exists', async () => {
    const r = await request(server.url, 'PATCH', '/books/5', {
      body: { subtitle: null },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(await ids(server, '/books?exists[subtitle]=true')).to.deep.equal([1]);
    const back = await request(server.url, 'PATCH', '/books/5', {
      body: { subtitle: 'Sand' },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(back.status, back.text).to.equal(200);
  });
});

describe('HTTP filters: exists and order under renamed parameters (has, sort)', () => {
  const server = useServer(fromRoot('test/fixtures/filters/renamed.api'));
  before(async () => {
    for (const book of [{ title: 'B', subtitle: 'one' }, { title: 'C' }, { title: 'A', subtitle: 'three' }]) {
      const r = await request(server.url, 'POST', '/books', { body: book });
      if (r.status !== 201) throw new Error(`POST /books answered ${r.status}: ${r.text}`);
    }
  });

  it('has[subtitle]=true|false filters', async () => {
    expect(await ids(server, '/books?has[subtitle]=true')).to.deep.equal([1, 3]);
    expect(await ids(server, '/books?has[subtitle]=0')).to.deep.equal([2]);
  });

  it('exists[subtitle] is an ordinary, ignored parameter, kept in the links', async () => {
    const r = await get(server.url, '/books?exists[subtitle]=true');
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([1, 2, 3]);
    expect(r.json.view['@id']).to.equal('/books?exists%5Bsubtitle%5D=true');
  });

  it('sort[title]=asc sorts; order[title] is ignored', async () => {
    expect(await ids(server, '/books?sort[title]=asc')).to.deep.equal([3, 1, 2]);
    expect(await ids(server, '/books?order[title]=asc')).to.deep.equal([1, 2, 3]);
  });

  it('has and sort together, and in the links', async () => {
    const r = await get(server.url, '/books?has[subtitle]=true&sort[title]=asc');
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([3, 1]);
    expect(r.json.view['@id']).to.equal('/books?has%5Bsubtitle%5D=true&sort%5Btitle%5D=asc');
  });
});

describe('HTTP filters: boolean', () => {
  const server = useSeeded();

  const cases: [query: string, expected: number[]][] = [
    ['available=true', [1, 2]],
    ['available=1', [1, 2]],
    ['available=false', [3, 4]],
    ['available=0', [3, 4]],
    ['available=true&author=1', [1, 2]],
    ['available=false&author=1', [3]],
  ];
  for (const [query, expected] of cases) {
    it(`${query} → ${JSON.stringify(expected)}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(expected);
    });
  }

  for (const query of ['available=maybe', 'available=', 'available=2', 'available[]=true', 'available[x]=1']) {
    it(`ignored: ${query}`, async () => {
      expect(await ids(server, `/books?${query}`)).to.deep.equal(ALL);
    });
  }

  it('items without the property match neither true nor false', async () => {
    const yes = await ids(server, '/books?available=true');
    const no = await ids(server, '/books?available=false');
    expect([...yes, ...no].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4]);
  });
});
