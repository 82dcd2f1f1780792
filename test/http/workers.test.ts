/**
 * `apidsl serve --workers N` (docs/behaviour.md, "Workers"): several processes on one port over a shared store,
 * the in-process cache invalidated on every worker before a write answers, one banner, a clean stop; `--memory`
 * and `--watch` refused with more than one worker.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { HAMMER_MS, hammer } from './cache-staleness.js';
import { runCli } from '../support/cli.js';
import { fixture, request, serveExpectingExit, startServer, tempDir, type RunningServer } from './harness.js';

const FIXTURE = fixture('http-cache.api');
/** A store every worker shares: a --data directory, or the suite's MongoDB database (chosen by the harness). */
const mongodb = process.env.APIDSL_TEST_STORE === 'mongodb';
/** Worker 1 starts alone, then the others: twice a single start, on a machine other jobs may keep busy. */
const STARTUP_MS = 60_000;
const sharedStore = (): string[] => (mongodb ? [] : ['--data', join(tempDir(), 'data')]);

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
});
