/**
 * Row-level scopes on operations that read the search index (docs/scopes.md, docs/elasticsearch.md), against a real
 * engine (ZincSearch) on the store the suite runs on: the scope becomes part of the engine's query (its path through
 * a relation read from the store first), so each caller's pages, `totalItems` and item reads hold exactly the notes
 * their scope lets them read, full-text filters combined; a scope with `!=` and `== null`, which the engine is not
 * asked, is answered by the store with the store's null rules, and with a full-text filter it fails rather than
 * answering without the scope; a note moved out of a caller's scope leaves their reads once the index has the move.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../support/paths.js';
import {
  engineEnv,
  engineInFile,
  silentEngine,
  zincOrSkip,
  type SilentEngine,
  type ZincServer,
} from '../support/zincsearch.js';
import { get, request, startServer, type HttpResponse, type RunningServer } from './harness.js';
import { bearer, token } from './security-helpers.js';
import { eventually } from '../support/eventually.js';

const SHOPS = [{ owner: 'cat' }, { owner: 'bob' }];
/** Notes 1 to 7. */
const NOTES = [
  { owner: 'ann', title: 'alpha report', status: 'open' },
  { owner: 'bob', title: 'beta report', status: 'open', reviewer: 'sam', shop: '/shops/1' },
  { owner: 'ann', title: 'gamma memo', status: 'hidden', shop: '/shops/2' },
  { owner: 'ann', title: 'delta report', reviewer: 'sam' },
  { owner: 'bob', title: 'epsilon memo', status: 'open' },
  { owner: 'ann', title: 'zeta report', status: 'open', reviewer: 'sam', shop: '/shops/1' },
  { owner: 'dan', title: 'eta report', status: 'open', shop: '/shops/2' },
];
/** What each caller's scope lets them read: their own notes and those of the shops they own; staff all. */
const VISIBLE: Record<string, number[]> = {
  ann: [1, 3, 4, 6],
  bob: [2, 3, 5, 7],
  cat: [2, 6],
  dan: [7],
  anonymous: [],
  sam: [1, 2, 3, 4, 5, 6, 7],
};

const ids = (r: HttpResponse): number[] => ((r.json?.member ?? []) as { id: number }[]).map((m) => m.id);

describe('row-level scopes on index-backed reads (ZincSearch, fixture elasticsearch/scoped-notes.api)', function () {
  this.timeout(120_000);
  let engine: ZincServer;
  let server: RunningServer;
  const headers: Record<string, Record<string, string>> = { anonymous: {} };

  /** Every page of `path` for `who`, following `hydra:view` next links; each page's totalItems. */
  const walk = async (who: string, path: string) => {
    const members: number[] = [];
    const totals: number[] = [];
    let next: string | undefined = path;
    for (let pages = 0; next !== undefined; pages++) {
      expect(pages, `${who}: a next page past the last note in scope`).to.be.below(NOTES.length);
      const r = await get(server.url, next, headers[who]);
      expect(r.status, r.text).to.equal(200);
      members.push(...ids(r));
      totals.push(r.json.totalItems as number);
      next = (r.json.view as { next?: string } | undefined)?.next;
    }
    return { members, totals };
  };

  before(async function () {
    engine = await zincOrSkip(this);
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-scoped-index-'));
    const file = join(dir, 'scoped-notes.api');
    const text = readFileSync(fromRoot('test/fixtures/elasticsearch/scoped-notes.api'), 'utf8');
    writeFileSync(file, text.replaceAll('INDEX_PREFIX', `s${process.pid}_`));
    Object.assign(process.env, engineEnv(engine));
    server = await startServer(file);
    // upTo: how far /notes/early reads (ann's 0 is a bound ZincSearch would drop).
    const upTo: Record<string, number> = { ann: 0, bob: 3 };
    for (const who of ['ann', 'bob', 'cat', 'dan'])
      headers[who] = bearer(await token({ sub: who, claims: who in upTo ? { upTo: upTo[who] } : {} }));
    headers.sam = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
    for (const shop of SHOPS)
      expect((await request(server.url, 'POST', '/shops', { body: shop })).status).to.equal(201);
    for (const note of NOTES) {
      const r = await request(server.url, 'POST', '/notes', { body: note, headers: headers.sam });
      expect(r.status, r.text).to.equal(201);
    }
    const indexed = await eventually(
      () => walk('sam', '/notes'),
      (x) => x.members.join() === VISIBLE.sam!.join(),
    );
    expect(indexed.members).to.deep.equal(VISIBLE.sam);
  });

  after(async () => {
    await server?.stop();
    if (engine) for (const name of Object.keys(engineEnv(engine))) delete process.env[name];
  });

  it('pages each caller through exactly the notes in their scope, totalItems counting them', async () => {
    for (const [who, visible] of Object.entries(VISIBLE)) {
      const { members, totals } = await walk(who, '/notes');
      expect(members, who).to.deep.equal(visible);
      expect(new Set(totals), who).to.deep.equal(new Set([visible.length]));
    }
  });

  it('combines the scope with a full-text filter only the index answers', async () => {
    const reports = new Set([1, 2, 4, 6, 7]); // "report" is a word of these titles
    for (const [who, visible] of Object.entries(VISIBLE)) {
      const { members, totals } = await walk(who, '/notes?title=report');
      const expected = visible.filter((id) => reports.has(id));
      expect(members, who).to.deep.equal(expected);
      expect(new Set(totals), who).to.deep.equal(new Set([expected.length]));
    }
  });

  it("answers 404 to a Get of a note outside the caller's scope, as for one that does not exist", async () => {
    const unknown = await get(server.url, '/notes/999', headers.ann);
    expect(unknown.status).to.equal(404);
    for (const [who, visible] of Object.entries(VISIBLE))
      for (let id = 1; id <= NOTES.length; id++) {
        const r = await get(server.url, `/notes/${id}`, headers[who]);
        if (visible.includes(id))
          expect([who, id, r.status, r.json.title]).to.deep.equal([who, id, 200, NOTES[id - 1]!.title]);
        else expect([who, id, r.status, r.text]).to.deep.equal([who, id, 404, unknown.text]);
      }
  });

  it("answers a scope the engine is not asked (`!=`, `== null`) from the store, with the store's null rules", async () => {
    // Note 3 is hidden, note 4 has no status (null is not "not hidden"), note 6 was reviewed.
    const unreviewed: Record<string, number[]> = { ann: [1], bob: [5], cat: [], dan: [7], anonymous: [], sam: [] };
    for (const [who, expected] of Object.entries(unreviewed)) {
      const { members, totals } = await walk(who, '/notes/unreviewed');
      expect(members, who).to.deep.equal(expected);
      expect(new Set(totals), who).to.deep.equal(new Set([expected.length]));
    }
  });

  it('answers a scope with an upper bound on a number from the store, never widened by the engine', async () => {
    const early: Record<string, number[]> = { ann: [], bob: [1, 2, 3], cat: [], anonymous: [], sam: [] };
    for (const [who, expected] of Object.entries(early)) {
      const { members, totals } = await walk(who, '/notes/early');
      expect([who, members]).to.deep.equal([who, expected]);
      expect(new Set(totals), who).to.deep.equal(new Set([expected.length]));
    }
  });

  it('fails, rather than answer without the scope, when such a scope meets a full-text filter', async () => {
    for (const who of ['ann', 'bob', 'sam']) {
      const r = await get(server.url, '/notes/unreviewed?title=report', headers[who]);
      expect([who, r.status]).to.deep.equal([who, 500]);
      expect(r.json.member, who).to.equal(undefined);
    }
    // An anonymous caller's scope matches nothing whatever the item holds: that the engine is asked.
    const anonymous = await get(server.url, '/notes/unreviewed?title=report');
    expect([anonymous.status, anonymous.json.member, anonymous.json.totalItems]).to.deep.equal([200, [], 0]);
  });

  it("drops a note from its former reader's pages once it moved out of their scope", async () => {
    const moved = await request(server.url, 'PATCH', '/notes/1', {
      body: { owner: 'bob' },
      headers: { ...headers.sam, 'Content-Type': 'application/merge-patch+json' },
    });
    expect(moved.status, moved.text).to.equal(200);
    // A walk across the moment the index takes the move may see a page from before it: ask until one is whole.
    const bobs = await eventually(
      () => walk('bob', '/notes'),
      (x) => x.members.join() === '1,2,3,5,7',
    );
    expect(bobs.members).to.deep.equal([1, 2, 3, 5, 7]);
    const anns = await walk('ann', '/notes');
    expect(anns.members).to.deep.equal([3, 4, 6]);
    expect(new Set(anns.totals)).to.deep.equal(new Set([3]));
    expect((await get(server.url, '/notes/1', headers.ann)).status).to.equal(404);
    expect((await walk('ann', '/notes?title=alpha')).members).to.deep.equal([]);
  });
});

describe('row-level scopes on index-backed reads, with an engine that never answered', function () {
  this.timeout(120_000);
  let away: SilentEngine;
  let server: RunningServer;

  before(async () => {
    // Which engine it is stays unknown.
    away = await silentEngine();
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-scoped-index-away-'));
    const file = join(dir, 'scoped-notes.api');
    const text = readFileSync(fromRoot('test/fixtures/elasticsearch/scoped-notes.api'), 'utf8');
    writeFileSync(file, engineInFile(text.replaceAll('INDEX_PREFIX', `away${process.pid}_`), away.url));
    server = await startServer(file);
  });

  after(async () => {
    await server?.stop();
    await away?.close();
  });

  it('answers a scope no engine is asked (`!=`, `== null`) from the store; a read the engine answers is a 503', async () => {
    const sam = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
    const ann = bearer(await token({ sub: 'ann' }));
    for (const note of NOTES.slice(0, 4)) {
      const r = await request(server.url, 'POST', '/notes', { body: { ...note, shop: undefined }, headers: sam });
      expect(r.status, r.text).to.equal(201);
    }
    const unreviewed = await get(server.url, '/notes/unreviewed', ann);
    expect([unreviewed.status, ids(unreviewed)]).to.deep.equal([200, [1]]);
    const read = await get(server.url, '/notes', ann);
    expect(read.status).to.equal(503);
  });
});
