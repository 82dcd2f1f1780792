/**
 * The Hydra collection document, default page size 30 and its `view`
 * (docs/behaviour.md, "Collections and pagination"), and the bare array of the JSON format.
 */
import { expect } from 'chai';
import { bookstore, JSON_UTF8, JSONLD, request, useServer } from './harness.js';

describe('HTTP collections: empty collection', () => {
  const server = useServer(bookstore());

  it('GET /books on an empty store: totalItems 0, member [], no view', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json['@context']).to.equal('/contexts/Book');
    expect(r.json['@id']).to.equal('/books');
    expect(r.json['@type']).to.equal('Collection');
    expect(r.json.totalItems).to.equal(0);
    expect(r.json.member).to.deep.equal([]);
    expect(r.json).to.not.have.property('view');
    expect(r.json).to.not.have.property('hydra:member');
  });
});

describe('HTTP collections: 31 books, pages of 30', () => {
  const server = useServer(bookstore());
  before(async () => {
    for (let i = 1; i <= 31; i++) {
      const r = await request(server.url, 'POST', '/books', { body: { title: `Book ${i}`, price: i } });
      if (r.status !== 201) throw new Error(`POST book ${i} answered ${r.status}: ${r.text}`);
    }
  });

  it('GET /books: @context, @id, @type Collection, totalItems 31 and the first 30 members', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json['@context']).to.equal('/contexts/Book');
    expect(r.json['@id']).to.equal('/books');
    expect(r.json['@type']).to.equal('Collection');
    expect(r.json.totalItems).to.equal(31);
    expect(r.json.member).to.be.an('array').with.lengthOf(30);
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(
      Array.from({ length: 30 }, (_, i) => `/books/${i + 1}`),
    );
  });

  it('members are full item documents without @context', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.json.member[0]).to.deep.equal({ '@id': '/books/1', '@type': 'Book', id: 1, title: 'Book 1', price: 1 });
    for (const m of r.json.member) {
      expect(m['@type']).to.equal('Book');
      expect(m).to.not.have.property('@context');
    }
  });

  it('the view of page 1 has @id, first, last and next, no previous', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.json.view).to.deep.equal({
      '@id': '/books?page=1',
      '@type': 'PartialCollectionView',
      first: '/books?page=1',
      last: '/books?page=2',
      next: '/books?page=2',
    });
  });

  it('?page=2 holds the 31st book; its view has previous and no next', async () => {
    const r = await request(server.url, 'GET', '/books?page=2');
    expect(r.status).to.equal(200);
    expect(r.json['@id']).to.equal('/books');
    expect(r.json.totalItems).to.equal(31);
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(['/books/31']);
    expect(r.json.view).to.deep.equal({
      '@id': '/books?page=2',
      '@type': 'PartialCollectionView',
      first: '/books?page=1',
      last: '/books?page=2',
      previous: '/books?page=1',
    });
  });

  it('a page past the end answers 200 with no members, previous and no next', async () => {
    const r = await request(server.url, 'GET', '/books?page=3');
    expect(r.status).to.equal(200);
    expect(r.json.member).to.deep.equal([]);
    expect(r.json.view).to.deep.equal({
      '@id': '/books?page=3',
      '@type': 'PartialCollectionView',
      first: '/books?page=1',
      last: '/books?page=2',
      previous: '/books?page=2',
    });
  });

  it('?page=0 answers 400 "Page should not be less than 1"', async () => {
    const r = await request(server.url, 'GET', '/books?page=0');
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Page should not be less than 1');
  });

  it('Accept: application/json gives a bare array of the page items, without @ keys', async () => {
    const r = await request(server.url, 'GET', '/books', { headers: { Accept: 'application/json' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
    expect(r.json).to.be.an('array').with.lengthOf(30);
    expect(r.json[0]).to.deep.equal({ id: 1, title: 'Book 1', price: 1 });
    for (const item of r.json) expect(Object.keys(item).filter((k) => k.startsWith('@'))).to.deep.equal([]);
  });

  it('/books.json gives the same bare array', async () => {
    const r = await request(server.url, 'GET', '/books.json');
    expect(r.status).to.equal(200);
    expect(r.json).to.be.an('array').with.lengthOf(30);
  });

  it('?pagination=false (client switch on for books) lists all 31 without a view', async () => {
    const r = await request(server.url, 'GET', '/books?pagination=false');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(31);
    expect(r.json.member).to.have.lengthOf(31);
    // Pagination disabled (`?pagination=0`): no view at all; the enable parameter is not a filter.
    expect(r.json).to.not.have.property('view');
  });

  it('a filter that matches nothing: totalItems 0 and a view with only @id and @type', async () => {
    const r = await request(server.url, 'GET', '/books?author=nobody');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(0);
    expect(r.json.member).to.deep.equal([]);
    expect(r.json.view).to.deep.equal({ '@id': '/books?author=nobody', '@type': 'PartialCollectionView' });
  });

  it('?itemsPerPage=10&page=2 (client page size on): 10 members and links that keep itemsPerPage', async () => {
    const r = await request(server.url, 'GET', '/books?page=2&itemsPerPage=10');
    expect(r.status).to.equal(200);
    expect(r.json.member.map((m: { id: number }) => m.id)).to.deep.equal([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(r.json.view).to.deep.equal({
      '@id': '/books?itemsPerPage=10&page=2',
      '@type': 'PartialCollectionView',
      first: '/books?itemsPerPage=10&page=1',
      last: '/books?itemsPerPage=10&page=4',
      previous: '/books?itemsPerPage=10&page=1',
      next: '/books?itemsPerPage=10&page=3',
    });
  });
});
