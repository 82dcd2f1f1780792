/**
 * The documentation routes over real HTTP — `/docs.json` (OpenAPI 3.2, or 3.1 with
 * `?spec_version=3.1`), `/docs` by Accept (HTML, OpenAPI, Hydra), the HTML reference's assets
 * served from node_modules with no other host involved — and live responses that match the
 * schemas the document gives them, parameters that match the Hydra search template.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { hyperjump, ResponseChecker, responsePointer, seriousme } from '../openapi/validators.js';
import { apiDocLink, bookstore, get, PROBLEM_JSON, request, useServer } from './harness.js';

type Any = any;

const OPENAPI = 'application/vnd.openapi+json';

describe('HTTP docs: /docs.json and /docs', () => {
  const server = useServer(bookstore());

  it('GET /docs.json: the OpenAPI 3.2 document, valid, with the usual headers', async () => {
    const r = await get(server.url, '/docs.json');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(r.headers.get('link')).to.equal(apiDocLink(server.url));
    expect(r.headers.get('vary')).to.equal('Accept, Origin');
    expect(r.json.openapi).to.equal('3.2.0');
    expect(r.json.info.title).to.equal('Bookstore');
    expect(r.json.paths['/books'].query.operationId).to.equal('api_books_query');
    expect((await seriousme(r.json)).valid).to.equal(true);
    expect((await hyperjump(r.json)).valid).to.equal(true);
  });

  it('GET /docs.json?spec_version=3.1: the 3.1 document, QUERY left out and listed', async () => {
    const r = await get(server.url, '/docs.json?spec_version=3.1');
    expect(r.status).to.equal(200);
    expect(r.json.openapi).to.equal('3.1.1');
    expect(r.json.paths['/books']).to.not.have.property('query');
    expect(r.json['x-apidsl-omitted']).to.have.lengthOf(1);
    expect((await seriousme(r.json)).valid).to.equal(true);
    expect((await hyperjump(r.json)).valid).to.equal(true);
    expect((await get(server.url, '/docs.json?spec_version=3.2.0')).json.openapi).to.equal('3.2.0');
  });

  it('an unknown spec_version: 400', async () => {
    const r = await get(server.url, '/docs.json?spec_version=2.0');
    expect(r.status).to.equal(400);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json.detail).to.equal('Unsupported OpenAPI version "2.0": use 3.1 or 3.2.');
  });

  it(`GET /docs with Accept: ${OPENAPI}: the OpenAPI document`, async () => {
    const r = await get(server.url, '/docs', { Accept: OPENAPI });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(`${OPENAPI}; charset=utf-8`);
    expect(r.text).to.equal((await get(server.url, '/docs.json')).text);
    expect((await get(server.url, '/docs?spec_version=3.1', { Accept: OPENAPI })).json.openapi).to.equal('3.1.1');
  });

  it('GET /docs with Accept: application/json: the OpenAPI document too', async () => {
    const r = await get(server.url, '/docs', { Accept: 'application/json' });
    expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(r.json.openapi).to.equal('3.2.0');
  });

  it('GET /docs with Accept: application/ld+json: the Hydra documentation of /docs.jsonld', async () => {
    const r = await get(server.url, '/docs', { Accept: 'application/ld+json' });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('application/ld+json; charset=utf-8');
    expect(r.headers.get('content-location')).to.equal('/docs.jsonld');
    // The same document, its relative IRIs based on /docs.jsonld wherever it is served.
    const { '@context': context, ...rest } = r.json;
    const { '@context': directContext, ...directRest } = (await get(server.url, '/docs.jsonld')).json;
    expect(context).to.deep.equal([...directContext, { '@base': '/docs.jsonld' }]);
    expect(rest).to.deep.equal(directRest);
    expect(r.json['@type']).to.equal('ApiDocumentation');
  });

  it('GET /docs for a browser (or with no Accept): the HTML reference', async () => {
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    for (const headers of [{ Accept: browserAccept }, {}, { Accept: '*/*' }] as Record<string, string>[]) {
      const r = await get(server.url, '/docs', headers);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(r.text).to.match(/^<!doctype html>/);
      expect(r.text).to.include('<title>Bookstore — API reference</title>');
      expect(r.text).to.include('<div id="swagger-ui"></div>');
    }
  });

  it('an Accept /docs cannot answer: 406', async () => {
    const r = await get(server.url, '/docs', { Accept: 'image/png' });
    expect(r.status).to.equal(406);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
  });

  it('the HTML page loads its assets from /docs/assets/ only, and each is served', async () => {
    const html = (await get(server.url, '/docs')).text;
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.filter((u) => /^(https?:)?\/\//.test(u))).to.deep.equal([]);
    const assets = refs.filter((u) => u.startsWith('/docs/assets/'));
    expect(assets).to.include.members([
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/init.js',
    ]);
    const types: Record<string, string> = {
      css: 'text/css; charset=utf-8',
      js: 'text/javascript; charset=utf-8',
      png: 'image/png',
    };
    for (const asset of assets) {
      const r = await fetch(server.url + asset);
      expect(r.status, asset).to.equal(200);
      expect(r.headers.get('content-type'), asset).to.equal(types[asset.split('.').pop()!]);
      expect((await r.arrayBuffer()).byteLength, asset).to.be.greaterThan(100);
    }
    const init = await (await fetch(`${server.url}/docs/assets/init.js`)).text();
    expect(init).to.include("url: '/docs.json'");
    expect(init).to.include('validatorUrl: null');
  });

  it('the renderer is swagger-ui-dist, byte for byte from node_modules', async () => {
    const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    const served = Buffer.from(await (await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`)).arrayBuffer());
    expect(served.equals(readFileSync(join(dir, 'swagger-ui-bundle.js')))).to.equal(true);
  });

  it('an unknown asset: 404', async () => {
    expect((await get(server.url, '/docs/assets/nothing.js')).status).to.equal(404);
    expect((await get(server.url, '/docs/assets/..%2Fpackage.json')).status).to.equal(404);
  });
});

describe('HTTP docs: live responses match the documented schemas', () => {
  const server = useServer(fromRoot('test/fixtures/filters/filters.api'));
  let checker: ResponseChecker;
  let doc: Any;
  before(async () => {
    doc = (await get(server.url, '/docs.json')).json;
    checker = new ResponseChecker(doc);
    for (const author of [{ name: 'Frank Herbert' }]) await request(server.url, 'POST', '/authors', { body: author });
    for (const book of [
      {
        title: 'Dune',
        subtitle: 'One',
        author: '/authors/1',
        price: 9.5,
        pages: 412,
        available: true,
        publishedAt: '1965-08-01T00:00:00+00:00',
        releasedOn: '1965-08-01',
      },
      { title: 'Messiah', price: 8 },
      { title: 'Children', price: 12 },
    ]) {
      const r = await request(server.url, 'POST', '/books', { body: book });
      expect(r.status, r.text).to.equal(201);
      expect(checker.check(responsePointer('/books', 'post', 201, 'application/ld+json'), r.json)).to.equal(undefined);
    }
  });

  const conforms = (path: string, method: string, status: number, media: string, body: unknown): void => {
    const errors = checker.check(responsePointer(path, method, status, media), body);
    expect(errors, `${method} ${path} ${status} ${media}: ${JSON.stringify(body).slice(0, 400)}`).to.equal(undefined);
  };

  it('collections, JSON-LD (paginated, with view and search) and JSON', async () => {
    const paged = await get(server.url, '/books?itemsPerPage=1&page=2&title=Dune');
    conforms('/books', 'get', 200, 'application/ld+json', paged.json);
    const all = await get(server.url, '/books?itemsPerPage=2');
    expect(all.json.view).to.have.property('next');
    conforms('/books', 'get', 200, 'application/ld+json', all.json);
    conforms(
      '/books',
      'get',
      200,
      'application/json',
      (await get(server.url, '/books', { Accept: 'application/json' })).json,
    );
    conforms('/named', 'get', 200, 'application/ld+json', (await get(server.url, '/named?q=dune')).json);
  });

  it('items, JSON-LD and JSON', async () => {
    conforms('/books/{id}', 'get', 200, 'application/ld+json', (await get(server.url, '/books/1')).json);
    conforms(
      '/books/{id}',
      'get',
      200,
      'application/json',
      (await get(server.url, '/books/1', { Accept: 'application/json' })).json,
    );
    const patched = await request(server.url, 'PATCH', '/books/2', {
      body: { pages: 256 },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    conforms('/books/{id}', 'patch', 200, 'application/ld+json', patched.json);
  });

  it('QUERY answers the documented collection', async () => {
    const r = await request(server.url, 'QUERY', '/books?itemsPerPage=2', {
      body: JSON.stringify({ price: { gte: 9 } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).to.equal(200);
    conforms('/books', 'query', 200, 'application/ld+json', r.json);
  });

  it('errors: 404, 415, 400, 422 in both flavours', async () => {
    for (const accept of ['application/ld+json', 'application/json']) {
      const missing = await get(server.url, '/books/999', { Accept: accept });
      expect(missing.status).to.equal(404);
      conforms('/books/{id}', 'get', 404, 'application/problem+json', missing.json);
      const noType = await request(server.url, 'QUERY', '/books', { headers: { Accept: accept } });
      expect(noType.status).to.equal(415);
      conforms('/books', 'query', 415, 'application/problem+json', noType.json);
      const notJson = await request(server.url, 'QUERY', '/books', {
        body: '{',
        headers: { Accept: accept, 'Content-Type': 'application/json' },
      });
      expect(notJson.status).to.equal(400);
      conforms('/books', 'query', 400, 'application/problem+json', notJson.json);
      const invalid = await request(server.url, 'POST', '/books', { body: { title: '' }, headers: { Accept: accept } });
      expect(invalid.status, invalid.text).to.be.oneOf([400, 422]);
      conforms('/books', 'post', invalid.status, 'application/problem+json', invalid.json);
      const violated = await request(server.url, 'POST', '/books', { body: { price: 3 }, headers: { Accept: accept } });
      expect(violated.status, violated.text).to.equal(422);
      conforms('/books', 'post', 422, 'application/problem+json', violated.json);
    }
  });

  it('the documented URL parameters are the variables of the Hydra search template', async () => {
    for (const path of ['/books', '/named', '/strategies/iword_start', '/dates/include_null_after']) {
      const search = (await get(server.url, path)).json.search;
      expect(search, `${path} has a search template`).to.be.an('object');
      const variables = search.mapping.map((m: Any) => m.variable).sort();
      const op = doc.paths[path].get;
      const pagination = ['page', 'itemsPerPage', 'pagination', 'partial'];
      const documented = op.parameters
        .filter((p: Any) => p.in === 'query' && !pagination.includes(p.name))
        .map((p: Any) => p.name)
        .sort();
      expect(documented, path).to.deep.equal(variables);
    }
  });
});

describe('HTTP docs: prefixed Hydra collections match the documented schemas', () => {
  const server = useServer(fromRoot('test/fixtures/pagination/hydra-prefix.api'));
  before(async () => {
    for (let i = 1; i <= 4; i++) {
      await request(server.url, 'POST', '/dummies', { body: { name: `d${i}` } });
      await request(server.url, 'POST', '/plain_dummies', { body: { name: `p${i}` } });
    }
  });

  it('hydra:member and friends where the prefix is on, member where an operation turns it off', async () => {
    const checker = new ResponseChecker((await get(server.url, '/docs.json')).json);
    const prefixed = (await get(server.url, '/dummies?page=2')).json;
    expect(prefixed).to.have.property('hydra:member');
    expect(checker.check(responsePointer('/dummies', 'get', 200, 'application/ld+json'), prefixed)).to.equal(undefined);
    const plain = (await get(server.url, '/plain_dummies?page=2')).json;
    expect(plain).to.have.property('member');
    expect(checker.check(responsePointer('/plain_dummies', 'get', 200, 'application/ld+json'), plain)).to.equal(
      undefined,
    );
    // And not the other way round: the schemas tell the two vocabularies apart.
    expect(checker.check(responsePointer('/dummies', 'get', 200, 'application/ld+json'), plain)).to.not.equal(
      undefined,
    );
    const missing = (await get(server.url, '/dummies/99')).json;
    expect(checker.check(responsePointer('/dummies/{id}', 'get', 404, 'application/problem+json'), missing)).to.equal(
      undefined,
    );
  });
});
