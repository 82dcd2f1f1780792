/**
 * Response headers of API operations (docs/behaviour.md, "Representations"): Vary, the two
 * security headers and the Hydra Link on every response, errors included; Allow, Accept-Post and
 * Accept-Patch.
 */
import { expect } from 'chai';
import { apiDocLink, bookstore, headerList, type HttpResponse, request, useServer } from './harness.js';

const HYDRA_ERROR_LINK = '<http://www.w3.org/ns/hydra/error>; rel="http://www.w3.org/ns/json-ld#error"';

describe('HTTP headers', () => {
  const server = useServer(bookstore());
  before(async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Dune' } });
    expect(r.status, r.text).to.equal(201);
  });

  /** One response of each kind: success with a body, 201, 204, and errors. */
  const cases: { name: string; send: () => Promise<HttpResponse>; status: number }[] = [
    { name: 'GET item (200)', send: () => request(server.url, 'GET', '/books/1'), status: 200 },
    { name: 'GET collection (200)', send: () => request(server.url, 'GET', '/books'), status: 200 },
    {
      name: 'POST (201)',
      send: () => request(server.url, 'POST', '/books', { body: { title: 'Headers' } }),
      status: 201,
    },
    {
      name: 'DELETE (204)',
      send: async () => {
        const created = await request(server.url, 'POST', '/books', { body: { title: 'To delete' } });
        return request(server.url, 'DELETE', created.json['@id']);
      },
      status: 204,
    },
    { name: 'missing item (404)', send: () => request(server.url, 'GET', '/books/999'), status: 404 },
    { name: 'unknown path (404)', send: () => request(server.url, 'GET', '/no-such-path'), status: 404 },
    { name: 'method not allowed (405)', send: () => request(server.url, 'DELETE', '/books'), status: 405 },
    {
      name: 'not acceptable (406)',
      send: () => request(server.url, 'GET', '/books/1', { headers: { Accept: 'text/plain' } }),
      status: 406,
    },
    {
      name: 'unsupported media type (415)',
      send: () => request(server.url, 'POST', '/books', { body: '{"title":"x"}' }),
      status: 415,
    },
    {
      name: 'validation (422)',
      send: () => request(server.url, 'POST', '/books', { body: { author: 'nobody' } }),
      status: 422,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: Vary contains Accept; X-Content-Type-Options nosniff; X-Frame-Options deny; Link to the API documentation`, async () => {
      const r = await c.send();
      expect(r.status, r.text).to.equal(c.status);
      expect(headerList(r.headers, 'vary').map((v) => v.toLowerCase())).to.include('accept');
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(r.headers.get('x-frame-options')).to.equal('deny');
      expect(headerList(r.headers, 'link')).to.include(apiDocLink(server.url));
    });
  }

  it('error responses also link the Hydra error vocabulary', async () => {
    const r = await request(server.url, 'GET', '/books/999');
    expect(r.status).to.equal(404);
    expect(headerList(r.headers, 'link')).to.include(HYDRA_ERROR_LINK);
  });

  it('the Link URL is absolute and built from the request host', async () => {
    const r = await request(server.url, 'GET', '/books/1');
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(r.headers.get('link')).to.include(`<${server.url}/docs.jsonld>`);
  });

  it('Allow on the item route lists OPTIONS, HEAD and the item operations in declaration order', async () => {
    const r = await request(server.url, 'GET', '/books/1');
    expect(r.headers.get('allow')).to.equal('OPTIONS, HEAD, GET, PUT, PATCH, DELETE');
  });

  it('Allow on the collection route starts with OPTIONS, HEAD, GET, POST', async () => {
    const r = await request(server.url, 'GET', '/books');
    // QUERY may follow (unconfirmed in API Platform), so only the known prefix is asserted.
    expect(headerList(r.headers, 'allow').slice(0, 4)).to.deep.equal(['OPTIONS', 'HEAD', 'GET', 'POST']);
  });

  it('Accept-Post on the collection lists the output types of POST', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.headers.get('accept-post')).to.equal('application/ld+json, application/json');
  });

  it('Accept-Patch on GET item lists the patch formats', async () => {
    const r = await request(server.url, 'GET', '/books/1');
    expect(r.headers.get('accept-patch')).to.equal('application/merge-patch+json');
  });

  it('no Accept-Patch on the collection, no Accept-Post on the item', async () => {
    const col = await request(server.url, 'GET', '/books');
    expect(col.headers.get('accept-patch')).to.equal(null);
    const item = await request(server.url, 'GET', '/books/1');
    expect(item.headers.get('accept-post')).to.equal(null);
  });

  it('Allow on the prefixed, hidden-item Place collection: OPTIONS, HEAD, GET, POST', async () => {
    const r = await request(server.url, 'GET', '/geo/places');
    expect(r.status).to.equal(200);
    expect(r.headers.get('allow')).to.equal('OPTIONS, HEAD, GET, POST');
  });
});
