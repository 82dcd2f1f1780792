/**
 * Deleting a referenced item (docs/behaviour.md, "Deleting a referenced item"): `restrict` (the default) answers
 * 409 naming the referrers and deletes nothing; `cascade` deletes the referrers too, to any depth and around
 * cycles; `setNull` removes the reference; a cascade that reaches a restrict deletes nothing. GETs after each
 * delete show the state; the HTTP cache never serves a page showing a cascaded item.
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { subscribe } from './sse-client.js';
import {
  errorDoc,
  fixture,
  PROBLEM_JSON,
  request,
  startServer,
  tempDir,
  useServer,
  type RunningServer,
} from './harness.js';

const FIXTURE = fixture('referential.api');
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

/** POSTs an item and answers its IRI. */
async function create(url: string, path: string, body: Record<string, unknown>): Promise<string> {
  const r = await request(url, 'POST', path, { body });
  expect(r.status, r.text).to.equal(201);
  return r.json['@id'] as string;
}

/** The fixture edited by `edit`, written in `dir` beside a copy of its custom code; answers the file. */
function variant(dir: string, name: string, edit: (source: string) => string): string {
  copyFileSync(fixture('referential-code.mjs'), join(dir, 'referential-code.mjs'));
  const file = join(dir, name);
  writeFileSync(file, edit(readFileSync(FIXTURE, 'utf8')));
  return file;
}

const status = async (url: string, iri: string): Promise<number> => (await request(url, 'GET', iri)).status;

describe('HTTP referential actions: deleting a referenced item', function () {
  this.timeout(60_000);
  const server = useServer(FIXTURE);

  it('restrict (the default): 409 problem document naming the referencing resource, property and count; nothing deleted', async () => {
    const speaker = await create(server.url, '/speakers', { name: 'Ada' });
    const talk = await create(server.url, '/talks', { title: 'Engines', speaker });
    const reviews: string[] = [];
    for (let i = 0; i < 8; i++) reviews.push(await create(server.url, '/reviews', { rating: i, talk }));
    const r = await request(server.url, 'DELETE', talk);
    expect(r.status, r.text).to.equal(409);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(errorDoc(409, `Talk "${talk}" is referenced by 8 Review items (property "talk").`));
    expect(await status(server.url, talk)).to.equal(200);
    for (const review of reviews) expect(await status(server.url, review)).to.equal(200);
    // Once the references are gone the delete goes through, and the identifier is not handed out again.
    for (const review of reviews) expect((await request(server.url, 'DELETE', review)).status).to.equal(204);
    expect((await request(server.url, 'DELETE', talk)).status).to.equal(204);
    expect(await status(server.url, talk)).to.equal(404);
  });

  it('OpenAPI documents the 409 on the deletes a restrict may refuse, directly or through a cascade, and only those', async () => {
    const paths = (await request(server.url, 'GET', '/docs.json')).json.paths;
    const conflict = (path: string): unknown => paths[path].delete.responses['409'];
    for (const path of ['/talks/{id}', '/speakers/{id}', '/talks/{id}/via-processor'])
      expect(conflict(path), path).to.have.property('description').that.contains('restrict');
    // Tracks are only set null, playlists and reviews referenced by nothing.
    for (const path of ['/tracks/{id}', '/playlists/{id}', '/reviews/{id}'])
      expect(conflict(path), path).to.equal(undefined);
  });

  it('one referrer: the detail says "1 Review item"', async () => {
    const talk = await create(server.url, '/talks', { title: 'Solo' });
    await create(server.url, '/reviews', { rating: 5, talk });
    const r = await request(server.url, 'DELETE', talk);
    expect(r.status).to.equal(409);
    expect(r.json.detail).to.equal(`Talk "${talk}" is referenced by 1 Review item (property "talk").`);
  });

  it('cascade, to-one then to-many (two levels): the speaker, their talks and the playlists holding those talks go', async () => {
    const speaker = await create(server.url, '/speakers', { name: 'Grace' });
    const other = await create(server.url, '/speakers', { name: 'Linus' });
    const t1 = await create(server.url, '/talks', { title: 'Compilers', speaker });
    const t2 = await create(server.url, '/talks', { title: 'Debugging', speaker });
    const kept = await create(server.url, '/talks', { title: 'Kernels', speaker: other });
    const gone = await create(server.url, '/playlists', { name: 'Mixed', talks: [kept, t2] });
    const stays = await create(server.url, '/playlists', { name: 'Other', talks: [kept] });
    const r = await request(server.url, 'DELETE', speaker);
    expect(r.status, r.text).to.equal(204);
    for (const iri of [speaker, t1, t2, gone]) expect(await status(server.url, iri), iri).to.equal(404);
    for (const iri of [other, kept, stays]) expect(await status(server.url, iri), iri).to.equal(200);
    const talks = (await request(server.url, 'GET', '/talks')).json.member.map((t: { '@id': string }) => t['@id']);
    expect(talks).to.include(kept);
    expect(talks.filter((t: string) => t === t1 || t === t2)).to.deep.equal([]);
  });

  it('cascade around a cycle: a ring of nodes is deleted as a whole, a node outside it stays', async () => {
    const a = await create(server.url, '/nodes', { label: 'a' });
    const b = await create(server.url, '/nodes', { label: 'b', next: a });
    const c = await create(server.url, '/nodes', { label: 'c', next: b });
    const outside = await create(server.url, '/nodes', { label: 'outside' });
    const closed = await request(server.url, 'PATCH', a, { body: { next: c }, headers: MERGE });
    expect(closed.status, closed.text).to.equal(200);
    const r = await request(server.url, 'DELETE', b);
    expect(r.status, r.text).to.equal(204);
    for (const iri of [a, b, c]) expect(await status(server.url, iri), iri).to.equal(404);
    expect(await status(server.url, outside)).to.equal(200);
  });

  it('setNull, to-one: the talks of a deleted track stay, without a track', async () => {
    const track = await create(server.url, '/tracks', { name: 'Main hall' });
    const talk = await create(server.url, '/talks', { title: 'Keynote', track });
    expect((await request(server.url, 'DELETE', track)).status).to.equal(204);
    expect(await status(server.url, track)).to.equal(404);
    const after = await request(server.url, 'GET', talk);
    expect(after.status).to.equal(200);
    expect(after.json.title).to.equal('Keynote');
    expect(after.json.track ?? null).to.equal(null);
  });

  it('setNull, to-many: a deleted co-speaker is taken out of the arrays that held it, the other IRIs kept in order', async () => {
    const [x, y, z] = [
      await create(server.url, '/speakers', { name: 'x' }),
      await create(server.url, '/speakers', { name: 'y' }),
      await create(server.url, '/speakers', { name: 'z' }),
    ];
    const talk = await create(server.url, '/talks', { title: 'Panel', cospeakers: [x, y, z] });
    const untouched = await create(server.url, '/talks', { title: 'Duo', cospeakers: [x, z] });
    expect((await request(server.url, 'DELETE', y)).status).to.equal(204);
    expect((await request(server.url, 'GET', talk)).json.cospeakers).to.deep.equal([x, z]);
    expect((await request(server.url, 'GET', untouched)).json.cospeakers).to.deep.equal([x, z]);
  });

  it('a referrer that restricts but goes in the same cascade (by another, deeper path) does not hold the delete back', async () => {
    const speaker = await create(server.url, '/speakers', { name: 'Self-reviewing' });
    const talk = await create(server.url, '/talks', { title: 'Own talk', speaker });
    const reviewer = await create(server.url, '/reviewers', { speaker });
    const review = await create(server.url, '/reviews', { rating: 5, talk, reviewer });
    const r = await request(server.url, 'DELETE', speaker);
    expect(r.status, r.text).to.equal(204);
    for (const iri of [speaker, talk, reviewer, review]) expect(await status(server.url, iri), iri).to.equal(404);
  });

  it("custom code's ctx.remove follows the same rules: restrict answers 409, cascade deletes the referrers", async () => {
    const reviewed = await create(server.url, '/talks', { title: 'Reviewed via code' });
    const review = await create(server.url, '/reviews', { rating: 3, talk: reviewed });
    const refused = await request(server.url, 'DELETE', `${reviewed}/via-processor`);
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json.detail).to.equal(`Talk "${reviewed}" is referenced by 1 Review item (property "talk").`);
    expect(await status(server.url, reviewed)).to.equal(200);
    expect(await status(server.url, review)).to.equal(200);
    const listed = await create(server.url, '/talks', { title: 'Listed via code' });
    const playlist = await create(server.url, '/playlists', { name: 'Via code', talks: [listed] });
    expect((await request(server.url, 'DELETE', `${listed}/via-processor`)).status).to.equal(204);
    expect(await status(server.url, listed)).to.equal(404);
    expect(await status(server.url, playlist)).to.equal(404);
  });

  it("a message handler's ctx.remove follows the same rules: cascade deletes the referrers, restrict deletes nothing", async () => {
    const listed = await create(server.url, '/talks', { title: 'Listed via the bus' });
    const playlist = await create(server.url, '/playlists', { name: 'Via the bus', talks: [listed] });
    const r = await request(server.url, 'DELETE', `${listed}/via-bus`);
    expect(r.status, r.text).to.equal(202);
    expect(await status(server.url, listed)).to.equal(404);
    expect(await status(server.url, playlist)).to.equal(404);
    const reviewed = await create(server.url, '/talks', { title: 'Reviewed via the bus' });
    const review = await create(server.url, '/reviews', { rating: 2, talk: reviewed });
    const refused = await request(server.url, 'DELETE', `${reviewed}/via-bus`);
    // The sync transport handles the message in the request: the handler's 409 is the answer.
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json.detail).to.equal(`Talk "${reviewed}" is referenced by 1 Review item (property "talk").`);
    expect(await status(server.url, reviewed)).to.equal(200);
    expect(await status(server.url, review)).to.equal(200);
  });

  it('a cascade that reaches a restrict: 409 naming the item the cascade would delete; nothing is deleted or changed', async () => {
    const speaker = await create(server.url, '/speakers', { name: 'Barbara' });
    const cospeaker = await create(server.url, '/speakers', { name: 'Edsger' });
    const free = await create(server.url, '/talks', { title: 'Free', speaker });
    const reviewed = await create(server.url, '/talks', { title: 'Reviewed', speaker });
    const together = await create(server.url, '/talks', {
      title: 'Together',
      speaker: cospeaker,
      cospeakers: [speaker],
    });
    const playlist = await create(server.url, '/playlists', { name: 'P', talks: [free] });
    const review = await create(server.url, '/reviews', { rating: 4, talk: reviewed });
    const r = await request(server.url, 'DELETE', speaker);
    expect(r.status, r.text).to.equal(409);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json.detail).to.equal(
      `Talk "${reviewed}", which deleting Speaker "${speaker}" would delete (cascade), is referenced by 1 Review item (property "talk").`,
    );
    for (const iri of [speaker, free, reviewed, playlist, review])
      expect(await status(server.url, iri), iri).to.equal(200);
    expect((await request(server.url, 'GET', together)).json.cospeakers).to.deep.equal([speaker]);
  });
});

describe('HTTP referential actions: the in-process HTTP cache never shows a cascaded item', function () {
  this.timeout(60_000);
  const dir = tempDir('apidsl-referential-cache-');
  const servers: RunningServer[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a cached /talks page drops the talk a speaker delete cascaded to', async () => {
    const cachedFile = variant(dir, 'cached.api', (source) =>
      source.replace('config {', 'config {\n  http_cache { max_age: 60, in_process { max_bytes: 10000000 } }'),
    );
    const twinFile = variant(dir, 'twin.api', (source) => source);
    // Both on one --data directory (the embedded store in either run): writes through the twin bypass the cache.
    const cached = await startServer(cachedFile, ['--data', dir]);
    servers.push(cached);
    const twin = await startServer(twinFile, ['--data', dir]);
    servers.push(twin);
    const speaker = await create(cached.url, '/speakers', { name: 'Cached' });
    const talk = await create(cached.url, '/talks', { title: 'Cascaded', speaker });
    const ids = async (): Promise<string[]> =>
      (await request(cached.url, 'GET', '/talks')).json.member.map((t: { '@id': string }) => t['@id']);
    expect(await ids()).to.include(talk);
    // The page is served from the cache: a talk written behind its back does not show.
    const unseen = await create(twin.url, '/talks', { title: 'Behind the cache' });
    expect(await ids()).to.not.include(unseen);
    expect((await request(cached.url, 'DELETE', speaker)).status).to.equal(204);
    expect(await ids()).to.not.include(talk);
  });
});

describe('HTTP referential actions: cascades with --workers 2 and the in-process cache', function () {
  this.timeout(120_000);
  const dir = tempDir('apidsl-referential-workers-');
  let server: RunningServer | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // A cascade's transaction holds the store's write lock: its invalidations wait until it committed, so a
  // worker writing meanwhile is never waited for while it waits for the lock.
  it('cascade deletes in one worker while the other writes: no error, and no page shows a cascaded talk', async () => {
    const file = variant(dir, 'workers.api', (source) =>
      source.replace('config {', 'config {\n  http_cache { max_age: 60, in_process { max_bytes: 10000000 } }'),
    );
    // Worker 1 starts alone, then the other: twice a single start on a busy machine.
    server = await startServer(file, ['--data', join(dir, 'data'), '--workers', '2'], 60_000);
    const url = server.url;
    const speakers: string[] = [];
    const cascaded: string[] = [];
    for (let i = 0; i < 6; i++) {
      const speaker = await create(url, '/speakers', { name: `w${i}` });
      speakers.push(speaker);
      for (let j = 0; j < 3; j++) cascaded.push(await create(url, '/talks', { title: `w${i}.${j}`, speaker }));
    }
    const listed = async (): Promise<string[]> =>
      (await request(url, 'GET', '/talks?itemsPerPage=200')).json.member.map((t: { '@id': string }) => t['@id']);
    for (let i = 0; i < 4; i++) expect(await listed()).to.include.members(cascaded); // cached on both workers, likely
    const statuses = await Promise.all([
      ...speakers.map(async (speaker) => (await request(url, 'DELETE', speaker)).status),
      ...Array.from(
        { length: 12 },
        async (_, i) => (await request(url, 'POST', '/talks', { body: { title: `new ${i}` } })).status,
      ),
    ]);
    expect(statuses.slice(0, speakers.length)).to.deep.equal(speakers.map(() => 204));
    expect(statuses.slice(speakers.length)).to.deep.equal(Array.from({ length: 12 }, () => 201));
    // By title: the embedded store may hand a deleted talk's identifier to a new one (until identifiers are never reused).
    const titles = async (): Promise<string[]> =>
      (await request(url, 'GET', '/talks?itemsPerPage=200')).json.member.map((t: { title: string }) => t.title);
    for (let i = 0; i < 4; i++) {
      const now = await titles();
      expect(now.filter((title) => title.startsWith('w'))).to.deep.equal([]);
      expect(now).to.have.length(12);
    }
  });
});

describe('HTTP referential actions: apidsl reset deletes everything, restrict relations included', function () {
  this.timeout(60_000);
  const dir = tempDir('apidsl-referential-reset-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every item of every resource goes; the store then serves and accepts new items', async () => {
    let server = await startServer(FIXTURE, ['--data', dir]);
    try {
      const speaker = await create(server.url, '/speakers', { name: 'Reset' });
      const talk = await create(server.url, '/talks', { title: 'Held', speaker, cospeakers: [speaker] });
      await create(server.url, '/reviews', { rating: 1, talk });
      await create(server.url, '/playlists', { name: 'L', talks: [talk] });
      expect((await request(server.url, 'DELETE', talk)).status).to.equal(409);
    } finally {
      await server.stop();
    }
    const reset = runCli(['reset', FIXTURE, '--data', dir, '--yes']);
    expect(reset.status, reset.stderr).to.equal(0);
    for (const line of [
      'Speaker: 1 item deleted',
      'Talk: 1 item deleted',
      'Review: 1 item deleted',
      'Playlist: 1 item deleted',
    ])
      expect(reset.stderr).to.include(line);
    server = await startServer(FIXTURE, ['--data', dir]);
    try {
      for (const path of ['/speakers', '/talks', '/reviews', '/playlists'])
        expect((await request(server.url, 'GET', path)).json.totalItems, path).to.equal(0);
      const speaker = await create(server.url, '/speakers', { name: 'After' });
      const talk = await create(server.url, '/talks', { title: 'New', speaker });
      expect((await request(server.url, 'DELETE', speaker)).status).to.equal(204);
      expect(await status(server.url, talk)).to.equal(404);
    } finally {
      await server.stop();
    }
  });
});

describe('HTTP referential actions: Mercure updates of the items a delete cascaded to or set null', function () {
  this.timeout(60_000);
  const dir = tempDir('apidsl-referential-mercure-');
  let server: RunningServer;
  before(async () => {
    // Talks and playlists publish; speakers do not.
    const file = variant(dir, 'mercure.api', (source) =>
      source
        .replace('config {', 'config {\n  mercure { hub: "builtin" }')
        .replace('resource Talk {', 'resource Talk {\n  mercure: true')
        .replace('resource Playlist {', 'resource Playlist {\n  mercure: true'),
    );
    server = await startServer(file);
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each changed item of a publishing resource is published: updated ones as their Get document, deleted ones as {"@id"}', async () => {
    const speaker = await create(server.url, '/speakers', { name: 'Published' });
    const other = await create(server.url, '/speakers', { name: 'Stays' });
    const talk = await create(server.url, '/talks', { title: 'Cascaded', speaker });
    const panel = await create(server.url, '/talks', { title: 'Panel', speaker: other, cospeakers: [speaker, other] });
    const playlist = await create(server.url, '/playlists', { name: 'Gone', talks: [talk] });
    const s = subscribe(`${server.url}/.well-known/mercure`, ['*']);
    try {
      await s.opened;
      expect((await request(server.url, 'DELETE', speaker)).status).to.equal(204);
      // A talk created after the delete publishes next: had the speaker published, its update would come first.
      const marker = await create(server.url, '/talks', { title: 'Marker', speaker: other });
      const events = await s.waitFor(4);
      expect(JSON.parse(events[3].data)['@id'], 'the speaker itself does not publish').to.equal(marker);
      events.pop();
      const panelNow = await request(server.url, 'GET', panel);
      expect(events.map((e) => JSON.parse(e.data))).to.deep.equal([
        panelNow.json,
        { '@id': playlist },
        { '@id': talk },
      ]);
      expect(panelNow.json.cospeakers).to.deep.equal([other]);
    } finally {
      s.close();
    }
  });
});
