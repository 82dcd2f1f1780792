/**
 * What `apidsl serve` prints: the start banner (API and /docs URLs, where the data lives, how to stop), one
 * JSON line per request when stderr is not a terminal, one short line per request on a terminal (coloured
 * unless NO_COLOR), and a busy port explained instead of Node's raw error.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { bookstore, get, serveExpectingExit, startServer, tempDir } from '../http/harness.js';
import { fromRoot } from '../support/paths.js';
import { terminalLine } from '../../cli/request-log.js';

describe('CLI: serve output', function () {
  this.timeout(60_000);

  it('prints a banner with the API URL first, the /docs URL, the store and how to stop, then the route table', async () => {
    const data = tempDir();
    const server = await startServer(bookstore(), ['--data', data]);
    try {
      const out = server.output();
      const lines = out.split('\n');
      expect(lines[0]).to.equal(`apidsl serving ${bookstore()} at ${server.url}`);
      expect(out).to.include(`API reference: ${server.url}/docs`);
      expect(out).to.include(`Data: embedded SQLite store in ${data}`);
      expect(out).to.match(/^METHOD\s+PATH\s+OPERATION\s+RESOURCE\s+FLAGS$/m);
      expect(out).to.match(/^GET\s+\/books\/\{id\}\s+_api_\/books\/\{id\}_get\s+Book/m);
      expect(out).to.include('Ctrl-C to stop.');
      expect((await get(server.url, '/docs', { Accept: 'text/html' })).status).to.equal(200);
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  });

  it('prints where GraphQL and GraphiQL answer when GraphQL is on, and nothing of it when off', async () => {
    const on = await startServer(fromRoot('examples/library-graphql.api'), ['--memory']);
    try {
      expect(on.output()).to.include(`GraphQL: ${on.url}/graphql (GraphiQL: ${on.url}/graphql/graphiql)`);
    } finally {
      await on.stop();
    }
    const off = await startServer(bookstore(), ['--memory']);
    try {
      expect(off.output()).to.not.include('GraphQL');
    } finally {
      await off.stop();
    }
  });

  it('names the in-memory store', async () => {
    const server = await startServer(bookstore(), ['--memory']);
    try {
      expect(server.output()).to.include('Data: in memory (lost when the process stops)');
    } finally {
      await server.stop();
    }
  });

  it('logs one JSON line per request when stderr is not a terminal', async () => {
    const server = await startServer(bookstore());
    try {
      await get(server.url, '/books?page=1');
      await get(server.url, '/books/999');
      const requests = (): Record<string, unknown>[] =>
        server
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((e) => e.msg === 'request');
      // The logger writes asynchronously: the last line may reach the pipe after the response.
      for (let waited = 0; requests().length < 2 && waited < 5_000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      expect(requests().map((e) => [e.method, e.url, e.status])).to.deep.equal([
        ['GET', '/books?page=1', 200],
        ['GET', '/books/999', 404],
      ]);
      expect(requests()[0].ms).to.be.a('number');
    } finally {
      await server.stop();
    }
  });

  it('explains a port already in use, suggesting --port 0, without a stack trace', async () => {
    const first = await startServer(bookstore());
    try {
      const port = new URL(first.url).port;
      const r = await serveExpectingExit(bookstore(), ['--port', port]);
      expect(r.url, r.output).to.equal(undefined);
      expect(r.code, r.output).to.equal(1);
      expect(r.output).to.include(`apidsl serve: port ${port} on 127.0.0.1 is already in use`);
      expect(r.output).to.include('--port 0');
      expect(r.output).to.not.include('EADDRINUSE');
      expect(r.output).to.not.match(/^\s+at /m);
    } finally {
      await first.stop();
    }
  });

  it('on a terminal, a failing security expression is one line: why, the operation and the expression', () => {
    const plain = (_style: unknown, text: string): string => text;
    const warning = terminalLine(
      {
        level: 40,
        msg: 'security expression does not fit the request; access denied',
        expression: 'object.speaker.name == user.identifier',
        operation: 'Talk._api_/talks_post',
        reason: "no member 'speaker'",
      },
      plain,
    );
    expect(warning).to.equal(
      "security expression does not fit the request; access denied: no member 'speaker' [Talk._api_/talks_post: object.speaker.name == user.identifier]\n",
    );
    const error = terminalLine(
      {
        level: 50,
        msg: 'security expression failed; access denied',
        expression: "is_granted('BOOM')",
        operation: 'Talk.thrown',
        err: { message: 'voter failure', stack: 'Error: voter failure\n    at bookVoter (voters.mjs:7:35)' },
      },
      plain,
    );
    expect(error).to.equal(
      "security expression failed; access denied [Talk.thrown: is_granted('BOOM')]\nError: voter failure\n    at bookVoter (voters.mjs:7:35)\n",
    );
  });

  describe('on a terminal', function () {
    before(function () {
      if (existsSync('/usr/bin/script')) return;
      if (process.env.CI === 'true') throw new Error('util-linux `script` is needed to give the command a terminal');
      console.error(
        '\n*** SKIPPED the terminal output tests: /usr/bin/script (util-linux) is missing to give them a terminal ***\n',
      );
      this.skip();
    });

    it('one line per request (method, path, status, ms) in colour', async () => {
      const shown = await onTerminal({ CI: '', TERM: 'xterm-256color', NO_COLOR: '', FORCE_COLOR: '' });
      expect(shown).to.include('\u001b['); // ANSI colours
      const plain = stripAnsi(shown);
      expect(plain).to.match(/^GET +\/books 200 [\d.]+ ms\r?$/m);
      expect(plain).to.match(/^GET +\/nowhere 404 [\d.]+ ms\r?$/m);
      expect(plain).to.not.include('"msg"');
    });

    it('no colours with NO_COLOR', async () => {
      const shown = await onTerminal({ CI: '', TERM: 'xterm-256color', NO_COLOR: '1', FORCE_COLOR: '' });
      expect(shown).to.match(/^GET +\/books 200 [\d.]+ ms\r?$/m);
      expect(shown).to.not.include('\u001b[3'); // no foreground colour (the pty may still move the cursor)
      expect(shown).to.not.include('\u001b[1m');
    });
  });
});

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

/** Runs `apidsl serve` on a pseudo-terminal (util-linux `script`), sends two requests and returns what it showed. */
async function onTerminal(env: Record<string, string>): Promise<string> {
  const cmd = [process.execPath, fromRoot('bin/apidsl.js'), 'serve', bookstore(), '--memory', '--port', '0']
    .map((a) => `'${a}'`)
    .join(' ');
  // CI is left out: Node draws no colours when it is set, and a person's terminal does not set it.
  const cleanEnv = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== ''));
  // Its own process group, so that stopping it stops the server `script` started.
  const child = spawn('script', ['-qefc', cmd, '/dev/null'], {
    env: cleanEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    cwd: tempDir(),
  });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let url: string | undefined;
    for (let waited = 0; url === undefined && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      url = /(http:\/\/127\.0\.0\.1:\d+)\r?\n/.exec(stripAnsi(shown))?.[1];
    }
    expect(url, shown).to.not.equal(undefined);
    await get(url!, '/books');
    await get(url!, '/nowhere');
    for (let waited = 0; !stripAnsi(shown).includes('/nowhere') && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return shown;
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}
