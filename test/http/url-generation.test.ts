/**
 * urlGenerationStrategy over real HTTP, in memory and on the embedded store: absolute URLs (0) built from
 * the request's scheme and Host, network paths (3), absolute paths (1, the default) and paths relative to the
 * request's (2) in every IRI and link a response holds (`@id`, `@context`, relations, the collection's view, Location, JSON:API ids and
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

    it('2: paths relative to the request path in @id, @context, relations and Location', async () => {
      const topic = await request(server.url, 'POST', '/topics', { body: { name: 'sf' } });
      expect(topic.status, topic.text).to.equal(201);
      expect(topic.json).to.include({ '@id': 'topics/1', '@context': 'contexts/Topic' });
      expect(topic.headers.get('location')).to.equal('topics/1');
      expect((await get(server.url, '/topics/1')).json).to.include({ '@id': '1', '@context': '../contexts/Topic' });
      // Relative references sent are read against the request's path: `topics/1` from /reviews is /topics/1.
      const first = await request(server.url, 'POST', '/reviews', {
        body: { text: 'a', topic: 'topics/1', author: `${origin}/authors/1` },
      });
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.include({ '@id': 'reviews/1', topic: 'topics/1', author: `${origin}/authors/1` });
      const reply = await request(server.url, 'POST', '/reviews', {
        body: { text: 'b', topic: '/topics/1', replyTo: 'reviews/1' },
      });
      expect(reply.status, reply.text).to.equal(201);
      const read = await get(server.url, '/reviews/2');
      expect(read.json).to.include({
        '@id': '2',
        '@context': '../contexts/Review',
        topic: '../topics/1',
        replyTo: '1',
      });
      // A client resolving each IRI against the URL it read them from reaches the items.
      for (const key of ['@id', '@context', 'topic', 'replyTo']) {
        const target = new URL(read.json[key] as string, `${origin}/reviews/2`);
        expect((await get(server.url, target.pathname)).status, key).to.equal(200);
      }
      // What it read from /reviews/2, sent back to /reviews/2, names the same items.
      const put = await request(server.url, 'PUT', '/reviews/2', {
        body: { '@id': read.json['@id'], text: 'c', topic: read.json.topic, replyTo: read.json.replyTo },
      });
      expect(put.status, put.text).to.equal(200);
      expect(put.json).to.include({ '@id': '2', text: 'c', topic: '../topics/1', replyTo: '1' });
      // …and the same reference read against another path names another item (or none).
      const wrong = await request(server.url, 'PUT', '/reviews/2', { body: { text: 'd', topic: 'topics/1' } });
      expect(wrong.status, wrong.text).to.equal(400);
      expect(wrong.json.detail).to.equal('Invalid IRI "topics/1".');
    });

    it('2: the collection @id, its members and its view links relative to the request path', async () => {
      const page = await get(server.url, '/reviews?page=2');
      expect(page.status, page.text).to.equal(200);
      expect(page.json).to.include({ '@id': 'reviews', '@context': 'contexts/Review' });
      expect(page.json.member.map((m: Record<string, unknown>) => [m['@id'], m.topic])).to.deep.equal([
        ['reviews/2', 'topics/1'],
      ]);
      expect(page.json.view).to.include({
        '@id': 'reviews?page=2',
        first: 'reviews?page=1',
        previous: 'reviews?page=1',
      });
      const suffixed = await get(server.url, '/reviews/2.jsonld');
      expect(suffixed.json).to.include({ '@id': '2', topic: '../topics/1' });
      const json = await get(server.url, '/reviews/2', JSONAPI);
      expect(json.json.data.id).to.equal('2');
      expect(json.json.data.relationships.topic.data).to.deep.equal({ type: 'Topic', id: '../topics/1' });
      const first = await get(server.url, '/reviews/1', JSONAPI);
      expect(first.json.data.relationships.author.data).to.deep.equal({ type: 'Author', id: `${origin}/authors/1` });
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

describe('HTTP config defaults url_generation_strategy: 0', () => {
  const server = useServer(fixture('urls-config.api'));

  it('makes every IRI and link an absolute URL without any operation option', async () => {
    const origin = server.url.replace(/\/$/, '');
    const author = await request(server.url, 'POST', '/authors', { body: { name: 'Le Guin' } });
    expect(author.status, author.text).to.equal(201);
    expect(author.json).to.include({ '@id': `${origin}/authors/1`, '@context': `${origin}/contexts/Author` });
    expect(author.headers.get('location')).to.equal(`${origin}/authors/1`);
    for (const title of ['Earthsea', 'Tehanu']) {
      const book = await request(server.url, 'POST', '/books', { body: { title, author: '/authors/1' } });
      expect(book.status, book.text).to.equal(201);
      expect(book.json.author).to.equal(`${origin}/authors/1`);
    }
    const list = await get(server.url, '/books');
    expect(list.json['@id']).to.equal(`${origin}/books`);
    expect(list.json.member.map((m: Record<string, unknown>) => [m['@id'], m.author])).to.deep.equal([
      [`${origin}/books/1`, `${origin}/authors/1`],
    ]);
    expect(list.json.view).to.include({ '@id': `${origin}/books?page=1`, next: `${origin}/books?page=2` });
  });
});

describe('checker: urlGenerationStrategy', () => {
  const codes = (value: string): string[] =>
    check(`resource Book { urlGenerationStrategy: ${value}\n properties { id: int } }`).all.map(
      (d) => `${d.code}:${d.severity}`,
    );
  it('takes 0, 1, 2 and 3 silently, refuses anything else', () => {
    for (const v of ['0', '1', '2', '3']) expect(codes(v), v).to.deep.equal([]);
    expect(codes('4')).to.have.length(1);
    expect(codes('"ABS_URL"')).to.have.length(1);
  });
});
