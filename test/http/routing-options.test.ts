/**
 * Routing options over real HTTP: `priority` orders routes that match the same path, `defaults` make
 * a trailing placeholder optional, `schemes` and `host` restrict a route, `order` sorts a listing, and an
 * item returned by an operation other than an item Get shows its canonical IRI as `@id`.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { check } from '../../grammar/checker/index.js';
import { fixture, get, request, useServer } from './harness.js';

/** A GET sent with the given Host header (fetch sends the URL's own). */
function withHost(base: string, path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { headers: { Host: host, Accept: 'application/ld+json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP routing options', () => {
  const server = useServer(fixture('routing.api'));
  before(async () => {
    for (const body of [
      { slug: 'dune', genre: 'fiction' },
      { slug: 'cosmos', genre: 'science' },
    ]) {
      expect((await request(server.url, 'POST', '/items', { body })).status).to.equal(201);
    }
  });

  it('priority: the higher-priority route wins over a literal one matching the same path', async () => {
    const r = await get(server.url, '/items/by/all');
    expect(r.status, r.text).to.equal(200);
    expect(r.json.totalItems).to.equal(0); // served by bySlug with slug "all", not by everything
    expect(r.json['@id']).to.equal('/items/by/all');
    expect((await get(server.url, '/items/by/dune')).json.totalItems).to.equal(1);
  });

  it('defaults: a trailing placeholder with a default may be left out', async () => {
    const short = await get(server.url, '/shelf');
    expect(short.status, short.text).to.equal(200);
    expect(short.json.member.map((m: { slug: string }) => m.slug)).to.deep.equal(['dune']);
    const explicit = await get(server.url, '/shelf/science');
    expect(explicit.json.member.map((m: { slug: string }) => m.slug)).to.deep.equal(['cosmos']);
  });

  it('schemes: a route limited to https does not answer over http', async () => {
    const r = await get(server.url, '/secure/items');
    expect(r.status).to.equal(404); // no route takes it: not a 405 naming GET, which this request may not use
    expect(r.json).to.not.have.property('member');
  });

  it('host: a route answers only for a Host its pattern matches, placeholders included', async () => {
    for (const host of ['acme.example.test', 'Other.Example.Test', 'acme.example.test:8443']) {
      const r = await withHost(server.url, '/hosted/items', host);
      expect(r.status, `${host}: ${r.text}`).to.equal(200);
      expect(JSON.parse(r.text).totalItems, host).to.equal(2);
    }
    // The request's own Host (127.0.0.1:port), no label before example.test, two labels, another domain.
    expect((await get(server.url, '/hosted/items')).status).to.equal(404);
    for (const host of ['example.test', 'a.b.example.test', 'acme.example.test.evil.test', 'acme.example.org'])
      expect((await withHost(server.url, '/hosted/items', host)).status, host).to.equal(404);
  });

  it('order: the default sort of a listing the client does not sort', async () => {
    const slugs = (r: { json: { member: { slug: string }[] } }): string[] => r.json.member.map((m) => m.slug);
    expect(slugs(await get(server.url, '/items'))).to.deep.equal(['dune', 'cosmos']); // by identifier
    expect(slugs(await get(server.url, '/items/sorted'))).to.deep.equal(['cosmos', 'dune']);
  });

  it('a resource shortName names its routes, @type and context', async () => {
    const r = await request(server.url, 'POST', '/widgets', { body: { label: 'w' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.include({ '@context': '/contexts/Widget', '@id': '/widgets/1', '@type': 'Widget' });
  });

  it('the @id of an item returned by a non-Get operation is its canonical IRI, one a GET answers', async () => {
    const r = await request(server.url, 'PATCH', '/items/1/rename', {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { slug: 'dune-2' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json['@id']).to.equal('/items/1');
    expect((await get(server.url, r.json['@id'])).status).to.equal(200);
  });
});

describe('HTTP pipeline switches serialize and input', () => {
  const server = useServer(fixture('routing.api'));

  it('serialize: false stores the item and answers without a body', async () => {
    const r = await request(server.url, 'POST', '/items/quiet', { body: { slug: 'quiet' } });
    expect(r.status).to.equal(201);
    expect(r.text).to.equal('');
    expect((await get(server.url, '/items/1')).json.slug).to.equal('quiet');
  });

  it('input: false reads no request body: the item keeps its values', async () => {
    const r = await request(server.url, 'PUT', '/items/1/touch', { body: { slug: 'changed' } });
    expect(r.status, r.text).to.equal(200);
    expect((await get(server.url, '/items/1')).json.slug).to.equal('quiet');
  });
});

describe('HTTP custom code: ctx.persist and collection controllers', () => {
  const server = useServer(fixture('routing.api'));

  it('ctx.persist normalizes datetimes as the default write does', async () => {
    const r = await request(server.url, 'POST', '/events', { body: {} });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.at).to.equal('2024-01-03T12:00:00+00:00');
    expect((await get(server.url, r.json['@id'])).json.at).to.equal('2024-01-03T12:00:00+00:00');
  });

  it("a GetCollection controller's paginator is the page served, with its totals and links", async () => {
    const r = await get(server.url, '/events');
    expect(r.status, r.text).to.equal(200);
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(['/events/7', '/events/8']);
    expect(r.json.totalItems).to.equal(3);
    expect(r.json.view.next).to.equal('/events?page=2');
  });
});

describe("checker: routes under the service's own paths", () => {
  it('reports a resource path that collides with a built-in route', () => {
    for (const [decl, path] of [
      ['resource Doc { routePrefix: "/docs", properties { id: int } }', '/docs/docs'],
      ['resource Context { properties { id: int } }', '/contexts'],
      ['resource Error { properties { id: int } }', '/errors'],
      [
        'resource X { properties { id: int }, operations { Get { uriTemplate: "/.well-known/x/{id}" } } }',
        '/.well-known/x/{id}',
      ],
    ]) {
      const found = check(decl).all.filter((d) => d.code === 'reserved-path');
      expect(found.length, decl).to.be.greaterThan(0);
      expect(found[0].severity).to.equal('error');
      expect(
        found.some((d) => d.message.startsWith(path)),
        found.map((d) => d.message).join('\n'),
      ).to.equal(true);
    }
    expect(
      check('resource Doctor { properties { id: int } }').all.filter((d) => d.code === 'reserved-path'),
    ).to.deep.equal([]);
  });
});

describe("HTTP an operation's shortName", () => {
  const server = useServer(fixture('routing.api'));
  before(async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Dune' } });
    expect(r.status, r.text).to.equal(201);
    // The resource's operations keep the resource's shortName.
    expect(r.json).to.include({ '@context': '/contexts/Book', '@id': '/books/1', '@type': 'Book' });
  });

  it('types the item its Get returns and names the generated path and the context', async () => {
    const r = await get(server.url, '/novels/1');
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Novel',
      '@id': '/novels/1',
      '@type': 'Novel',
      id: 1,
      title: 'Dune',
    });
    expect((await get(server.url, '/books/1')).json).to.include({ '@context': '/contexts/Book', '@type': 'Book' });
  });

  it('types the members of its collection, and the collection has its context', async () => {
    const novels = await get(server.url, '/novels');
    expect(novels.status, novels.text).to.equal(200);
    expect(novels.json['@context']).to.equal('/contexts/Novel');
    expect(novels.json.member.map((m: Record<string, unknown>) => m['@type'])).to.deep.equal(['Novel']);
    const books = await get(server.url, '/books');
    expect(books.json['@context']).to.equal('/contexts/Book');
    expect(books.json.member.map((m: Record<string, unknown>) => m['@type'])).to.deep.equal(['Book']);
  });

  it('serves the context it names, with the terms under its shortName', async () => {
    const r = await get(server.url, '/contexts/Novel', { Accept: 'application/ld+json' });
    expect(r.status, r.text).to.equal(200);
    expect(r.json['@context']).to.include({ title: 'Novel/title' });
    expect((await get(server.url, '/contexts/Book')).json['@context']).to.include({ title: 'Book/title' });
    expect((await get(server.url, '/contexts/Fiction')).status).to.equal(404);
  });

  it('names its schemas in the OpenAPI document and its class in the Hydra documentation', async () => {
    const openapi = (await get(server.url, '/docs.json')).json;
    const okSchema = (path: string) =>
      openapi.paths[path].get.responses['200'].content['application/ld+json'].schema as Record<string, unknown>;
    expect(okSchema('/novels/{id}')).to.deep.equal({ $ref: '#/components/schemas/Novel.jsonld' });
    expect(okSchema('/books/{id}')).to.deep.equal({ $ref: '#/components/schemas/Book.jsonld' });
    expect(openapi.components.schemas['Novel.jsonld'].properties['@type'].examples).to.deep.equal(['Novel']);
    const hydra = (await get(server.url, '/docs.jsonld')).json;
    const novel = hydra.supportedClass.find((c: Record<string, unknown>) => c['@id'] === '#Novel');
    expect(novel, JSON.stringify(hydra.supportedClass.map((c: Record<string, unknown>) => c['@id']))).to.not.equal(
      undefined,
    );
    expect(novel.supportedOperation.map((o: Record<string, unknown>) => o.returns)).to.deep.equal(['Novel']);
  });
});

describe("checker: an operation's shortName", () => {
  it('is accepted without a warning and names the generated route', () => {
    const source =
      'resource Book { properties { id: int }\n operations { Get, Get novel { shortName: "Novel" }, GetCollection } }';
    expect(check(source).all).to.deep.equal([]);
  });

  it("is an error when it is another resource's shortName", () => {
    const source =
      'resource Author { shortName: "Writer", properties { id: int } }\n' +
      'resource Book { properties { id: int }\n operations { Get { shortName: "Writer" } } }';
    const found = check(source).all.filter((d) => d.code === 'shortname-taken');
    expect(found.map((d) => [d.severity, source.slice(d.range.start, d.range.end)])).to.deep.equal([
      ['error', '"Writer"'],
    ]);
  });
});
