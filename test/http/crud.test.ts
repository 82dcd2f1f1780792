/**
 * Create, read, update (PUT with apidsl's semantics, upsert, merge patch) and
 * delete on the bookstore example, plus the variants that need their own configuration.
 */
import { expect } from 'chai';
import {
  bookstore,
  bookstoreWithDune,
  errorDoc,
  fixture,
  JSONLD,
  PROBLEM_JSON,
  request,
  type RunningServer,
  useServer,
} from './harness.js';

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

describe('HTTP CRUD: POST and GET on the bookstore', () => {
  const server = useServer(bookstore());

  it('POST /books answers 201 with Location, Content-Location and the JSON-LD item (null properties left out)', async () => {
    const r = await request(server.url, 'POST', '/books', {
      body: { title: 'Dune', author: 'Frank Herbert', price: 9.99, publishedAt: null },
    });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('location')).to.equal('/books/1');
    expect(r.headers.get('content-location')).to.equal('/books/1.jsonld');
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: 'Frank Herbert',
      price: 9.99,
    });
  });

  it('POST with Content-Type application/json is accepted too and gets the next identifier', async () => {
    const r = await request(server.url, 'POST', '/books', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Hyperion' }),
    });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('location')).to.equal('/books/2');
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/2',
      '@type': 'Book',
      id: 2,
      title: 'Hyperion',
    });
  });

  it('ignores unknown attributes of the body silently', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Solaris', colour: 'blue' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/3',
      '@type': 'Book',
      id: 3,
      title: 'Solaris',
    });
  });

  it('GET /books/1 answers 200 with the same document and no Content-Location', async () => {
    const r = await request(server.url, 'GET', '/books/1');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.headers.get('content-location')).to.equal(null);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: 'Frank Herbert',
      price: 9.99,
    });
  });

  it('GET on a missing item answers 404 with the Hydra error document', async () => {
    const r = await request(server.url, 'GET', '/books/999');
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Error',
      '@id': '/errors/404',
      '@type': 'Error',
      title: 'An error occurred',
      detail: 'Not Found',
      status: 404,
      type: '/errors/404',
      description: 'Not Found',
    });
  });
});

describe('HTTP CRUD: PUT keeps absent properties, null removes, allowCreate upserts', () => {
  let server: RunningServer;
  before(async () => {
    server = await bookstoreWithDune();
  });
  after(async () => {
    await server?.stop();
  });

  it('PUT with only some properties answers 200 and keeps the others', async () => {
    const r = await request(server.url, 'PUT', '/books/1', { body: { price: 12.5 } });
    expect(r.status, r.text).to.equal(200);
    expect(r.headers.get('content-location')).to.equal('/books/1.jsonld');
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: 'Frank Herbert',
      price: 12.5,
    });
  });

  it('PUT with an explicit null removes that property, and a GET confirms it', async () => {
    const r = await request(server.url, 'PUT', '/books/1', { body: { author: null } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      price: 12.5,
    });
    const g = await request(server.url, 'GET', '/books/1');
    expect(g.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      price: 12.5,
    });
  });

  it('PUT on a missing id with allowCreate answers 201 and the item takes the identifier of the URI', async () => {
    const r = await request(server.url, 'PUT', '/books/42', { body: { title: 'Created by PUT', price: 1 } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/42',
      '@type': 'Book',
      id: 42,
      title: 'Created by PUT',
      price: 1,
    });
    // Location is not sent for a PUT that creates.
    expect(r.headers.get('location')).to.equal(null);
    const g = await request(server.url, 'GET', '/books/42');
    expect(g.status).to.equal(200);
    expect(g.json).to.deep.equal(r.json);
  });

  it('a second PUT on the item it created is an update (200)', async () => {
    const r = await request(server.url, 'PUT', '/books/42', { body: { price: 2 } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/42',
      '@type': 'Book',
      id: 42,
      title: 'Created by PUT',
      price: 2,
    });
  });
});

describe('HTTP CRUD: PATCH with JSON Merge Patch', () => {
  let server: RunningServer;
  before(async () => {
    server = await bookstoreWithDune();
  });
  after(async () => {
    await server?.stop();
  });

  it('PATCH application/merge-patch+json changes the keys sent, null removes, others are kept (200)', async () => {
    const r = await request(server.url, 'PATCH', '/books/1', {
      headers: MERGE_PATCH,
      body: JSON.stringify({ title: 'Dune Messiah', price: null }),
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune Messiah',
      author: 'Frank Herbert',
    });
    const g = await request(server.url, 'GET', '/books/1');
    expect(g.json).to.deep.equal(r.json);
  });

  it('PATCH with Content-Type application/json answers 415 listing the patch formats', async () => {
    const r = await request(server.url, 'PATCH', '/books/1', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Nope' }),
    });
    expect(r.status).to.equal(415);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(
      errorDoc(
        415,
        'The content-type "application/json" is not supported. Supported MIME types are "application/merge-patch+json".',
      ),
    );
    const g = await request(server.url, 'GET', '/books/1');
    expect(g.json.title).to.equal('Dune Messiah');
  });

  it('PATCH with Content-Type application/ld+json answers 415 as well', async () => {
    const r = await request(server.url, 'PATCH', '/books/1', {
      headers: { 'Content-Type': 'application/ld+json' },
      body: JSON.stringify({ title: 'Nope' }),
    });
    expect(r.status).to.equal(415);
    expect(r.json.detail).to.equal(
      'The content-type "application/ld+json" is not supported. Supported MIME types are "application/merge-patch+json".',
    );
  });

  it('PATCH on a missing item answers 404', async () => {
    const r = await request(server.url, 'PATCH', '/books/999', {
      headers: MERGE_PATCH,
      body: JSON.stringify({ title: 'x' }),
    });
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal(errorDoc(404, 'Not Found'));
  });
});

describe('HTTP CRUD: DELETE', () => {
  const server = useServer(bookstore());
  before(async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Dune' } });
    expect(r.status, r.text).to.equal(201);
  });

  it('DELETE answers 204 with an empty body and no Content-Type', async () => {
    const r = await request(server.url, 'DELETE', '/books/1');
    expect(r.status).to.equal(204);
    expect(r.text).to.equal('');
    expect(r.headers.get('content-type')).to.equal(null);
  });

  it('a GET after the DELETE answers 404, and so does a second DELETE', async () => {
    expect((await request(server.url, 'GET', '/books/1')).status).to.equal(404);
    const again = await request(server.url, 'DELETE', '/books/1');
    expect(again.status).to.equal(404);
    expect(again.json).to.deep.equal(errorDoc(404, 'Not Found'));
  });

  it('the deleted item is no longer in the collection', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(0);
    expect(r.json.member).to.deep.equal([]);
  });
});

describe('HTTP CRUD: PUT without allowCreate, PATCH without patch_formats (fixture)', () => {
  const server = useServer(fixture('strict-writes.api'));
  before(async () => {
    const r = await request(server.url, 'POST', '/articles', { body: { title: 'First' } });
    expect(r.status, r.text).to.equal(201);
  });

  it('PUT on a missing id answers 404 and creates nothing', async () => {
    const r = await request(server.url, 'PUT', '/articles/7', { body: { title: 'Should not exist' } });
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal(errorDoc(404, 'Not Found'));
    expect((await request(server.url, 'GET', '/articles/7')).status).to.equal(404);
  });

  it('PUT on an existing id still updates it (200)', async () => {
    const r = await request(server.url, 'PUT', '/articles/1', { body: { body: 'Text' } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Article',
      '@id': '/articles/1',
      '@type': 'Article',
      id: 1,
      title: 'First',
      body: 'Text',
    });
  });

  it('PATCH answers 415 naming the patch_formats setting when it is empty', async () => {
    const r = await request(server.url, 'PATCH', '/articles/1', {
      headers: MERGE_PATCH,
      body: JSON.stringify({ title: 'Patched' }),
    });
    expect(r.status).to.equal(415);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json['@type']).to.equal('Error');
    expect(r.json.status).to.equal(415);
    expect(r.json.detail).to.be.a('string').and.include('patch_formats');
    const g = await request(server.url, 'GET', '/articles/1');
    expect(g.json.title).to.equal('First');
  });
});
