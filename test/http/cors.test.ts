/**
 * CORS over HTTP: the default (any port of localhost and 127.0.0.1), a configured origin list with
 * exact origins and a pattern, credentials, preflights on every path, plain OPTIONS, error
 * responses that keep their CORS headers, and CORS turned off.
 */
import { expect } from 'chai';
import { bookstore, fixture, headerList, request, useServer } from './harness.js';

const preflight = (origin: string, method = 'POST', headers = 'content-type'): Record<string, string> => ({
  Origin: origin,
  'Access-Control-Request-Method': method,
  'Access-Control-Request-Headers': headers,
});

describe('CORS with the default settings', function () {
  this.timeout(60_000);
  const server = useServer(bookstore());

  for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'https://localhost', 'http://localhost']) {
    it(`allows ${origin}: a preflight answers 204 with the CORS headers`, async () => {
      const r = await request(server.url, 'OPTIONS', '/books', { headers: preflight(origin) });
      expect(r.status).to.equal(204);
      expect(r.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(headerList(r.headers, 'access-control-allow-methods')).to.include.members([
        'GET',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'QUERY',
      ]);
      expect(headerList(r.headers, 'access-control-allow-headers').map((h) => h.toLowerCase())).to.include.members([
        'content-type',
        'authorization',
      ]);
      expect(r.headers.get('access-control-max-age')).to.equal('3600');
      expect(r.headers.get('access-control-allow-credentials')).to.equal(null);
      expect(headerList(r.headers, 'vary')).to.include('Origin');
      expect(r.text).to.equal('');
    });
  }

  for (const origin of [
    'http://example.com',
    'http://localhost.evil.com',
    'http://evil.com?localhost',
    'http://127.0.0.2:80',
    'null',
  ]) {
    it(`refuses ${origin}: no CORS header, so the browser keeps the answer from the page`, async () => {
      const pre = await request(server.url, 'OPTIONS', '/books', { headers: preflight(origin) });
      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
      expect(pre.headers.get('access-control-allow-methods')).to.equal(null);
      const r = await request(server.url, 'GET', '/books', { headers: { Origin: origin } });
      expect(r.status).to.equal(200);
      expect(r.headers.get('access-control-allow-origin')).to.equal(null);
    });
  }

  for (const path of [
    '/books',
    '/books/1',
    '/books/999',
    '/books/1.jsonld',
    '/geo/places',
    '/',
    '/index.jsonld',
    '/docs',
    '/docs.json',
    '/docs.jsonld',
    '/contexts/Book',
    '/events',
    '/nowhere',
  ]) {
    it(`a preflight on ${path} answers 204 with the CORS headers`, async () => {
      const r = await request(server.url, 'OPTIONS', path, { headers: preflight('http://localhost:8080', 'GET') });
      expect(r.status).to.equal(204);
      expect(r.headers.get('access-control-allow-origin')).to.equal('http://localhost:8080');
      expect(headerList(r.headers, 'access-control-allow-methods')).to.include('GET');
    });
  }

  for (const path of [
    '/books',
    '/books/1',
    '/books/999',
    '/geo/places',
    '/',
    '/docs',
    '/docs.jsonld',
    '/contexts/Book',
  ]) {
    it(`a plain OPTIONS on ${path} answers 204 with Allow, never 405`, async () => {
      const r = await request(server.url, 'OPTIONS', path);
      expect(r.status).to.equal(204);
      expect(headerList(r.headers, 'allow')).to.include.members(['OPTIONS', 'HEAD', 'GET']);
    });
  }

  it('a plain OPTIONS lists the methods of the route', async () => {
    expect(headerList((await request(server.url, 'OPTIONS', '/books/1')).headers, 'allow')).to.deep.equal([
      'OPTIONS',
      'HEAD',
      'GET',
      'PUT',
      'PATCH',
      'DELETE',
    ]);
    expect(headerList((await request(server.url, 'OPTIONS', '/books')).headers, 'allow')).to.include.members([
      'GET',
      'POST',
      'QUERY',
    ]);
  });

  it('a plain OPTIONS on an unknown path is still 404', async () => {
    expect((await request(server.url, 'OPTIONS', '/nowhere')).status).to.equal(404);
  });

  it('an actual request from an allowed origin gets the origin and the exposed headers', async () => {
    const r = await request(server.url, 'POST', '/books', {
      headers: { Origin: 'http://localhost:5173' },
      body: { title: 'Dune' },
    });
    expect(r.status).to.equal(201);
    expect(r.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
    expect(headerList(r.headers, 'access-control-expose-headers')).to.include.members([
      'Link',
      'Location',
      'Content-Location',
      'ETag',
    ]);
    expect(headerList(r.headers, 'vary')).to.include.members(['Accept', 'Origin']);
  });

  for (const [what, method, path, body, status] of [
    ['a 422 validation error', 'POST', '/books', { price: -1 }, 422],
    ['a 400 bad body', 'POST', '/books', '{"title"', 400],
    ['a 404 unknown item', 'GET', '/books/987654', undefined, 404],
    ['a 404 unknown path', 'GET', '/nowhere', undefined, 404],
    ['a 405 wrong method', 'DELETE', '/books', undefined, 405],
  ] as const) {
    it(`${what} keeps the CORS headers, so the page can read the problem`, async () => {
      const headers: Record<string, string> = {
        Origin: 'http://127.0.0.1:4000',
        'Content-Type': 'application/ld+json',
      };
      const r = await request(server.url, method, path, { headers, body });
      expect(r.status).to.equal(status);
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(r.headers.get('access-control-allow-origin')).to.equal('http://127.0.0.1:4000');
      expect(headerList(r.headers, 'access-control-expose-headers')).to.include('Link');
    });
  }
});

describe('CORS with configured origins and credentials', function () {
  this.timeout(60_000);
  const server = useServer(fixture('cors.api'));

  for (const origin of ['https://app.example.com', 'https://APP.example.com', 'https://shop.example.org']) {
    it(`allows ${origin} (exact origin or pattern), echoing it with credentials`, async () => {
      const r = await request(server.url, 'OPTIONS', '/notes', { headers: preflight(origin, 'POST', 'x-trace') });
      expect(r.status).to.equal(204);
      expect(r.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(r.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(r.headers.get('access-control-allow-headers')).to.equal('Content-Type,X-Trace');
      expect(r.headers.get('access-control-max-age')).to.equal('600');
    });
  }

  for (const origin of [
    'http://localhost:3000',
    'http://app.example.com',
    'https://app.example.com:8443',
    'https://a.b.example.org',
    'https://shop.example.org.evil.net',
  ]) {
    it(`refuses ${origin}`, async () => {
      const r = await request(server.url, 'GET', '/notes', { headers: { Origin: origin } });
      expect(r.headers.get('access-control-allow-origin')).to.equal(null);
      expect(r.headers.get('access-control-allow-credentials')).to.equal(null);
    });
  }

  // A GET without Origin is answered by the operation's direct route (app.ts), one with an Origin goes through
  // CORS and the router; to a refused origin CORS adds nothing but what the direct route adds (Vary: Origin).
  for (const [what, path, accept, status] of [
    ['a page', '/notes?page=1', 'application/ld+json', 200],
    ['an empty page past the last', '/notes?page=7', 'application/ld+json', 200],
    ['a 400 for a bad page number', '/notes?page=0', 'application/ld+json', 400],
    ['a 406 for an unknown Accept', '/notes', 'text/csv', 406],
  ] as const) {
    it(`${what}: the direct route answers as CORS and the router would (status, headers, body)`, async () => {
      await request(server.url, 'POST', '/notes', { body: { text: 'equivalence' } });
      const direct = await request(server.url, 'GET', path, { headers: { Accept: accept } });
      const routed = await request(server.url, 'GET', path, {
        headers: { Accept: accept, Origin: 'https://elsewhere.example.net' },
      });
      const shown = (r: typeof direct) => [...r.headers].filter(([name]) => name !== 'date');
      expect(direct.status).to.equal(routed.status);
      expect(direct.status).to.equal(status);
      expect(shown(direct)).to.deep.equal(shown(routed));
      expect(headerList(direct.headers, 'vary')).to.include.members(['Accept', 'Origin']);
      expect(direct.text).to.equal(routed.text);
    });
  }

  it('an actual request exposes the configured headers', async () => {
    const r = await request(server.url, 'GET', '/notes', { headers: { Origin: 'https://app.example.com' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('access-control-expose-headers')).to.equal('Link,X-Total');
    expect(r.headers.get('access-control-allow-credentials')).to.equal('true');
  });
});

describe('CORS turned off with allow_origin: []', function () {
  this.timeout(60_000);
  const server = useServer(fixture('cors-off.api'));

  it('sends no CORS header, even to localhost; a preflight gets the plain OPTIONS answer', async () => {
    const r = await request(server.url, 'OPTIONS', '/notes', { headers: preflight('http://localhost:3000', 'GET') });
    expect(r.status).to.equal(204);
    expect(r.headers.get('access-control-allow-origin')).to.equal(null);
    expect(r.headers.get('allow')).to.equal('OPTIONS, HEAD, GET');
    const g = await request(server.url, 'GET', '/notes', { headers: { Origin: 'http://localhost:3000' } });
    expect(g.headers.get('access-control-allow-origin')).to.equal(null);
  });
});
