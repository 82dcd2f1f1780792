/**
 * `apidsl serve --workers N` (docs/behaviour.md, "Workers"): several processes on one port over a shared store,
 * the in-process cache invalidated on every worker before a write answers, one banner, a clean stop; `--memory`
 * and `--watch` refused with more than one worker; a page and its totalItems of one moment while other workers
 * write (docs/behaviour.md, "Collections and pagination").
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { HAMMER_MS, hammer } from './cache-staleness.js';
import { runCli } from '../support/cli.js';
import { fixture, request, serveExpectingExit, startServer, tempDir, type RunningServer } from './harness.js';
import { suiteDatabase } from './lasting-store.js';

const FIXTURE = fixture('http-cache.api');
/** A store every worker shares: a --data directory, or the suite's MongoDB or PostgreSQL database (chosen by the harness). */
/** Worker 1 starts alone, then the others: twice a single start, on a machine other jobs may keep busy. */
const STARTUP_MS = 60_000;
const sharedStore = (): string[] => (suiteDatabase() ? [] : ['--data', join(tempDir(), 'data')]);

/** What a page of `perPage` items shows when it is one snapshot: the members `totalItems` leaves for page `page`. */
function tornPage(doc: Record<string, unknown>, perPage: number, page: number): string | undefined {
  const total = doc.totalItems as number;
  const members = doc.member as { id: number }[];
  const last = Math.max(1, Math.ceil(total / perPage));
  const expected = Math.min(perPage, Math.max(0, total - (page - 1) * perPage));
  if (members.length !== expected) return `${members.length} members with totalItems ${total}`;
  const view = doc.view as { last?: string } | undefined;
  if (last > 1 && !view?.last?.endsWith(`page=${last}`)) return `view.last ${view?.last} with totalItems ${total}`;
  return undefined;
}

/** Notes stored before the writes start, and a page size that holds every note. */
const SEEDED = 20;
const WHOLE = 100;

/**
 * Writers insert notes and delete their oldest ones while readers read pages: every note on one page (its
 * members are its totalItems), those of kind "a" the same way (a counted total), and the last page of 4 (found
 * by the last total read). Returns the pages read and what was wrong with each torn one.
 */
async function pagesUnderWrites(base: string): Promise<{ pages: number; torn: string[] }> {
  const kindOf = (i: number): string => (i % 2 === 0 ? 'a' : 'b');
  for (let i = 0; i < SEEDED; i++)
    expect((await request(base, 'POST', '/notes', { body: { kind: kindOf(i) } })).status).to.equal(201);
  let done = false;
  let pages = 0;
  let lastTotal = SEEDED;
  const torn: string[] = [];
  const writer = async (w: number): Promise<void> => {
    const own: number[] = [];
    for (let i = 0; i < 60; i++) {
      const created = await request(base, 'POST', '/notes', { body: { kind: kindOf(w + i) } });
      expect(created.status, created.text).to.equal(201);
      own.push((created.json as { id: number }).id);
      if (own.length > 2) expect((await request(base, 'DELETE', `/notes/${own.shift()}`)).status).to.equal(204);
    }
  };
  const read = async (path: string, perPage: number, page: number): Promise<void> => {
    const answer = await request(base, 'GET', path);
    expect(answer.status, answer.text).to.equal(200);
    const doc = answer.json as Record<string, unknown>;
    const problem = tornPage(doc, perPage, page);
    if (problem) torn.push(`GET ${path}: ${problem}`);
    if (perPage === WHOLE && !path.includes('kind')) lastTotal = doc.totalItems as number;
    pages++;
  };
  const reader = async (): Promise<void> => {
    while (!done) {
      const last = Math.max(1, Math.ceil(lastTotal / 4));
      await Promise.all([
        read(`/notes?itemsPerPage=${WHOLE}`, WHOLE, 1),
        read(`/notes?kind=a&itemsPerPage=${WHOLE}`, WHOLE, 1),
        read(`/notes?page=${last}`, 4, last),
      ]);
    }
  };
  const readers = Array.from({ length: 4 }, () => reader());
  try {
    await Promise.all([0, 1, 2].map(writer));
  } finally {
    done = true;
    await Promise.all(readers);
  }
  return { pages, torn };
}

describe('serve --workers', () => {
  // Run directly, not through the harness, which would serve a MongoDB database in place of --memory.
  it('refuses --memory with more than one worker (exit code 1, a message saying why)', () => {
    const exited = runCli(['serve', FIXTURE, '--memory', '--workers', '2', '--port', '0'], { timeoutMs: STARTUP_MS });
    expect(exited.status).to.equal(1);
    expect(exited.stdout + exited.stderr).to.contain('--memory keeps the data inside one process');
  });

  it('refuses --watch with more than one worker, and a --workers that is not a number', async function () {
    this.timeout(60_000);
    const watched = await serveExpectingExit(FIXTURE, [...sharedStore(), '--watch', '--workers', '2']);
    expect(watched.code).to.equal(1);
    expect(watched.output).to.contain('--watch reloads one process');
    const invalid = await serveExpectingExit(FIXTURE, [...sharedStore(), '--workers', 'many']);
    expect(invalid.code).to.equal(1);
    expect(invalid.output).to.contain('invalid --workers "many"');
  });

  describe('with 2 workers', () => {
    let server: RunningServer;
    before(async function () {
      this.timeout(STARTUP_MS + 10_000);
      server = await startServer(FIXTURE, [...sharedStore(), '--workers', '2'], STARTUP_MS);
      expect((await request(server.url, 'POST', '/authors', { body: { name: 'Ann' } })).status).to.equal(201);
      expect(
        (await request(server.url, 'POST', '/books', { body: { title: 'Dune', author: '/authors/1' } })).status,
      ).to.equal(201);
    });
    after(() => server?.stop());

    it('prints the banner once, naming the workers', () => {
      expect(server.output().match(/apidsl serving /g)).to.have.length(1);
      expect(server.output()).to.contain('Workers: 2 processes');
    });

    it('requests are answered by several processes', async () => {
      // Each request on a new connection: the kernel spreads connections over the workers.
      const pids = new Set<string>();
      for (let i = 0; i < 30; i++) {
        await fetch(`${server.url}/books/1`, { headers: { Connection: 'close' } });
      }
      for (const line of server.output().split('\n')) {
        const m = /"pid":(\d+).*"url":"\/books\/1"/.exec(line);
        if (m) pids.add(m[1]);
      }
      expect(pids.size).to.be.greaterThan(1);
    });

    it('no GET on any worker is older than a write whose response was received', async function () {
      this.timeout(HAMMER_MS); // seconds of load on a busy machine: no timing is asserted
      const reads = await hammer(server.url, { writes: 40, readers: 6 });
      expect(reads).to.be.greaterThan(0);
    });

    it('SIGTERM stops every worker and the command exits 0', async () => {
      expect(await server.stop()).to.equal(0);
    });
  });

  // The embedded store whatever the suite's store: a MongoDB page is one snapshot only on a deployment with
  // snapshot reads (docs/behaviour.md, "MongoDB"), which the test server (FerretDB) is not.
  describe('with 2 workers on one --data directory, pages under writes', () => {
    let server: RunningServer;
    before(async function () {
      this.timeout(STARTUP_MS + 10_000);
      const args = ['--data', join(tempDir(), 'data'), '--workers', '2'];
      server = await startServer(fixture('pages-under-writes.api'), args, STARTUP_MS);
    });
    after(() => server?.stop());

    it("every page's members agree with its totalItems while the other worker inserts and deletes", async function () {
      this.timeout(HAMMER_MS); // seconds of load on a busy machine: no timing is asserted
      const { pages, torn } = await pagesUnderWrites(server.url);
      expect(pages).to.be.greaterThan(0);
      expect(torn, `${torn.length} torn pages of ${pages}`).to.deep.equal([]);
    });
  });
});
