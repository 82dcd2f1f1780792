/**
 * Workers that never hang (docs/behaviour.md, "Workers"): with the in-process cache on, writes sent while the
 * workers start, while one of them is killed and replaced, and while a single process reloads its file, are all
 * answered, and no read shows a page older than a write whose response was received.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { HAMMER_MS, hammer } from './cache-staleness.js';
import { fixture, request, startServer, tempDir, type RunningServer } from './harness.js';
import { suiteDatabase } from './lasting-store.js';
import { sleep } from './sse-client.js';
import { freePort } from '../support/mongodb.js';
import { replaceFile } from '../support/replace-file.js';

const FIXTURE = fixture('http-cache.api');
const STARTUP_MS = 60_000;
const sharedStore = (): string[] => (suiteDatabase() ? [] : ['--data', join(tempDir(), 'data')]);

/** Whether a process of this id runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `write` until one is answered (the port may not listen yet); returns its status. */
async function firstAnswer(write: () => Promise<{ status: number }>): Promise<number> {
  for (;;) {
    try {
      return (await write()).status;
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      await sleep(20);
    }
  }
}

describe('serve --workers: writes through start-up, a killed worker and reloads', function () {
  this.timeout(HAMMER_MS);
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('writes sent while the workers start are all answered, and none is read stale afterwards', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The writes start before the command does: the first ones land while worker 2 still starts.
    const starting = startServer(FIXTURE, [...sharedStore(), '--workers', '2', '--port', String(port)], STARTUP_MS);
    const author = await firstAnswer(() => request(base, 'POST', '/authors', { body: { name: 'Ann' } }));
    expect(author).to.equal(201);
    const writes: number[] = [];
    let started = false;
    void starting.then(() => (started = true));
    // Writes and reads until every worker listens (and a few after), each read at least as new as the last write.
    for (let n = 1; !started || n < 30; n++) {
      const created = await request(base, 'POST', '/books', { body: { title: `b${n}`, author: '/authors/1' } });
      expect(created.status, created.text).to.equal(201);
      writes.push(n);
      const page = await request(base, 'GET', '/books?page=1');
      expect(page.json.totalItems, `after ${n} acknowledged creations`).to.be.at.least(n);
    }
    server = await starting;
    const reads = await hammer(base, { writes: 20, readers: 4 });
    expect(reads).to.be.greaterThan(0);
  });

  it('a worker killed mid-run is replaced; every write is answered and no read is stale', async () => {
    server = await startServer(FIXTURE, [...sharedStore(), '--workers', '2'], STARTUP_MS);
    const base = server.url;
    expect((await request(base, 'POST', '/authors', { body: { name: 'Ann' } })).status).to.equal(201);
    expect((await request(base, 'POST', '/books', { body: { title: 'v0', author: '/authors/1' } })).status).to.equal(
      201,
    );
    const pids = (): Set<number> => new Set([...server!.output().matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])));
    // Requests on new connections reach both workers, whose log lines give their process ids.
    for (let i = 0; i < 20 && pids().size < 2; i++)
      await fetch(`${base}/books/1`, { headers: { Connection: 'close' } });
    const victim = [...pids()][0]!;
    const killing = (async () => {
      await sleep(500);
      process.kill(victim, 'SIGKILL');
    })();
    const reads = await hammer(base, { writes: 60, readers: 4, connectionFaults: true });
    await killing;
    expect(reads).to.be.greaterThan(0);
    expect(server.output()).to.contain('starting another');
    // The replacement serves, and the pages are still true.
    const after = await hammer(base, { writes: 10, readers: 4 });
    expect(after).to.be.greaterThan(0);
  });

  it('the connections of a killed worker are closed at once: no request is left without an answer or an error', async () => {
    server = await startServer(FIXTURE, [...sharedStore(), '--workers', '2'], STARTUP_MS);
    const base = server.url;
    const primary = server.pid;
    const workers = (): number[] =>
      readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    const tally = { answered: 0, failed: 0, unanswered: 0 };
    let loading = true;
    // New connections per request (Connection: close), so that both workers hold some when one dies. A request
    // with neither an answer nor an error after 10 s is one a dead worker's connection left hanging.
    const lane = async (): Promise<void> => {
      while (loading) {
        try {
          const res = await fetch(`${base}/books?page=1`, {
            headers: { Connection: 'close' },
            signal: AbortSignal.timeout(10_000),
          });
          await res.text();
          tally.answered++;
        } catch (e) {
          if ((e as Error).name === 'TimeoutError') tally.unanswered++;
          else tally.failed++;
        }
      }
    };
    const lanes = Array.from({ length: 12 }, lane);
    for (let kill = 1; kill <= 4; kill++) {
      // Both workers run (a replacement included): kill one of them.
      for (let i = 0; i < 500 && workers().filter(alive).length < 2; i++) await sleep(20);
      const victim = workers().filter(alive)[0];
      process.kill(victim!, 'SIGKILL');
      for (let i = 0; i < 500 && server.output().split('starting another').length <= kill; i++) await sleep(20);
      await sleep(1000);
    }
    loading = false;
    await Promise.all(lanes);
    expect(tally.unanswered, JSON.stringify(tally)).to.equal(0);
    expect(tally.answered, JSON.stringify(tally)).to.be.greaterThan(0);
    expect(server.output().split('starting another').length - 1).to.equal(4);
  });

  it('one process reloading its file (--watch) under writes serves no stale page', async () => {
    const dir = tempDir();
    const file = join(dir, 'cached.api');
    const text = readFileSync(FIXTURE, 'utf8');
    writeFileSync(file, text);
    server = await startServer(file, ['--data', join(dir, 'data'), '--watch'], STARTUP_MS);
    const base = server.url;
    expect((await request(base, 'POST', '/authors', { body: { name: 'Ann' } })).status).to.equal(201);
    expect((await request(base, 'POST', '/books', { body: { title: 'v0', author: '/authors/1' } })).status).to.equal(
      201,
    );
    let reloading = true;
    const reloads = (async () => {
      for (let i = 1; reloading; i++) {
        replaceFile(file, `${text}\n// edit ${i}\n`);
        await sleep(300);
      }
    })();
    const reads = await hammer(base, { writes: 60, readers: 4 });
    reloading = false;
    await reloads;
    expect(reads).to.be.greaterThan(0);
    expect(server.output()).to.contain('apidsl reloaded');
  });
});
