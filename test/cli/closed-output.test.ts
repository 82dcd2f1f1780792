/**
 * A command whose reader goes away after the first line (`apidsl check DIR | head -1`) ends quietly: no EPIPE
 * stack trace on stderr, and the exit status of what it did. Each command's output is far larger than a pipe
 * holds (64 KiB on Linux), so it is still writing when the reader closes, whatever the timing.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../support/paths.js';

interface Ended {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  firstChunk: string;
}

/** Runs `apidsl args`, reads its first chunk of stdout, then closes the pipe, as `| head -1` does. */
function runClosedEarly(args: string[]): Promise<Ended> {
  const child = spawn(process.execPath, [fromRoot('bin/apidsl.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let firstChunk = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.once('data', (chunk: Buffer) => {
    firstChunk = chunk.toString('utf8');
    child.stdout.destroy();
  });
  return new Promise((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stderr, firstChunk })),
  );
}

describe('a CLI command whose stdout is closed early', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-epipe-'));
  const many = (n: number, line: (i: number) => string): string =>
    Array.from({ length: n }, (_, i) => line(i)).join('\n');

  it('apidsl check DIR | head -1: exits 1 (the file has errors), without a stack trace', async () => {
    const bad = mkdtempSync(join(dir, 'bad-'));
    writeFileSync(
      join(bad, 'bad.api'),
      many(3000, (i) => `resource Q${i} { propertiez { } }`),
    );
    const r = await runClosedEarly(['check', bad]);
    expect(r.firstChunk).to.include("unknown resource option 'propertiez'");
    expect(r.stderr).to.equal('');
    expect(r.signal).to.equal(null);
    expect(r.status).to.equal(1);
  });

  it('apidsl routes FILE | head -1: exits 0, without a stack trace', async () => {
    const file = join(dir, 'big.api');
    writeFileSync(
      file,
      `api "Big" { version: "1" }\n${many(1500, (i) => `resource R${i} { properties { id: int { identifier: true } } }`)}\n`,
    );
    const r = await runClosedEarly(['routes', file]);
    expect(r.firstChunk).to.match(/^METHOD\s+PATH/);
    expect(r.stderr).to.equal('');
    expect(r.status).to.equal(0);
  });

  it('apidsl serve --watch whose stdout and stderr are closed goes on serving: a reload writes to the closed pipe, the new route answers, SIGTERM exits 0', async () => {
    const file = join(mkdtempSync(join(dir, 'watch-')), 'shop.api');
    const api = (resources: string[]): string =>
      `api "Shop" { version: "1" }\n${resources.map((r) => `resource ${r} { properties { id: int { identifier: true } } }`).join('\n')}\n`;
    writeFileSync(file, api(['Book']));
    const child = spawn(
      process.execPath,
      [fromRoot('bin/apidsl.js'), 'serve', file, '--memory', '--port', '0', '--watch'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    let banner = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        banner += text;
        const match = /http:\/\/127\.0\.0\.1:\d+/.exec(banner);
        if (match && banner.includes('Ctrl-C')) resolve(match[0]);
      });
      void exited.then((status) => reject(new Error(`serve exited with ${status} before its URL: ${banner}`)));
    });
    // Both readers go away; the reload's route table and every request's log line now go to closed pipes.
    child.stdout.destroy();
    child.stderr.destroy();
    expect((await fetch(`${url}/books`)).status).to.equal(200);
    writeFileSync(file, api(['Book', 'Author']));
    let status = 0;
    for (let i = 0; i < 300 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await fetch(`${url}/authors`)).status;
    }
    expect(status, 'the reloaded file serves /authors').to.equal(200);
    expect((await fetch(`${url}/books`)).status).to.equal(200);
    expect(child.exitCode).to.equal(null);
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
