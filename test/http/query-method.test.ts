/**
 * The QUERY method over real HTTP (docs/behaviour.md, "Filters and QUERY"): criteria in a JSON
 * or form body, through the operation's filters and named parameters; Content-Type required even
 * for an empty body (415 with Accept-Query otherwise), 400 for invalid JSON or a body that is not
 * an object, pagination from the URL only, never a write, and the same collection as the
 * equivalent GET. Fixture: test/fixtures/filters/filters.api.
 */
import { expect } from 'chai';
import { ALL, useSeeded } from './filters-fixture.js';
import { get, PROBLEM_JSON, request, type HttpResponse, type RunningServer } from './harness.js';

const ACCEPT_QUERY = 'application/x-www-form-urlencoded, application/json';
const JSON_TYPE = { 'Content-Type': 'application/json' };
const FORM_TYPE = { 'Content-Type': 'application/x-www-form-urlencoded' };

const query = (
  server: RunningServer,
  body: unknown,
  headers: Record<string, string> = JSON_TYPE,
  path = '/books',
): Promise<HttpResponse> =>
  request(server.url, 'QUERY', path, {
    body: typeof body === 'string' || body === undefined ? body : JSON.stringify(body),
    headers,
  });

async function queried(
  server: RunningServer,
  body: unknown,
  headers: Record<string, string> = JSON_TYPE,
  path = '/books',
): Promise<number[]> {
  const r = await query(server, body, headers, path);
  expect(r.status, r.text).to.equal(200);
  return r.json.member.map((m: { id: number }) => m.id);
}

describe('HTTP QUERY: criteria in a JSON body', () => {
  const server = useSeeded();

  const cases: [body: Record<string, unknown>, expected: number[]][] = [
    [{ title: 'Dune' }, [1]],
    [{ title: ['Dune', 'DUNES'] }, [1, 5]],
    [{ q: 'dune' }, [1, 2, 3, 4, 5]],
    [{ q: '%' }, [6]],
    [{ price: { gte: 15 } }, [4, 6, 7, 8, 9, 10]],
    [{ price: { between: '8..12.25' } }, [1, 2, 3]],
    [{ pages: 412 }, [1]],
    [{ cost: { lt: 8.5 } }, [2, 5]],
    [{ order: { price: 'desc' } }, [4, 10, 9, 8, 7, 6, 3, 1, 2, 5]],
    [{ order: { pages: 'asc', title: 'desc' } }, [7, 6, 5, 10, 8, 9, 2, 1, 3, 4]],
    [{ sortByPrice: 'asc' }, [5, 2, 1, 3, 6, 7, 8, 9, 10, 4]],
    [{ exists: { subtitle: true } }, [1, 5]],
    [{ exists: { publishedAt: false } }, [4, 5, 6, 7, 8, 9, 10]],
    [{ hasSubtitle: false }, [2, 3, 4, 6, 7, 8, 9, 10]],
    [{ available: false }, [3, 4]],
    [{ available: 'true' }, [1, 2]],
    [{ inStock: true }, [1, 2]],
    [{ author: '/authors/1' }, [1, 2, 3]],
    [{ author: 2 }, [4]],
    [{ author: ['/authors/2', 1] }, [1, 2, 3, 4]],
    [{ publishedAt: { after: '1969-01-01' } }, [2, 3]],
    [{ publishedAt: { strictly_before: '1969-10-15T10:00:00Z' } }, [1]],
    [{ q: 'dune', available: true, order: { price: 'desc' } }, [1, 2]],
    [{}, ALL],
  ];
  for (const [body, expected] of cases) {
    it(`${JSON.stringify(body)} → ${JSON.stringify(expected)}`, async () => {
      expect(await queried(server, body)).to.deep.equal(expected);
    });
  }

  it('ignores unknown and malformed criteria, as GET does', async () => {
    expect(await queried(server, { foo: 'bar' })).to.deep.equal(ALL);
    expect(await queried(server, { price: { gt: 'abc' } })).to.deep.equal(ALL);
    expect(await queried(server, { title: { nested: 'Dune' } })).to.deep.equal(ALL);
    expect(await queried(server, { available: 'maybe' })).to.deep.equal(ALL);
    expect(await queried(server, { order: { price: 'sideways' } })).to.deep.equal(ALL);
    expect(await queried(server, { publishedAt: { after: 'never' } })).to.deep.equal(ALL);
  });

  it('accepts any JSON media type, with parameters', async () => {
    for (const type of [
      'application/ld+json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/merge-patch+json',
    ]) {
      expect(await queried(server, { title: 'Dune' }, { 'Content-Type': type }), type).to.deep.equal([1]);
    }
  });

  it('an empty body with a JSON Content-Type: no criteria', async () => {
    expect(await queried(server, '', JSON_TYPE)).to.deep.equal(ALL);
    expect(await queried(server, '  \n', JSON_TYPE)).to.deep.equal(ALL);
  });

  it('answers the collection document in the negotiated format', async () => {
    const r = await query(server, { title: 'Dune' }, { ...JSON_TYPE, Accept: 'application/json' });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(r.json).to.be.an('array');
    expect(r.json.map((m: { id: number }) => m.id)).to.deep.equal([1]);
  });
});

describe('HTTP QUERY: criteria in a form body', () => {
  const server = useSeeded();

  const cases: [body: string, expected: number[]][] = [
    ['title=Dune', [1]],
    ['title[]=Dune&title[]=DUNES', [1, 5]],
    ['title=Dune&title=DUNES', [1, 5]],
    ['price[gte]=15&order[price]=desc', [4, 10, 9, 8, 7, 6]],
    ['price%5Bgte%5D=15&order%5Bprice%5D=desc', [4, 10, 9, 8, 7, 6]],
    ['q=dune&inStock=1', [1, 2]],
    ['q=100%25', [6]],
    ['q=under_', [7]],
    ['exists[subtitle]=1', [1, 5]],
    ['author=%2Fauthors%2F1', [1, 2, 3]],
    ['cost[between]=8..9.5', [1, 2]],
    ['publishedAt[before]=1969-10-15', [1]],
    ['', ALL],
    ['foo=bar', ALL],
  ];
  for (const [body, expected] of cases) {
    it(`${JSON.stringify(body)} → ${JSON.stringify(expected)}`, async () => {
      expect(await queried(server, body, FORM_TYPE)).to.deep.equal(expected);
    });
  }

  it('accepts the form type with a charset', async () => {
    expect(
      await queried(server, 'title=Dune', { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' }),
    ).to.deep.equal([1]);
  });
});

describe('HTTP QUERY: refused bodies', () => {
  const server = useSeeded();

  const expect415 = (r: HttpResponse, type: string): void => {
    expect(r.status, r.text).to.equal(415);
    expect(r.headers.get('accept-query')).to.equal(ACCEPT_QUERY);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json.detail).to.equal(
      `The content type "${type}" is not supported for the HTTP QUERY method. Use "application/x-www-form-urlencoded" or a JSON-based media type.`,
    );
    expect(r.json.status).to.equal(415);
  };

  it('no Content-Type and an empty body: 415 with Accept-Query', async () => {
    expect415(await request(server.url, 'QUERY', '/books'), 'none');
    expect415(await request(server.url, 'QUERY', '/books', { body: '' }), 'none');
  });

  it('no Content-Type and a JSON body: 415 with Accept-Query', async () => {
    expect415(await request(server.url, 'QUERY', '/books', { body: '{"title":"Dune"}' }), 'none');
  });

  it('another media type: 415 with Accept-Query', async () => {
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data', 'application/jsonx', 'text/json-seq']) {
      expect415(await query(server, '{"title":"Dune"}', { 'Content-Type': type }), type);
    }
  });

  it('the 415 comes before the body is read or any filter applies, whatever the Accept', async () => {
    const r = await query(server, 'not even json', { 'Content-Type': 'text/plain', Accept: 'application/json' });
    expect(r.status).to.equal(415);
    expect(r.json).to.deep.equal({
      type: '/errors/415',
      title: 'An error occurred',
      status: 415,
      detail:
        'The content type "text/plain" is not supported for the HTTP QUERY method. Use "application/x-www-form-urlencoded" or a JSON-based media type.',
    });
  });

  it('invalid JSON: 400 "The QUERY request body is not valid JSON."', async () => {
    for (const body of ['{', '{"title": }', "{'title': 'Dune'}", 'title=Dune', '{"a":1}}']) {
      const r = await query(server, body, JSON_TYPE);
      expect(r.status, body).to.equal(400);
      expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(r.json.detail, body).to.equal('The QUERY request body is not valid JSON.');
    }
  });

  it('a JSON value that is not an object: 400 "The QUERY request body must decode to a JSON object."', async () => {
    for (const body of ['[]', '[{"title":"Dune"}]', '"Dune"', '42', 'null', 'true']) {
      const r = await query(server, body, JSON_TYPE);
      expect(r.status, body).to.equal(400);
      expect(r.json.detail, body).to.equal('The QUERY request body must decode to a JSON object.');
    }
  });

  it('QUERY on a path without a QUERY operation: 405 listing the allowed methods', async () => {
    const r = await query(server, {}, JSON_TYPE, '/books/1');
    expect(r.status).to.equal(405);
    expect(r.headers.get('allow')).to.not.include('QUERY');
  });
});

describe('HTTP QUERY: pagination from the URL, no writes, the same collection as GET', () => {
  const server = useSeeded();

  it('reads page and itemsPerPage from the URL', async () => {
    const r = await request(server.url, 'QUERY', '/books?itemsPerPage=3&page=2', {
      body: JSON.stringify({ q: 'e' }),
      headers: JSON_TYPE,
    });
    expect(r.status, r.text).to.equal(200);
    // Titles with an "e", any case: 1, 2, 3, 4, 5, 6, 7, 9, 10.
    expect(r.json.totalItems).to.equal(9);
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([4, 5, 6]);
    expect(r.json.view).to.deep.equal({
      '@id': '/books?itemsPerPage=3&page=2',
      '@type': 'PartialCollectionView',
      first: '/books?itemsPerPage=3&page=1',
      last: '/books?itemsPerPage=3&page=3',
      previous: '/books?itemsPerPage=3&page=1',
      next: '/books?itemsPerPage=3&page=3',
    });
  });

  it('ignores pagination parameters in the body', async () => {
    const r = await query(server, { page: 2, itemsPerPage: 3, pagination: false });
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(10);
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal(ALL);
    expect(r.json).to.not.have.property('view');
  });

  it('?pagination=false in the URL lists everything; the same in a form body does nothing', async () => {
    const r = await request(server.url, 'QUERY', '/books?pagination=false&itemsPerPage=2', {
      body: 'available=1',
      headers: FORM_TYPE,
    });
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([1, 2]);
    const s = await request(server.url, 'QUERY', '/books?itemsPerPage=2', {
      body: 'pagination=false',
      headers: FORM_TYPE,
    });
    expect(s.json.member.map((m: { id: number }) => m.id)).to.deep.equal([1, 2]);
    expect(s.json.view.next).to.equal('/books?itemsPerPage=2&page=2');
  });

  it('invalid pagination in the URL: 400, as for GET', async () => {
    const r = await request(server.url, 'QUERY', '/books?page=0', { body: '{}', headers: JSON_TYPE });
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Page should not be less than 1');
  });

  it('never writes, whatever the body holds', async () => {
    const before = await get(server.url, '/books/1');
    for (const body of [
      { title: 'Changed', id: 1 },
      { '@id': '/books/1', title: 'Changed' },
      { id: 99, title: 'New' },
    ]) {
      const r = await query(server, body);
      expect(r.status).to.equal(200);
      expect(r.headers.get('location')).to.equal(null);
    }
    await query(server, 'title=Changed&id=1', FORM_TYPE);
    const after = await get(server.url, '/books/1');
    expect(after.json).to.deep.equal(before.json);
    const all = await get(server.url, '/books');
    expect(all.json.totalItems).to.equal(10);
    expect(all.json.member.map((m: { title: string }) => m.title)).to.not.include('New');
  });

  const comparable = (doc: Record<string, unknown>): Record<string, unknown> => {
    // The view names the request's own URL and the search template the operation's own variables.
    const { view: _view, search: _search, ...rest } = doc;
    return rest;
  };

  it('answers the same collection as the equivalent GET (JSON-LD)', async () => {
    const pairs: [string, Record<string, unknown>][] = [
      ['', {}],
      ['title=Dune', { title: 'Dune' }],
      ['price[gte]=15&order[price]=desc', { price: { gte: 15 }, order: { price: 'desc' } }],
      ['author=1&available=false', { author: '1', available: 'false' }],
      ['exists[subtitle]=true', { exists: { subtitle: 'true' } }],
      ['publishedAt[after]=1969-01-01', { publishedAt: { after: '1969-01-01' } }],
    ];
    for (const [url, body] of pairs) {
      const g = await get(server.url, `/books${url ? `?${url}` : ''}`);
      const q = await query(server, body);
      expect(q.status).to.equal(200);
      expect(q.headers.get('content-type')).to.equal(g.headers.get('content-type'));
      expect(comparable(q.json), url).to.deep.equal(comparable(g.json));
      const f = await query(server, url, FORM_TYPE);
      expect(comparable(f.json), `form ${url}`).to.deep.equal(comparable(g.json));
    }
  });

  it('answers the same collection as the equivalent GET (JSON)', async () => {
    const g = await get(server.url, '/books?title[]=Dune&title[]=DUNES', { Accept: 'application/json' });
    const q = await query(server, { title: ['Dune', 'DUNES'] }, { ...JSON_TYPE, Accept: 'application/json' });
    expect(q.json).to.deep.equal(g.json);
    expect(q.json.map((m: { id: number }) => m.id)).to.deep.equal([1, 5]);
  });

  it('a named parameter answers as the GET listing with the same parameter', async () => {
    const g = await get(server.url, '/named?q=dune&cost[lt]=10&sortByPrice=desc');
    const q = await query(server, { q: 'dune', cost: { lt: 10 }, sortByPrice: 'desc' });
    expect(q.json.member).to.deep.equal(g.json.member);
    expect(q.json.member.map((m: { id: number }) => m.id)).to.deep.equal([1, 2, 5]);
  });
});
