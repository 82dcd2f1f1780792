/**
 * Links and sub-resources over real HTTP, in memory and on the embedded store: a URI variable bound
 * to a relation selects the items that hold the IRI it names, `links` bind variables explicitly
 * (toProperty, fromProperty) for collections and items, and every relation IRI a write sets must
 * name a stored item of the right resource.
 */
import { expect } from 'chai';
import { check } from '../../grammar/checker/index.js';
import { fixture, get, request, tempDir, useServer } from './harness.js';

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const memberIds = (doc: { member: { '@id': string }[] }): string[] => doc.member.map((m) => m['@id']);

for (const storage of [['--memory'], ['--data', 'DIR']]) {
  describe(`HTTP links and sub-resources (${storage[0]})`, () => {
    const server = useServer(fixture('links.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));
    before(async () => {
      for (const name of ['Le Guin', 'Herbert'])
        expect((await request(server.url, 'POST', '/authors', { body: { name } })).status).to.equal(201);
      const books = [
        { title: 'Earthsea', author: '/authors/1' },
        { title: 'Dune', author: '/authors/2' },
        { title: 'The Dispossessed', author: '/authors/1' },
        { title: 'Anonymous' },
      ];
      for (const body of books) {
        const r = await request(server.url, 'POST', '/books', { body });
        expect(r.status, r.text).to.equal(201);
      }
    });

    it('/authors/{author}/books: the books whose relation holds /authors/{author}', async () => {
      const r = await get(server.url, '/authors/1/books');
      expect(r.status, r.text).to.equal(200);
      expect(r.json.totalItems).to.equal(2);
      expect(memberIds(r.json)).to.deep.equal(['/books/1', '/books/3']);
      expect(r.json['@id']).to.equal('/authors/1/books');
      const other = await get(server.url, '/authors/2/books');
      expect(memberIds(other.json)).to.deep.equal(['/books/2']);
    });

    it('an unknown or malformed parent identifier gives an empty collection, never the unfiltered one', async () => {
      for (const path of ['/authors/99/books', '/authors/abc/books', '/writers/abc/books']) {
        const r = await get(server.url, path);
        expect(r.status, path).to.equal(200);
        expect(r.json.totalItems, path).to.equal(0);
        expect(r.json.member, path).to.deep.equal([]);
      }
    });

    it('links with toProperty bind another variable name to the relation', async () => {
      const r = await get(server.url, '/writers/2/books');
      expect(r.status, r.text).to.equal(200);
      expect(memberIds(r.json)).to.deep.equal(['/books/2']);
      expect(r.json.totalItems).to.equal(1);
    });

    it("an item under a link is 404 when it is not the parent's", async () => {
      const mine = await get(server.url, '/authors/1/books/3');
      expect(mine.status, mine.text).to.equal(200);
      expect(mine.json.title).to.equal('The Dispossessed');
      expect((await get(server.url, '/authors/2/books/3')).status).to.equal(404);
      expect((await get(server.url, '/authors/1/books/2')).status).to.equal(404);
      expect((await get(server.url, '/authors/1/books/4')).status).to.equal(404);
    });

    it('links with fromProperty: the items the parent lists', async () => {
      const shelf = await request(server.url, 'POST', '/shelves', { body: { books: ['/books/4', '/books/2'] } });
      expect(shelf.status, shelf.text).to.equal(201);
      const r = await get(server.url, '/shelves/1/books');
      expect(r.status, r.text).to.equal(200);
      expect(memberIds(r.json)).to.deep.equal(['/books/2', '/books/4']);
      expect((await get(server.url, '/shelves/9/books')).json.totalItems).to.equal(0);
    });

    it('a relation IRI of no stored item answers 400 "Item not found for …" (POST, PATCH, list items)', async () => {
      const post = await request(server.url, 'POST', '/books', { body: { title: 'X', author: '/authors/99' } });
      expect(post.status).to.equal(400);
      expect(post.json.detail).to.equal('Item not found for "/authors/99".');
      const patch = await request(server.url, 'PATCH', '/books/1', {
        headers: MERGE_PATCH,
        body: { author: '/authors/42' },
      });
      expect(patch.status).to.equal(400);
      expect(patch.json.detail).to.equal('Item not found for "/authors/42".');
      const shelf = await request(server.url, 'POST', '/shelves', { body: { books: ['/books/1', '/books/77'] } });
      expect(shelf.status).to.equal(400);
      expect(shelf.json.detail).to.equal('Item not found for "/books/77".');
      expect((await get(server.url, '/books/1')).json.author).to.equal('/authors/1');
    });

    it('an IRI of another resource or no IRI at all answers 400', async () => {
      for (const author of ['/books/1', 'not an iri', '/authors/1/extra', '/authors/%E0%A4%A']) {
        const r = await request(server.url, 'POST', '/books', { body: { title: 'X', author } });
        expect(r.status, author).to.equal(400);
        expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      }
    });

    it('deleting a referenced item answers 409 while a reference remains (restrict); once it is gone the delete goes through', async () => {
      const author = await request(server.url, 'POST', '/authors', { body: { name: 'Gone' } });
      const iri = author.json['@id'];
      const book = await request(server.url, 'POST', '/books', { body: { title: 'Orphan', author: iri } });
      expect(book.status).to.equal(201);
      const refused = await request(server.url, 'DELETE', iri);
      expect(refused.status).to.equal(409);
      expect(refused.json.detail).to.equal(`Author "${iri}" is referenced by 1 Book item (property "author").`);
      expect((await get(server.url, book.json['@id'])).json.author).to.equal(iri);
      const unset = await request(server.url, 'PATCH', book.json['@id'], {
        headers: MERGE_PATCH,
        body: { author: null },
      });
      expect(unset.status, unset.text).to.equal(200);
      expect((await request(server.url, 'DELETE', iri)).status).to.equal(204);
      const set = await request(server.url, 'POST', '/books', { body: { title: 'New', author: iri } });
      expect(set.status).to.equal(400);
    });
  });
}

describe('checker: route placeholders must bind to something', () => {
  const source = (template: string, links = ''): string => `resource Book {
  properties { id: int { identifier: true }, title: string }
  operations { GetCollection other { uriTemplate: "${template}"${links} } }
}`;

  it('reports a placeholder that is neither the identifier, nor a property, nor a link parameterName', () => {
    const found = check(source('/authors/{writer}/books')).all.filter((d) => d.code === 'unbound-placeholder');
    expect(found).to.have.length(1);
    expect(found[0].severity).to.equal('error');
    expect(found[0].message).to.contain('{writer}');
  });

  it('accepts a placeholder bound by links or naming a property', () => {
    const linked = source('/authors/{writer}/books', ', links: [{ parameterName: "writer", toProperty: "title" }]');
    expect(check(linked).all.filter((d) => d.code === 'unbound-placeholder')).to.deep.equal([]);
    expect(check(source('/titles/{title}/books')).all.filter((d) => d.code === 'unbound-placeholder')).to.deep.equal(
      [],
    );
  });
});

describe('checker: placeholders read by custom code', () => {
  it('are not reported when a provider, a controller or read: false takes the variables', () => {
    for (const option of ['provider: "./p.mjs#p"', 'controller: "./p.mjs#p"', 'read: false']) {
      const src = `resource Book {\n  properties { id: int { identifier: true } }\n  operations { GetCollection other { uriTemplate: "/x/{free}/books", ${option} } }\n}`;
      expect(
        check(src).all.filter((d) => d.code === 'unbound-placeholder'),
        option,
      ).to.deep.equal([]);
    }
  });
});
