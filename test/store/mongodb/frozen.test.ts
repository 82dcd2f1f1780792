/**
 * `apidsl serve --db` against a MongoDB server that stops answering without going away: a server process
 * frozen with SIGSTOP (its connections stay open) and a host that accepts TCP connections and never says a
 * word. Requests answer 503 within the operation timeout (5 s), not when the operating system gives up on
 * the connection; start-up against a silent host fails and the process exits promptly; the service recovers
 * once the server runs again.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { bookstore, PROBLEM_JSON, request, startServer, type RunningServer } from '../../http/harness.js';
import { fromRoot } from '../../support/paths.js';
import { freePort, type LocalServer, ownLocalServerOrSkip, withDatabase } from '../../support/mongodb.js';

/**
 * How long a request may take to be answered 503: the 5 s operation timeout, plus generous room for a loaded
 * machine; what this rules out (waiting until the operating system gives up on the connection) takes minutes.
 */
const ANSWER_WITHIN_MS = 20_000;

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await run();
  return { value, ms: Date.now() - started };
}

describe('MongoDB store: a server that stops answering', function () {
  this.timeout(120_000);

  describe('a host that accepts connections and never answers', () => {
    let silent: Server;
    const sockets = new Set<Socket>();
    let port: number;
    before(async () => {
      port = await freePort();
      silent = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    });
    after(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('apidsl serve reports it after the server selection timeout and exits at once', async () => {
      const args = [
        fromRoot('bin/apidsl.js'),
        'serve',
        bookstore(),
        '--db',
        `mongodb://127.0.0.1:${port}/silent`,
        '--port',
        '0',
      ];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const started = Date.now();
      let output = '';
      let reportedAfter: number | undefined;
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (reportedAfter === undefined && output.includes('cannot reach MongoDB'))
          reportedAfter = Date.now() - started;
      });
      const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      clearTimeout(killer);
      const exitedAfter = Date.now() - started;
      expect(code, output).to.equal(1);
      expect(output).to.contain(`apidsl serve: cannot reach MongoDB at mongodb://127.0.0.1:${port}/silent`);
      // Start-up (check, load) and the 5 s server selection; then no wait for the silent connection.
      expect(reportedAfter!, 'reported after').to.be.below(20_000);
      // Generous: waiting for the silent connection instead would not end before the 40 s kill above.
      expect(exitedAfter - reportedAfter!, 'exited after the report').to.be.below(10_000);
    });
  });

  describe('a server process frozen with SIGSTOP', () => {
    let mongo: LocalServer | undefined;
    let api: RunningServer | undefined;
    let frozen = false;
    before(async function () {
      mongo = await ownLocalServerOrSkip(this, 'frozen-server');
      api = await startServer(bookstore(), ['--db', withDatabase(mongo.uri, 'frozen')]);
    });
    after(async () => {
      if (frozen && mongo) process.kill(mongo.pid, 'SIGCONT');
      await api?.stop();
      await mongo?.stop();
    });

    it('answers 503 within the operation timeout while frozen, and recovers when it runs again', async () => {
      const created = await request(api!.url, 'POST', '/books', { body: { title: 'Before', price: 1 } });
      expect(created.status, created.text).to.equal(201);
      // Established connections stay open: a frozen process keeps its sockets, it only stops reading them.
      expect((await request(api!.url, 'GET', '/books/1')).status).to.equal(200);

      process.kill(mongo!.pid, 'SIGSTOP');
      frozen = true;
      const [read, list, write] = await Promise.all([
        timed(() => request(api!.url, 'GET', '/books/1')),
        timed(() => request(api!.url, 'GET', '/books')),
        timed(() => request(api!.url, 'POST', '/books', { body: { title: 'During' } })),
      ]);
      for (const [label, r] of [
        ['read', read],
        ['list', list],
        ['write', write],
      ] as const) {
        expect(r.value.status, `${label}: ${r.value.text}`).to.equal(503);
        expect(r.value.headers.get('content-type'), label).to.equal(PROBLEM_JSON);
        expect(r.value.headers.get('retry-after'), label).to.match(/^\d+$/);
        expect(r.ms, `${label} answered after`).to.be.below(ANSWER_WITHIN_MS);
      }
      const again = await timed(() => request(api!.url, 'GET', '/books/1'));
      expect(again.value.status).to.equal(503);
      expect(again.ms, 'a later request answered after').to.be.below(ANSWER_WITHIN_MS);

      process.kill(mongo!.pid, 'SIGCONT');
      frozen = false;
      let back = await request(api!.url, 'GET', '/books/1');
      for (let i = 0; i < 40 && back.status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        back = await request(api!.url, 'GET', '/books/1');
      }
      expect(back.status, back.text).to.equal(200);
      expect(back.json.title).to.equal('Before');
      const after = await request(api!.url, 'POST', '/books', { body: { title: 'After' } });
      expect(after.status, after.text).to.equal(201);
      // The write answered 503 was not applied, or was applied once: never twice, and "Before" is intact.
      const all = await request(api!.url, 'GET', '/books?pagination=false');
      const titles = all.json.member.map((m: { title: string }) => m.title);
      expect(titles.filter((t: string) => t === 'Before')).to.have.length(1);
      expect(titles.filter((t: string) => t === 'During').length).to.be.at.most(1);
    });
  });
});
