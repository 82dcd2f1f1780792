/**
 * The search index never drops a change (docs/elasticsearch.md, "Changes the engine did not take"), against a
 * real engine (ZincSearch) on the store the suite runs on (APIDSL_TEST_STORE): an item created and deleted at
 * once, one by one and by a cascade, ends absent from the index; writes made while the engine is away reach it
 * once it is back; and changes pending when `serve` stops are sent by the next `serve` — all without
 * `apidsl reindex`.
 */
import { expect } from 'chai';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { fromRoot } from '../support/paths.js';
import { engineEnv, ownZincOrSkip, ZINC_PASSWORD, ZINC_USER, type ZincServer } from '../support/zincsearch.js';
import { get, request, startServer, type RunningServer } from './harness.js';
import { lastingStore } from './lasting-store.js';
import { bearer, token } from './security-helpers.js';

let counter = 0;

/** The books fixture in a directory of its own, its indexes under a prefix of its own. */
function indexedFixture(): { dir: string; file: string; index: string } {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-es-retry-'));
  const prefix = `r${process.pid}_${++counter}_`;
  const text = readFileSync(fromRoot('test/fixtures/elasticsearch/books.api'), 'utf8').replaceAll(
    'INDEX_PREFIX',
    prefix,
  );
  const file = join(dir, 'books.api');
  writeFileSync(file, text);
  copyFileSync(fromRoot('test/fixtures/elasticsearch/handlers.mjs'), join(dir, 'handlers.mjs'));
  return { dir, file, index: `${prefix}book` };
}

/** What the engine itself holds in the index: the documents' identifiers and titles, by identifier. */
async function engineDocs(engine: ZincServer, index: string): Promise<string[]> {
  const r = await fetch(`${engine.url}/${index}/_search`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${ZINC_USER}:${ZINC_PASSWORD}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ query: { match_all: {} }, sort: [{ id: { order: 'asc' } }], size: 1000 }),
  });
  const body = (await r.json()) as { hits?: { hits: { _source: { id: number; title: string } }[] } };
  return (body.hits?.hits ?? []).map((h) => `${h._source.id} ${h._source.title}`);
}

/** Asks the engine again until `done` holds (retries back off up to 5 s between rounds), for at most 60 s. */
const settled = <T>(ask: () => Promise<T>, done: (value: T) => boolean): Promise<T> =>
  eventually(ask, done, { timeoutMs: 60_000, intervalMs: 200 });

/** The store's books, as `engineDocs` lists the index's. */
async function storeDocs(server: RunningServer): Promise<string[]> {
  const all: string[] = [];
  for (let page = 1; ; page++) {
    const r = await get(server.url, `/store-books?page=${page}`);
    const member = (r.json?.member ?? []) as { id: number; title: string }[];
    all.push(...member.map((m) => `${m.id} ${m.title}`));
    if (member.length === 0) return all.sort((a, b) => parseInt(a) - parseInt(b));
  }
}

/** The reasons the server logged for the changes the engine refused. */
function loggedRefusals(server: RunningServer): string[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes('the engine refused changes'))
    .flatMap((line) => (JSON.parse(line) as { reasons: string[] }).reasons);
}

const same = (expected: string[]) => (actual: string[]) => JSON.stringify(actual) === JSON.stringify(expected);

describe('HTTP elasticsearch: every change reaches the index, retried until the engine takes it', function () {
  this.timeout(240_000);
  let engine: ZincServer;
  let fixture: ReturnType<typeof indexedFixture>;
  let storage: string[];
  let server: RunningServer | undefined;
  let admin: Record<string, string>;

  before(async function () {
    engine = await ownZincOrSkip(this);
    Object.assign(process.env, engineEnv(engine));
    fixture = indexedFixture();
    storage = await lastingStore(fixture.dir, 'esretry');
    server = await startServer(fixture.file, storage);
    admin = bearer(await token({ sub: 'admin', roles: ['ROLE_ADMIN'] }));
  });

  after(async () => {
    await server?.stop();
    await engine?.stop();
    if (engine) for (const name of Object.keys(engineEnv(engine))) delete process.env[name];
  });

  it('leaves no ghost of 10 items each deleted right after its creation', async () => {
    for (let i = 0; i < 10; i++) {
      const created = await request(server!.url, 'POST', '/books', { body: { title: `Fleeting ${i}` } });
      expect(created.status, created.text).to.equal(201);
      expect((await request(server!.url, 'DELETE', `/books/${created.json.id}`)).status).to.equal(204);
    }
    expect(await storeDocs(server!)).to.deep.equal([]);
    expect(await settled(() => engineDocs(engine, fixture.index), same([]))).to.deep.equal([]);
    expect((await get(server!.url, '/books')).json.totalItems).to.equal(0);
    // ZincSearch refuses some of these deletes (not all, by timing); each refusal is logged with what it said.
    for (const refusal of loggedRefusals(server!))
      expect(refusal).to.match(/^200 deleted, with an error that gives no type or reason$|^\d+ \w+/);
  });

  it('leaves no ghost of 90 items created at once and deleted by a cascade', async () => {
    const author = await request(server!.url, 'POST', '/authors', { body: { name: 'Short-lived' } });
    expect(author.status).to.equal(201);
    const books = Array.from({ length: 90 }, (_, i) => ({ title: `Cascaded ${i}`, author: author.json['@id'] }));
    const created = await request(server!.url, 'POST', '/books', { body: books, headers: admin });
    expect(created.status, created.text).to.equal(201);
    expect((await request(server!.url, 'DELETE', author.json['@id'])).status).to.equal(204);
    expect(await storeDocs(server!)).to.deep.equal([]);
    expect(await settled(() => engineDocs(engine, fixture.index), same([]))).to.deep.equal([]);
  });

  it('sends the writes made while the engine was away once it is back', async () => {
    const kept = await request(server!.url, 'POST', '/books', { body: { title: 'Before the outage' } });
    expect(kept.status).to.equal(201);
    const gone = await request(server!.url, 'POST', '/books', { body: { title: 'Deleted during the outage' } });
    await settled(
      () => engineDocs(engine, fixture.index),
      (x) => x.length === 2,
    );
    await engine.stop();
    const created = await request(server!.url, 'POST', '/books', { body: { title: 'Written while away' } });
    expect(created.status, created.text).to.equal(201);
    const patched = await request(server!.url, 'PATCH', `/books/${kept.json.id}`, {
      body: JSON.stringify({ title: 'Renamed while away' }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).to.equal(200);
    expect((await request(server!.url, 'DELETE', `/books/${gone.json.id}`)).status).to.equal(204);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // a few rounds of retries fail meanwhile
    await engine.restart();
    const expected = await storeDocs(server!);
    expect(expected).to.deep.equal([`${kept.json.id} Renamed while away`, `${created.json.id} Written while away`]);
    expect(await settled(() => engineDocs(engine, fixture.index), same(expected))).to.deep.equal(expected);
    expect(server!.output()).to.contain('they are kept and retried');
  });

  it('sends the changes still pending when serve stopped at the next start', async () => {
    await engine.stop();
    const created = await request(server!.url, 'POST', '/books', { body: { title: 'Pending across restarts' } });
    expect(created.status, created.text).to.equal(201);
    const before = await storeDocs(server!);
    await server!.stop();
    server = undefined;
    await engine.restart();
    // Nothing sent it yet: the serve that took the write is gone.
    expect(await engineDocs(engine, fixture.index)).to.not.include(`${created.json.id} Pending across restarts`);
    server = await startServer(fixture.file, storage);
    expect(await settled(() => engineDocs(engine, fixture.index), same(before))).to.deep.equal(before);
  });
});
