/**
 * urlGenerationStrategy over real HTTP, in memory and on the embedded store: absolute URLs (0) built from
 * the request's scheme and Host, network paths (3) and absolute paths (1, the default) in every IRI and
 * link a response holds (`@id`, `@context`, relations, the collection's view, Location, JSON:API ids and
 * links); IRIs sent back in any of these forms are accepted and stored as paths.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { check } from '../../grammar/checker/index.js';
import { fixture, get, request, tempDir, useServer } from './harness.js';

const JSONAPI = { Accept: 'application/vnd.api+json' };

/** A GET with another Host header than the server's address (fetch may not set Host). */
function getWithHost(base: string, path: string, host: string): Promise<Record<string, unknown>> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { Host: host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
    });
    req.on('error', reject);
    req.end();
  });
}

for (const storage of [['--memory'], ['--data', 'DIR']]) {
  describe(`HTTP urlGenerationStrategy (${storage[0]})`, () => {
    const server = useServer(fixture('urls.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));
    let origin: string;
    let net: string;
    before(async () => {
      origin = server.url.replace(/\/$/, '');
      net = origin.replace(/^http:/, '');
    });

    it("0: absolute URLs from the request's Host, in @id, @context and Location", async () => {
      const r = await request(server.url, 'POST', '/authors', { body: { name: 'Le Guin' } });
      expect(r.status, r.text).to.equal(201);
      expect(r.json).to.include({ '@context': `${origin}/contexts/Author`, '@id': `${origin}/authors/1` });
      expect(r.headers.get('location')).to.equal(`${origin}/authors/1`);
      await request(server.url, 'POST', '/authors', { body: { name: 'Herbert' } });
      const other = await getWithHost(server.url, '/authors/1', 'api.example.test:8080');
      expect(other['@id']).to.equal('http://api.example.test:8080/authors/1');
    });

    it('0: the collection @id and its view links are absolute URLs', async () => {
      const r = await get(server.url, '/authors');
      expect(r.json['@id']).to.equal(`${origin}/authors`);
      expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal([`${origin}/authors/1`]);
      expect(r.json.view).to.include({
        '@id': `${origin}/authors?page=1`,
        first: `${origin}/authors?page=1`,
        last: `${origin}/authors?page=2`,
        next: `${origin}/authors?page=2`,
      });
      expect((await get(server.url, r.json.view.next.slice(origin.length))).json.member[0]['@id']).to.equal(
        `${origin}/authors/2`,
      );
    });

    it("3: network paths; a relation follows its target's strategy; an absolute URL sent is stored as a path", async () => {
      const r = await request(server.url, 'POST', '/books', {
        body: { title: 'Earthsea', author: `${origin}/authors/1` },
      });
      expect(r.status, r.text).to.equal(201);
      expect(r.json).to.include({ '@id': `${net}/books/1`, author: `${origin}/authors/1` });
      expect(r.headers.get('location')).to.equal(`${net}/books/1`);
      const viaNet = await request(server.url, 'POST', '/books', {
        body: { title: 'Dune', author: `${net}/authors/2` },
      });
      expect(viaNet.status, viaNet.text).to.equal(201);
      const plain = await get(server.url, '/books/2', { Accept: 'application/json' });
      expect(plain.json.author).to.equal(`${origin}/authors/2`);
      // A search filter on the relation takes the IRI in any of its forms.
      for (const author of [`${origin}/authors/2`, `${net}/authors/2`, '/authors/2', '2']) {
        const found = await get(server.url, `/books?author=${encodeURIComponent(author)}`);
        expect(
          found.json.member.map((m: { title: string }) => m.title),
          author,
        ).to.deep.equal(['Dune']);
      }
      const dangling = await request(server.url, 'POST', '/books', {
        body: { title: 'X', author: `${origin}/authors/9` },
      });
      expect(dangling.status).to.equal(400);
      expect(dangling.json.detail).to.equal('Item not found for "/authors/9".');
    });

    it("1 (default): absolute paths, relations in their targets' style; an operation may choose its own", async () => {
      const r = await request(server.url, 'POST', '/shelves', { body: { books: [`${net}/books/1`, '/books/2'] } });
      expect(r.status, r.text).to.equal(201);
      expect(r.json).to.include({ '@id': '/shelves/1', '@context': '/contexts/Shelf' });
      expect(r.json.books).to.deep.equal([`${net}/books/1`, `${net}/books/2`]);
      expect(r.headers.get('location')).to.equal('/shelves/1');
      for (let i = 0; i < 2; i++) {
        const list = await get(server.url, '/shelves');
        expect(list.json['@id']).to.equal('/shelves');
        expect(list.json.member).to.deep.equal([
          { '@id': '/shelves/1', '@type': 'Shelf', id: 1, books: [`${net}/books/1`, `${net}/books/2`] },
        ]);
      }
      const absolute = await get(server.url, '/absolute/shelves');
      expect(absolute.json).to.include({ '@id': `${origin}/absolute/shelves`, '@context': `${origin}/contexts/Shelf` });
      // Item IRIs follow the item Get's strategy, not the listing operation's.
      expect(absolute.json.member[0]['@id']).to.equal('/shelves/1');
    });

    it('PUT accepts the @id it was given back as an absolute URL', async () => {
      const r = await request(server.url, 'PUT', '/authors/1', {
        body: { '@id': `${origin}/authors/1`, name: 'Ursula K. Le Guin' },
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.name).to.equal('Ursula K. Le Guin');
    });

    it('JSON:API: resource ids, relationship ids and links in the same styles', async () => {
      const book = await get(server.url, '/books/1', JSONAPI);
      expect(book.json.data.id).to.equal(`${net}/books/1`);
      expect(book.json.data.relationships.author.data).to.deep.equal({ type: 'Author', id: `${origin}/authors/1` });
      const authors = await get(server.url, '/authors', JSONAPI);
      expect(authors.json.links.next).to.equal(`${origin}/authors?page=2`);
      expect(authors.json.data[0].id).to.equal(`${origin}/authors/1`);
    });
  });
}

describe('checker: urlGenerationStrategy', () => {
  const codes = (value: string): string[] =>
    check(`resource Book { urlGenerationStrategy: ${value}\n properties { id: int } }`).all.map(
      (d) => `${d.code}:${d.severity}`,
    );
  it('takes 0, 1 and 3 silently, warns that 2 (relative path) is not supported, refuses anything else', () => {
    for (const v of ['0', '1', '3']) expect(codes(v), v).to.deep.equal([]);
    expect(codes('2')).to.deep.equal(['not-supported:warning']);
    expect(codes('4')).to.have.length(1);
    expect(codes('"ABS_URL"')).to.have.length(1);
  });
});
