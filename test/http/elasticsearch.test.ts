/**
 * `elasticsearch: true` against a real engine (ZincSearch, test/support/zincsearch.ts), on the store the suite
 * runs on (APIDSL_TEST_STORE): Get and GetCollection read the search index (match, term, order, range, page and
 * partial pagination, totalItems from the hits total, 404), security and serialization groups apply to what the
 * index returns, and every write (a POST, the bulk endpoint, PATCH, DELETE, a message handler, `apidsl import`)
 * reaches the index after the store committed it. The outage suite stops the engine during writes: they still
 * succeed, reads answer 503, and the index catches up once the engine is back (elasticsearch-retry.test.ts).
 */
import { expect } from 'chai';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';
import {
  engineEnv,
  engineInFile,
  ownZincOrSkip,
  silentEngine,
  type SilentEngine,
  ZINC_PASSWORD,
  ZINC_USER,
  zincOrSkip,
  type ZincServer,
} from '../support/zincsearch.js';
import { get, request, startServer, type HttpResponse, type RunningServer } from './harness.js';
import { lastingStore } from './lasting-store.js';
import { bearer, token } from './security-helpers.js';
import { eventually } from '../support/eventually.js';

let counter = 0;

/** The fixture in a directory of its own, its indexes under a prefix no other server uses. */
function indexedFixture(): { dir: string; file: string; prefix: string } {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-es-'));
  const prefix = `t${process.pid}_${++counter}_`;
  const text = readFileSync(fromRoot('test/fixtures/elasticsearch/books.api'), 'utf8').replaceAll(
    'INDEX_PREFIX',
    prefix,
  );
  const file = join(dir, 'books.api');
  writeFileSync(file, text);
  copyFileSync(fromRoot('test/fixtures/elasticsearch/handlers.mjs'), join(dir, 'handlers.mjs'));
  return { dir, file, prefix };
}

/** What the engine itself holds in an index: the documents' identifiers, in order. */
async function engineIds(engine: ZincServer, index: string): Promise<number[]> {
  const r = await fetch(`${engine.url}/${index}/_search`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${ZINC_USER}:${ZINC_PASSWORD}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ query: { match_all: {} }, sort: [{ id: { order: 'asc' } }], size: 1000 }),
  });
  const body = (await r.json()) as { hits?: { hits: { _source: { id: number } }[] } };
  return (body.hits?.hits ?? []).map((h) => h._source.id);
}

const ids = (r: HttpResponse): number[] => (r.json?.member ?? []).map((m: { id: number }) => m.id);
const sameIds = (expected: number[]) => (actual: number[]) => JSON.stringify(actual) === JSON.stringify(expected);

const BOOKS = [
  {
    title: 'The quick brown fox',
    summary: 'A fox jumps',
    isbn: '111',
    price: 12.5,
    available: true,
    publishedOn: '2024-01-02',
    author: '/authors/1',
    internalNote: 'note 1',
    supplier: 'ACME',
  },
  {
    title: 'Lazy dogs sleep',
    summary: 'quiet afternoon',
    isbn: '222',
    price: 5,
    available: true,
    publishedOn: '2023-05-06',
    author: '/authors/2',
  },
  {
    title: 'Quick recipes',
    summary: 'kitchen',
    isbn: '333',
    price: 20,
    available: false,
    publishedOn: '2022-01-01',
    author: '/authors/1',
  },
  {
    title: 'Brown bread',
    summary: 'a quick loaf',
    isbn: '444',
    price: 7.25,
    available: true,
    publishedOn: '2021-07-08',
    author: '/authors/2',
  },
  {
    title: 'Zebra stripes',
    summary: 'savanna',
    isbn: '555',
    price: 30,
    available: true,
    publishedOn: '2020-03-04',
    author: '/authors/1',
  },
];

const withEngine = (engine: ZincServer): void => void Object.assign(process.env, engineEnv(engine));
const withoutEngine = (engine: ZincServer): void => {
  for (const name of Object.keys(engineEnv(engine))) delete process.env[name];
};

describe('HTTP elasticsearch: operations that read the search index', function () {
  this.timeout(120_000);
  let engine: ZincServer;
  let server: RunningServer;
  let fixture: ReturnType<typeof indexedFixture>;
  let admin: Record<string, string>;

  before(async function () {
    engine = await zincOrSkip(this);
    fixture = indexedFixture();
    withEngine(engine);
    server = await startServer(fixture.file);
    admin = bearer(await token({ sub: 'admin', roles: ['ROLE_ADMIN'] }));
    for (const name of ['Ann', 'Bob'])
      expect((await request(server.url, 'POST', '/authors', { body: { name } })).status).to.equal(201);
    // The bulk endpoint: one batch, one store write, one `_bulk` request to the index.
    const created = await request(server.url, 'POST', '/books', { body: BOOKS, headers: admin });
    expect(created.status, created.text).to.equal(201);
    const indexed = await eventually(
      () => engineIds(engine, `${fixture.prefix}book`),
      (x) => x.length === 5,
    );
    expect(indexed).to.deep.equal([1, 2, 3, 4, 5]);
  });

  after(async () => {
    await server?.stop();
    if (engine) withoutEngine(engine);
  });

  it('creates the index under its API Platform name (the short name tableized, after index_prefix)', async () => {
    expect(await engineIds(engine, `${fixture.prefix}book`)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(await engineIds(engine, `${fixture.prefix}author`)).to.deep.equal([]); // Author reads the store: no index
  });

  it('answers match filters with full-text matching, which the store cannot do', async () => {
    // "quick" is a word of titles 1 and 3, of summary 4; the store's partial search would also match no word boundary.
    expect(ids(await get(server.url, '/books?title=quick'))).to.deep.equal([1, 3]);
    expect(ids(await get(server.url, '/books?summary=quick'))).to.deep.equal([4]);
    // Any of the words: an analysed match query.
    expect(ids(await get(server.url, '/books?title=zebra%20bread'))).to.deep.equal([4, 5]);
    expect(ids(await get(server.url, '/books?title[]=lazy&title[]=zebra'))).to.deep.equal([2, 5]);
  });

  it('answers term filters with exact values: strings, relations by IRI, booleans, dates', async () => {
    expect(ids(await get(server.url, '/books?isbn=222'))).to.deep.equal([2]);
    expect(ids(await get(server.url, '/books?isbn[]=111&isbn[]=555'))).to.deep.equal([1, 5]);
    expect(ids(await get(server.url, '/books?author=/authors/2'))).to.deep.equal([2, 4]);
    expect(ids(await get(server.url, '/books?author=1'))).to.deep.equal([1, 3, 5]);
    expect(ids(await get(server.url, '/books?available=false'))).to.deep.equal([3]);
    expect(ids(await get(server.url, '/books?publishedOn=2021-07-08'))).to.deep.equal([4]);
    expect(ids(await get(server.url, '/books?isbn=999'))).to.deep.equal([]);
  });

  it('answers order and range filters, combined with the others', async () => {
    expect(ids(await get(server.url, '/books?order[price]=desc'))).to.deep.equal([5, 3, 1]);
    expect(ids(await get(server.url, '/books?order[title]=asc'))).to.deep.equal([4, 2, 3]);
    expect(ids(await get(server.url, '/books?order[title]=asc&page=2'))).to.deep.equal([1, 5]);
    expect(ids(await get(server.url, '/books?price[gte]=10&order[price]=asc'))).to.deep.equal([1, 3, 5]);
    expect(ids(await get(server.url, '/books?price[between]=5..13&author=/authors/2'))).to.deep.equal([2, 4]);
  });

  it('paginates by page with totalItems from the hits total, and partially without a count', async () => {
    const first = await get(server.url, '/books?order[price]=asc');
    expect(first.json.totalItems).to.equal(5);
    expect(ids(first)).to.deep.equal([2, 4, 1]);
    expect(first.json.view.next).to.equal('/books?order%5Bprice%5D=asc&page=2');
    const second = await get(server.url, '/books?order[price]=asc&page=2');
    expect(second.json.totalItems).to.equal(5);
    expect(ids(second)).to.deep.equal([3, 5]);
    expect(second.json.view.next).to.equal(undefined);
    const filtered = await get(server.url, '/books?title=quick');
    expect(filtered.json.totalItems).to.equal(2);
    const partial = await get(server.url, '/books?partial=true');
    expect(partial.json.totalItems).to.equal(undefined);
    expect(ids(partial)).to.deep.equal([1, 2, 3]);
    expect(partial.json.view.next).to.equal('/books?partial=true&page=2');
  });

  it('paginates by cursor from the index: next and previous pages through ranges on the cursor fields', async () => {
    const first = await get(server.url, '/cursor-books');
    expect(ids(first)).to.deep.equal([5, 4, 3]);
    expect(first.json.view.next).to.equal('/cursor-books?id%5Blt%5D=3');
    const second = await get(server.url, first.json.view.next);
    expect(ids(second)).to.deep.equal([2, 1]);
    expect(second.json.view.next).to.equal(undefined);
    expect(ids(await get(server.url, second.json.view.previous))).to.deep.equal([5, 4, 3]);
    expect(ids(await get(server.url, '/cursor-books?id[lt]=5&author=/authors/1'))).to.deep.equal([3, 1]);
  });

  it('reads what the index holds, not the store: a document written to the engine alone is served', async () => {
    const r = await fetch(`${engine.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ZINC_USER}:${ZINC_PASSWORD}`).toString('base64')}` },
      body: `${JSON.stringify({ index: { _index: `${fixture.prefix}book`, _id: '77' } })}\n${JSON.stringify({ id: 77, title: 'Only in the index', available: true })}\n`,
    });
    expect(r.status).to.equal(200);
    const found = await eventually(
      () => get(server.url, '/books?title=only'),
      (x) => ids(x).length === 1,
    );
    expect(ids(found)).to.deep.equal([77]);
    expect((await get(server.url, '/books/77')).json.title).to.equal('Only in the index');
    // The store has no such book: the operation that reads it says so.
    expect(ids(await get(server.url, '/store-books?title=Only'))).to.deep.equal([]);
    await fetch(`${engine.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ZINC_USER}:${ZINC_PASSWORD}`).toString('base64')}` },
      body: `${JSON.stringify({ delete: { _index: `${fixture.prefix}book`, _id: '77' } })}\n`,
    });
    const removed = await eventually(
      () => get(server.url, '/books/77'),
      (x) => x.status === 404,
    );
    expect(removed.status).to.equal(404);
  });

  it('answers 404 for an item the index does not hold', async () => {
    const r = await get(server.url, '/books/999');
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.contain('json');
  });

  it('applies the security rule to the item read from the index', async () => {
    expect((await get(server.url, '/books/1')).status).to.equal(200);
    const hidden = await get(server.url, '/books/3'); // available: false
    expect(hidden.status, hidden.text).to.equal(401);
    const asAdmin = await get(server.url, '/books/3', admin);
    expect(asAdmin.status).to.equal(200);
    expect(asAdmin.json.title).to.equal('Quick recipes');
  });

  it('serializes with the groups and property security of the operation, as from the store', async () => {
    const anonymous = (await get(server.url, '/books/1')).json;
    expect(anonymous.title).to.equal('The quick brown fox');
    expect(anonymous).not.to.have.property('supplier'); // in no read group
    expect(anonymous).not.to.have.property('internalNote'); // ROLE_ADMIN only
    const asAdmin = (await get(server.url, '/books/1', admin)).json;
    expect(asAdmin.internalNote).to.equal('note 1');
    expect(asAdmin).not.to.have.property('supplier');
    const member = (await get(server.url, '/books?isbn=111', admin)).json.member[0];
    expect(member.internalNote).to.equal('note 1');
    expect(member).not.to.have.property('supplier');
    // The store-backed page of the same books shows the same members.
    const fromStore = (await get(server.url, '/store-books?title=quick brown', admin)).json.member[0];
    expect(fromStore).to.deep.equal(member);
  });

  it('takes PATCH and DELETE into the index after the store committed them', async () => {
    const created = await request(server.url, 'POST', '/books', {
      body: { title: 'Draft title', price: 1, available: true },
    });
    expect(created.status).to.equal(201);
    const id = created.json.id as number;
    const indexed = await eventually(
      () => get(server.url, `/books/${id}`),
      (x) => x.status === 200,
    );
    expect(indexed.json.title).to.equal('Draft title');
    const patched = await request(server.url, 'PATCH', `/books/${id}`, {
      body: JSON.stringify({ title: 'Final wording' }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).to.equal(200);
    expect(
      ids(
        await eventually(
          () => get(server.url, '/books?title=wording'),
          (x) => ids(x).length === 1,
        ),
      ),
    ).to.deep.equal([id]);
    expect(ids(await get(server.url, '/books?title=draft'))).to.deep.equal([]);
    expect((await request(server.url, 'DELETE', `/books/${id}`)).status).to.equal(204);
    expect(
      (
        await eventually(
          () => get(server.url, `/books/${id}`),
          (x) => x.status === 404,
        )
      ).status,
    ).to.equal(404);
    expect(await engineIds(engine, `${fixture.prefix}book`)).not.to.include(id);
  });

  it("takes a delete's cascade into the index once its transaction ended", async () => {
    const author = await request(server.url, 'POST', '/authors', { body: { name: 'Gone soon' } });
    const book = await request(server.url, 'POST', '/books', {
      body: { title: 'Orphaned volume', available: true, author: author.json['@id'] },
    });
    expect(book.status).to.equal(201);
    const before = await eventually(
      () => get(server.url, '/books?title=orphaned'),
      (x) => ids(x).length === 1,
    );
    expect(ids(before)).to.deep.equal([book.json.id]);
    expect((await request(server.url, 'DELETE', author.json['@id'])).status).to.equal(204);
    const after = await eventually(
      () => get(server.url, '/books?title=orphaned'),
      (x) => ids(x).length === 0,
    );
    expect(ids(after)).to.deep.equal([]);
    expect(await engineIds(engine, `${fixture.prefix}book`)).not.to.include(book.json.id);
  });

  it('answers numeric bounds ZincSearch would get wrong (at or below 0, upper bounds) from the store', async () => {
    // ZincSearch drops a bound at or below 0 and never ranges a value at or below 0 (its `lte: 0` read every book).
    const free = await request(server.url, 'POST', '/books', { body: { title: 'Free pamphlet', price: 0 } });
    const refund = await request(server.url, 'POST', '/books', { body: { title: 'Refund slip', price: -2 } });
    expect([free.status, refund.status]).to.deep.equal([201, 201]);
    const [zero, negative] = [free.json.id as number, refund.json.id as number];
    await eventually(
      () => engineIds(engine, `${fixture.prefix}book`),
      (x) => x.includes(zero) && x.includes(negative),
    );
    try {
      // Every page of the answer, in price order.
      const asked = async (query: string): Promise<number[]> => {
        const found: number[] = [];
        for (let next: string | undefined = `/books?${query}&order[price]=asc`; next;) {
          const page = await get(server.url, next, admin);
          found.push(...ids(page));
          next = page.json.view?.next;
        }
        return found;
      };
      expect(await asked('price[lte]=0')).to.deep.equal([negative, zero]);
      expect(await asked('price[gte]=0')).to.deep.equal([zero, 2, 4, 1, 3, 5]);
      expect(await asked('price[lt]=6')).to.deep.equal([negative, zero, 2]);
      expect(await asked('price[gt]=-1')).to.deep.equal([zero, 2, 4, 1, 3, 5]);
      expect(await asked('price[between]=-5..0')).to.deep.equal([negative, zero]);
      // A positive lower bound the engine keeps: still its answer, with full text beside it. Full text and a bound it
      // does not keep: neither can answer alone, and the read fails rather than answer without the bound.
      expect(await asked('price[gt]=10')).to.deep.equal([1, 3, 5]);
      expect(ids(await get(server.url, '/books?title=quick&price[gt]=10'))).to.deep.equal([1, 3]);
      const both = await get(server.url, '/books?title=pamphlet&price[lte]=0');
      expect([both.status, both.json.member]).to.deep.equal([500, undefined]);
    } finally {
      for (const id of [zero, negative]) await request(server.url, 'DELETE', `/books/${id}`, { headers: admin });
    }
  });

  it("takes a message handler's write into the index named by stateOptions", async () => {
    const sent = await request(server.url, 'POST', '/reviews', { body: { text: 'Great read' } });
    expect(sent.status).to.equal(202);
    const read = await eventually(
      () => get(server.url, '/reviews'),
      (x) => ids(x).length === 1,
    );
    expect(read.json.member[0].text).to.equal('Great read (handled)');
    expect(await engineIds(engine, `${fixture.prefix}critiques`)).to.deep.equal([read.json.member[0].id]);
  });
});

describe('HTTP elasticsearch: import, an engine outage and apidsl reindex', function () {
  this.timeout(180_000);
  let engine: ZincServer;
  let server: RunningServer;
  let fixture: ReturnType<typeof indexedFixture>;
  let storage: string[];

  before(async function () {
    engine = await ownZincOrSkip(this);
    fixture = indexedFixture();
    withEngine(engine);
    storage = await lastingStore(fixture.dir, 'es');
    server = await startServer(fixture.file, storage);
  });

  after(async () => {
    await server?.stop();
    await engine?.stop();
    if (engine) withoutEngine(engine);
  });

  it('takes the records of apidsl import into the index', async () => {
    const data = join(fixture.dir, 'books.ndjson');
    writeFileSync(
      data,
      ['Imported one', 'Imported two', 'Imported three'].map((title) => JSON.stringify({ title, price: 3 })).join('\n'),
    );
    const imported = runCli(['import', fixture.file, 'Book', data, ...storage], { env: engineEnv(engine) });
    expect(imported.status, imported.stderr).to.equal(0);
    const read = await eventually(
      () => get(server.url, '/books?title=imported'),
      (x) => x.json?.totalItems === 3,
    );
    expect(read.json.totalItems).to.equal(3);
    expect(ids(read)).to.deep.equal([1, 2, 3]);
  });

  it('keeps writes succeeding while the engine is away; reads answer 503; the index catches up once it is back', async () => {
    await engine.stop();
    const started = Date.now();
    const created = await request(server.url, 'POST', '/books', { body: { title: 'Written while away', price: 9 } });
    expect(created.status, created.text).to.equal(201);
    const patched = await request(server.url, 'PATCH', '/books/1', {
      body: JSON.stringify({ title: 'Renamed while away' }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).to.equal(200);
    expect((await request(server.url, 'DELETE', '/books/2')).status).to.equal(204);
    // Each write waits at most elasticsearch.timeout (1 s by default) for the index: a generous bound.
    expect(Date.now() - started).to.be.below(15_000);
    const unavailable = await get(server.url, '/books');
    expect(unavailable.status).to.equal(503);
    expect(unavailable.headers.get('retry-after')).to.equal('5');
    // The store has every write.
    expect(ids(await get(server.url, '/store-books'))).to.deep.equal([1, 3, 4]);

    await engine.restart();
    // The changes the engine missed were kept: they reach it once it is back, without a reindex.
    const caughtUp = await eventually(() => engineIds(engine, `${fixture.prefix}book`), sameIds([1, 3, 4]));
    expect(caughtUp).to.deep.equal([1, 3, 4]);
    // reindex still rewrites everything, and finds nothing left to remove.
    const reindexed = runCli(['reindex', fixture.file, 'Book', ...storage], { env: engineEnv(engine) });
    expect(reindexed.status, reindexed.stderr).to.equal(0);
    expect(reindexed.stderr).to.contain(
      `Book: 3 documents written to ${fixture.prefix}book, 0 removed that the store no longer holds.`,
    );
    // runCli blocked this process: let it see the keep-alive connection the server closed meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const repaired = await eventually(
      () => get(server.url, '/books'),
      (x) => sameIds([1, 3, 4])(ids(x)),
    );
    expect(ids(repaired)).to.deep.equal([1, 3, 4]);
    expect(ids(await get(server.url, '/books?title=renamed'))).to.deep.equal([1]);
    expect((await get(server.url, '/books/2')).status).to.equal(404);
    expect(server.output()).to.contain('changes not applied');
  });

  it('refuses to reindex a resource that no operation reads from the index, or a missing engine', async () => {
    const author = runCli(['reindex', fixture.file, 'Author', ...storage], { env: engineEnv(engine) });
    expect(author.status).to.equal(1);
    expect(author.stderr).to.contain('no operation of Author reads the search index');
    const nowhere = runCli(['reindex', fixture.file, ...storage], {
      env: { ...engineEnv(engine), APIDSL_ELASTICSEARCH_URL: 'http://127.0.0.1:9/es' },
    });
    expect(nowhere.status).to.equal(1);
    expect(nowhere.stderr).to.contain('the search engine at http://127.0.0.1:9/es did not answer');
  });
});

describe('HTTP elasticsearch: hosts and timeout written in the file, an engine that never answers', function () {
  this.timeout(120_000);
  let away: SilentEngine;
  let server: RunningServer;

  before(async () => {
    // Only `timeout` ends a request to it.
    away = await silentEngine();
    const fixture = indexedFixture();
    writeFileSync(fixture.file, engineInFile(readFileSync(fixture.file, 'utf8'), away.url));
    server = await startServer(fixture.file);
  });

  after(async () => {
    await server?.stop();
    await away?.close();
  });

  it('reaches the engine the hosts setting names, and gives up after timeout: writes succeed, reads answer 503', async () => {
    // With the default of 1 s, ten writes would wait 10 s for the engine; with timeout: 100, about 1 s.
    const started = Date.now();
    for (let i = 0; i < 10; i++) {
      const created = await request(server.url, 'POST', '/books', { body: { title: `Book ${i}`, price: 1 } });
      expect(created.status, created.text).to.equal(201);
    }
    expect(Date.now() - started, 'ten writes waited the 1 s default, not timeout: 100').to.be.below(8_000);
    expect(away.connections(), 'connections the silent engine took').to.be.greaterThan(0);
    const read = await get(server.url, '/books');
    expect(read.status).to.equal(503);
    expect(read.headers.get('retry-after')).to.not.equal(null);
  });
});
