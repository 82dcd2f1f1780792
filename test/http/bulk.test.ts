/**
 * Bulk writes: `bulk: true` on a Post takes a JSON array or NDJSON lines, runs every item through
 * the single POST's stages, writes all of them or none, and answers the created members (docs/data.md "Bulk writes").
 * Runs on both stores (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import {
  type HttpResponse,
  JSON_UTF8,
  JSONLD,
  NOT_BLANK,
  PROBLEM_JSON,
  request,
  type RunningServer,
  startServer,
  useServer,
} from './harness.js';
import { as, token } from './security-helpers.js';
import { subscribe } from './sse-client.js';

const FIXTURE = fromRoot('test/fixtures/bulk/bulk.api');
const NDJSON = { 'Content-Type': 'application/x-ndjson' };

const post = (
  server: RunningServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResponse> =>
  request(server.url, 'POST', path, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/ld+json', ...headers },
  });

const totalOf = async (server: RunningServer, path: string): Promise<number> =>
  (await request(server.url, 'GET', path)).json.totalItems as number;

describe('HTTP bulk writes (bulk: true)', () => {
  const server = useServer(FIXTURE);

  it('creates every item of a JSON array: 201, a Hydra Collection of the members, no Location', async () => {
    const author = await post(server, '/authors', { name: 'Ursula' });
    expect(author.status, author.text).to.equal(201);
    const r = await post(server, '/books', [
      { title: 'One', isbn: '1', author: '/authors/1', note: 'n' },
      { title: 'Two', isbn: '2', price: 3 },
    ]);
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.headers.get('location')).to.equal(null);
    // The operation's normalization groups apply to each member, as to a single POST's answer.
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books',
      '@type': 'Collection',
      totalItems: 2,
      member: [
        { '@id': '/books/1', '@type': 'Book', title: 'One', note: 'n' },
        { '@id': '/books/2', '@type': 'Book', title: 'Two' },
      ],
    });
    const one = await request(server.url, 'GET', '/books/1');
    expect(one.json).to.deep.include({ id: 1, title: 'One', isbn: '1', author: '/authors/1', note: 'n' });
  });

  it('keeps the count and the stored members exact after a batch', async () => {
    const before = await totalOf(server, '/books');
    const batch = Array.from({ length: 5 }, (_, i) => ({ title: `Count ${i}`, isbn: `c${i}` }));
    expect((await post(server, '/books', batch)).status).to.equal(201);
    const page = await request(server.url, 'GET', '/books?page=1');
    expect(page.json.totalItems).to.equal(before + 5);
    const titles = (page.json.member as { title: string }[]).map((m) => m.title);
    expect(titles.slice(-5)).to.deep.equal(batch.map((b) => b.title));
    // Each listed member is the document its item GET answers (the stored rendering is the item's).
    const last = (page.json.member as { '@id': string }[]).at(-1)!;
    const item = await request(server.url, 'GET', last['@id']);
    const { '@context': _context, ...document } = item.json;
    expect(last).to.deep.equal(document);
  });

  it('validates item by item with the operation groups: 422 with violations prefixed by the index, nothing written', async () => {
    const before = await totalOf(server, '/books');
    const r = await post(server, '/books', [
      { title: 'Fine', isbn: '9' },
      { title: 'A title far too long for it', price: -1, isbn: '1' },
      { title: 'No isbn' },
    ]);
    expect(r.status, r.text).to.equal(422);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(
      (r.json.violations as { propertyPath: string; code: string }[]).map((v) => [v.propertyPath, v.code]),
    ).to.deep.equal([
      ['[1].title', 'd94b19cc-114f-4f44-9cc4-4138e80a87b9'],
      ['[1].price', 'ea4e51d1-3342-48bd-87f1-9e672cd90cad'],
      ['[2].isbn', NOT_BLANK],
    ]);
    expect(await totalOf(server, '/books')).to.equal(before);
  });

  it('refuses a batch whose relation does not resolve (400 naming the item), nothing written', async () => {
    const before = await totalOf(server, '/books');
    const r = await post(server, '/books', [
      { title: 'Ok', isbn: '1' },
      { title: 'Orphan', isbn: '2', author: '/authors/999' },
    ]);
    expect(r.status, r.text).to.equal(400);
    expect(r.json.detail).to.equal('Item [1]: Item not found for "/authors/999".');
    expect(await totalOf(server, '/books')).to.equal(before);
  });

  it('refuses an item that is not an object (400 naming the item)', async () => {
    const r = await post(server, '/books', [{ title: 'Ok', isbn: '1' }, 42]);
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Item [1]: The input data is misformatted.');
  });

  it('writes all or none: a repeated identifier answers 409 and writes none of the batch', async () => {
    const r = await post(server, '/authors', { id: 50, name: 'Stored' });
    expect(r.status, r.text).to.equal(201);
    // Authors take their identifier from the body (`readOnly: false`); the batch's second item collides with a stored one.
    const bulkAuthors = await post(server, '/authors', [
      { id: 60, name: 'New' },
      { id: 50, name: 'Taken' },
    ]);
    expect(bulkAuthors.status, bulkAuthors.text).to.equal(409);
    expect((await request(server.url, 'GET', '/authors/60')).status).to.equal(404);
    expect((await request(server.url, 'GET', '/authors/50')).json.name).to.equal('Stored');
  });

  it('takes NDJSON lines (a final newline optional, CRLF too)', async () => {
    const r = await post(server, '/books', '{"title":"Nd1","isbn":"1"}\r\n{"title":"Nd2","isbn":"2"}\n', NDJSON);
    expect(r.status, r.text).to.equal(201);
    expect((r.json.member as { title: string }[]).map((m) => m.title)).to.deep.equal(['Nd1', 'Nd2']);
    const noFinalNewline = await post(server, '/books', '{"title":"Nd3","isbn":"3"}', NDJSON);
    expect(noFinalNewline.status).to.equal(201);
    expect(noFinalNewline.json.totalItems).to.equal(1);
  });

  it('reports the line of an NDJSON syntax error or empty line, and writes nothing', async () => {
    const before = await totalOf(server, '/books');
    const broken = await post(
      server,
      '/books',
      '{"title":"A","isbn":"1"}\n{"title":"B",\n{"title":"C","isbn":"3"}\n',
      NDJSON,
    );
    expect(broken.status).to.equal(400);
    expect(broken.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(broken.json.detail).to.equal('Line 2 of the NDJSON body: Syntax error');
    const empty = await post(server, '/books', '{"title":"A","isbn":"1"}\n\n{"title":"C","isbn":"3"}\n', NDJSON);
    expect(empty.status).to.equal(400);
    expect(empty.json.detail).to.equal('Line 2 of the NDJSON body is empty.');
    expect(await totalOf(server, '/books')).to.equal(before);
  });

  it('limits a batch to bulk_max_items (413) and refuses an empty one (400)', async () => {
    const before = await totalOf(server, '/books');
    const six = Array.from({ length: 6 }, (_, i) => ({ title: `T${i}`, isbn: `${i}` }));
    const tooMany = await post(server, '/books', six);
    expect(tooMany.status).to.equal(413);
    expect(tooMany.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(tooMany.json.detail).to.equal('The batch holds 6 items, more than the limit of 5 (setting bulk_max_items).');
    const tooManyLines = await post(server, '/books', six.map((b) => JSON.stringify(b)).join('\n'), NDJSON);
    expect(tooManyLines.status).to.equal(413);
    const empty = await post(server, '/books', []);
    expect(empty.status).to.equal(400);
    expect(empty.json.detail).to.equal('The batch is empty: send at least one item.');
    expect((await post(server, '/books', '', NDJSON)).status).to.equal(400);
    expect(await totalOf(server, '/books')).to.equal(before);
  });

  it('still takes one object as a single POST (201 with Location)', async () => {
    const r = await post(server, '/books', { title: 'Single', isbn: 's' });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('location')).to.match(/^\/books\/\d+$/);
    expect(r.json['@id']).to.equal(r.headers.get('location'));
  });

  it('answers a bare JSON array of the members to Accept: application/json', async () => {
    const r = await post(server, '/books', [{ title: 'Plain', isbn: 'p' }], {
      'Content-Type': 'application/json',
      Accept: 'application/json',
    });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
    expect(r.json).to.deep.equal([{ title: 'Plain' }]);
  });

  it('keeps the answer of an operation without bulk: an array body is a 400, NDJSON a 415', async () => {
    const array = await post(server, '/tags', [{ label: 'a' }]);
    expect(array.status).to.equal(400);
    expect(array.json.detail).to.equal('The input data is misformatted.');
    const ndjson = await post(server, '/tags', '{"label":"a"}\n', NDJSON);
    expect(ndjson.status).to.equal(415);
    expect(await totalOf(server, '/tags')).to.equal(0);
  });

  it('lists application/x-ndjson in Accept-Post of a bulk collection only', async () => {
    const books = await request(server.url, 'GET', '/books');
    expect(books.headers.get('accept-post')).to.equal('application/ld+json, application/json, application/x-ndjson');
    const tags = await request(server.url, 'GET', '/tags');
    expect(tags.headers.get('accept-post')).to.equal('application/ld+json, application/json');
  });

  it('documents the array and NDJSON request bodies in OpenAPI', async () => {
    const doc = (await request(server.url, 'GET', '/docs.json')).json;
    const body = doc.paths['/books'].post.requestBody;
    const schema = body.content['application/ld+json'].schema;
    expect(schema.oneOf).to.have.length(2);
    expect(schema.oneOf[1]).to.include({ type: 'array', minItems: 1, maxItems: 5 });
    expect(body.content['application/x-ndjson'].itemSchema).to.deep.equal(schema.oneOf[0]);
    expect(doc.paths['/tags'].post.requestBody.content).to.not.have.property('application/x-ndjson');
  });
});

describe('HTTP bulk writes: the security stages per item', () => {
  const server = useServer(FIXTURE);
  let alice: string;
  let admin: string;
  before(async () => {
    alice = await token({ sub: 'alice', roles: ['ROLE_USER'] });
    admin = await token({ sub: 'root', roles: ['ROLE_USER', 'ROLE_ADMIN'] });
  });

  const notes = async (): Promise<{ owner: string; text: string; status?: string }[]> =>
    (await as(admin, server.url, 'GET', '/notes')).json.member;

  it('refuses an anonymous batch (401) and writes nothing', async () => {
    const r = await as(undefined, server.url, 'POST', '/notes', { body: [{ owner: 'x', text: 'a' }] });
    expect(r.status).to.equal(401);
    expect(await notes()).to.deep.equal([]);
  });

  it('securityPostDenormalize runs on each item: one denied item refuses the batch (403), nothing written', async () => {
    const r = await as(alice, server.url, 'POST', '/notes', {
      body: [
        { owner: 'alice', text: 'mine' },
        { owner: 'bob', text: 'his' },
      ],
    });
    expect(r.status, r.text).to.equal(403);
    expect(r.json.detail).to.equal('You can only create your own notes.');
    expect(await notes()).to.deep.equal([]);
  });

  it('property write rules apply per item: a user cannot set status, an admin can', async () => {
    const mine = await as(alice, server.url, 'POST', '/notes', {
      body: [
        { owner: 'alice', text: 'a', status: 'pinned' },
        { owner: 'alice', text: 'b' },
      ],
    });
    expect(mine.status, mine.text).to.equal(201);
    const theirs = await as(admin, server.url, 'POST', '/notes', {
      body: [{ owner: 'carol', text: 'c', status: 'pinned' }],
    });
    expect(theirs.status, theirs.text).to.equal(201);
    expect((await notes()).map(({ owner, text, status }) => ({ owner, text, status }))).to.deep.equal([
      { owner: 'alice', text: 'a', status: undefined },
      { owner: 'alice', text: 'b', status: undefined },
      { owner: 'carol', text: 'c', status: 'pinned' },
    ]);
  });
});

describe('HTTP bulk writes: Mercure and the HTTP cache', function () {
  this.timeout(30_000);
  let server: RunningServer;
  before(async () => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = 'subscriber-key-for-tests-0123456789';
    process.env.MERCURE_PUBLISHER_JWT_KEY = 'publisher-key-for-tests-0123456789';
    server = await startServer(fromRoot('test/fixtures/bulk/live.api'));
  });
  after(async () => {
    delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
    delete process.env.MERCURE_PUBLISHER_JWT_KEY;
    await server?.stop();
  });

  it('publishes each created item as its GET document, in order; a refused batch publishes nothing', async () => {
    const s = subscribe(`${server.url}/.well-known/mercure`, ['/books/{id}'], {}, []);
    try {
      await s.opened;
      expect((await post(server, '/books', [{ title: 'Ok' }, {}])).status).to.equal(422);
      const r = await post(server, '/books', [{ title: 'First' }, { title: 'Second' }]);
      expect(r.status, r.text).to.equal(201);
      const events = await s.waitFor(2);
      for (const [i, event] of events.entries()) {
        const got = await request(server.url, 'GET', (r.json.member as { '@id': string }[])[i]['@id']);
        expect(JSON.parse(event.data)).to.deep.equal(got.json);
      }
      expect(s.events.map((e) => JSON.parse(e.data).title)).to.deep.equal(['First', 'Second']);
    } finally {
      s.close();
    }
  });

  it('a batch invalidates the cached collection page: the next read shows its items', async () => {
    const before = await request(server.url, 'GET', '/books');
    expect((await request(server.url, 'GET', '/books')).text, 'served from the cache').to.equal(before.text);
    expect((await post(server, '/books', [{ title: 'Third' }, { title: 'Fourth' }])).status).to.equal(201);
    const after = await request(server.url, 'GET', '/books');
    expect(after.json.totalItems).to.equal(before.json.totalItems + 2);
    expect((after.json.member as { title: string }[]).slice(-2).map((m) => m.title)).to.deep.equal(['Third', 'Fourth']);
  });
});
