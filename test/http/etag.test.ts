/**
 * HTTP caching (API Platform's `http_cache.etag`): successful GETs carry an ETag of their body;
 * a request whose If-None-Match matches gets 304 with no body; any change makes a new ETag.
 */
import { expect } from 'chai';
import { bookstore, request, useServer } from './harness.js';

describe('HTTP ETag and conditional GET', () => {
  const server = useServer(bookstore());
  before(async () => {
    expect((await request(server.url, 'POST', '/books', { body: { title: 'Dune' } })).status).to.equal(201);
  });

  it('GET item and collection carry a quoted ETag; writes and errors carry none', async () => {
    for (const path of ['/books/1', '/books'])
      expect((await request(server.url, 'GET', path)).headers.get('etag')).to.match(/^"[A-Za-z0-9_-]+"$/);
    const created = await request(server.url, 'POST', '/books', { body: { title: 'Other' } });
    expect(created.headers.get('etag')).to.equal(null);
    expect((await request(server.url, 'GET', '/books/999')).headers.get('etag')).to.equal(null);
  });

  it('a matching If-None-Match answers 304 without a body; another value answers 200', async () => {
    const first = await request(server.url, 'GET', '/books/1');
    const etag = first.headers.get('etag')!;
    const again = await request(server.url, 'GET', '/books/1', { headers: { 'If-None-Match': etag } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    const other = await request(server.url, 'GET', '/books/1', { headers: { 'If-None-Match': '"stale"' } });
    expect(other.status).to.equal(200);
    expect(other.json.title).to.equal('Dune');
  });

  it('the ETag changes with the item and differs between formats', async () => {
    const before = (await request(server.url, 'GET', '/books/1')).headers.get('etag');
    const json = (
      await request(server.url, 'GET', '/books/1', { headers: { Accept: 'application/json' } })
    ).headers.get('etag');
    expect(json).to.not.equal(before);
    const patched = await request(server.url, 'PATCH', '/books/1', {
      body: '{"price": 3}',
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.text).to.equal(200);
    const after = await request(server.url, 'GET', '/books/1', { headers: { 'If-None-Match': before! } });
    expect(after.status).to.equal(200);
    expect(after.headers.get('etag')).to.not.equal(before);
  });
});
