/**
 * A search engine speaking Elasticsearch's API for the `elasticsearch` tests: ZincSearch, built by .ci/run from its
 * Go module into `$(go env GOPATH)/bin/zincsearch` (README, "Running the search index tests"), or
 * `APIDSL_TEST_ZINCSEARCH` naming the binary. Each server this module starts listens on a free loopback port with
 * its data in a temporary directory, answers `/es/` with HTTP basic authentication, and is stopped by its process
 * id (`stop()`, or when the tests end). Without a binary: under CI=true the suites fail; elsewhere they are
 * skipped with one loud line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, goBinDirs } from './mongodb.js';

export const ZINC_USER = 'apidsl';
export const ZINC_PASSWORD = 'apidsl-test-Secret1';

const HOW_TO_ENABLE =
  'build ZincSearch as .ci/run does (install_zincsearch: its Go module, into $(go env GOPATH)/bin/zincsearch) or set APIDSL_TEST_ZINCSEARCH to its binary';

export interface ZincServer {
  /** `http://127.0.0.1:PORT/es`: the Elasticsearch-compatible API. */
  url: string;
  port: number;
  dir: string;
  /** Stops the process by its id (SIGTERM, then SIGKILL after 10 s); the data directory stays for `restart`. */
  stop(): Promise<void>;
  /** Starts the engine again on the same port and data. */
  restart(): Promise<void>;
}

export function findZincsearch(): string | undefined {
  const given = process.env.APIDSL_TEST_ZINCSEARCH;
  if (given) return existsSync(given) ? given : undefined;
  return goBinDirs()
    .map((d) => join(d, 'zincsearch'))
    .find((p) => existsSync(p));
}

const running = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once('exit', () => {
  for (const child of running) if (child.pid) process.kill(child.pid, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const authorization = `Basic ${Buffer.from(`${ZINC_USER}:${ZINC_PASSWORD}`).toString('base64')}`;

/** Starts a ZincSearch of the caller's own; throws when there is no binary or it does not answer within 30 s. */
export async function startZincsearch(): Promise<ZincServer> {
  const bin = findZincsearch();
  if (!bin) throw new Error(`no zincsearch binary: ${HOW_TO_ENABLE}`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-zinc-'));
  dirs.add(dir);
  const url = `http://127.0.0.1:${port}/es`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const start = async (): Promise<void> => {
    const log = join(dir, 'server.log');
    const fd = openSync(log, 'a');
    const c = spawn(bin, [], {
      stdio: ['ignore', fd, fd],
      env: {
        PATH: process.env.PATH ?? '',
        ZINC_FIRST_ADMIN_USER: ZINC_USER,
        ZINC_FIRST_ADMIN_PASSWORD: ZINC_PASSWORD,
        ZINC_DATA_PATH: join(dir, 'data'),
        ZINC_SERVER_ADDRESS: '127.0.0.1',
        ZINC_SERVER_PORT: String(port),
        // Nothing leaves the machine: no error reports, no telemetry.
        ZINC_SENTRY: 'false',
        ZINC_TELEMETRY: 'false',
        ZINC_SHARD_NUM: '1',
        // Documents become searchable 10 ms after a write is taken (default 1 s): the tests wait less.
        ZINC_WAL_SYNC_INTERVAL: '10ms',
        GIN_MODE: 'release',
      },
    });
    closeSync(fd);
    c.unref();
    running.add(c);
    child = c;
    let gone = false;
    exited = new Promise<void>((resolve) => {
      c.once('exit', () => {
        gone = true;
        running.delete(c);
        resolve();
      });
      c.once('error', () => {
        gone = true;
        running.delete(c);
        resolve();
      });
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !gone) {
      try {
        const r = await fetch(`${url}/`, { headers: { authorization } });
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    const output = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    throw new Error(`ZincSearch at ${url} did not answer within 30 s:\n${output}`);
  };
  const stop = async (): Promise<void> => {
    const c = child;
    if (!c?.pid || c.exitCode !== null || c.signalCode !== null) return;
    process.kill(c.pid, 'SIGTERM');
    const timer = setTimeout(() => c.exitCode === null && c.pid && process.kill(c.pid, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return { url, port, dir, stop, restart: start };
}

let shared: Promise<ZincServer> | undefined;

/**
 * The engine of this test process, started once (each suite uses indexes of its own prefix); skips the calling
 * suite when there is no binary, except under CI=true, where that, or an engine that does not start, fails it.
 */
export async function zincOrSkip(ctx: Mocha.Context): Promise<ZincServer> {
  if (!findZincsearch()) {
    if (process.env.CI === 'true')
      throw new Error(`CI=true and no ZincSearch for the search index tests: ${HOW_TO_ENABLE}`);
    process.stderr.write(`\n!!! search index tests SKIPPED: no ZincSearch binary. To run them, ${HOW_TO_ENABLE}.\n\n`);
    ctx.skip();
  }
  shared ??= startZincsearch();
  return shared;
}

/** A ZincSearch of the test's own, which it may stop and restart; skipped or failed as `zincOrSkip`. */
export async function ownZincOrSkip(ctx: Mocha.Context): Promise<ZincServer> {
  await zincOrSkip(ctx);
  return startZincsearch();
}

/** The environment `apidsl serve` and `apidsl reindex` reach the engine with (the fixtures name these variables). */
export const engineEnv = (engine: ZincServer): Record<string, string> => ({
  APIDSL_ELASTICSEARCH_URL: engine.url,
  APIDSL_TEST_SEARCH_USER: ZINC_USER,
  APIDSL_TEST_SEARCH_PASSWORD: ZINC_PASSWORD,
});

/** An engine that is away: a TCP server that takes every connection and never answers. */
export interface SilentEngine {
  url: string;
  /** The connections it took. */
  connections(): number;
  close(): Promise<void>;
}

export async function silentEngine(): Promise<SilentEngine> {
  const held: Socket[] = [];
  const server = createNetServer((socket) => void held.push(socket));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => held.length,
    close: async () => {
      for (const socket of held) socket.destroy();
      await new Promise((closed) => server.close(closed));
    },
  };
}

/**
 * A file's `elasticsearch` block pointed at `url` with a `timeout` of 100 ms, and the environment's URL, which would
 * take the place of the file's hosts, removed.
 */
export function engineInFile(text: string, url: string): string {
  delete process.env.APIDSL_ELASTICSEARCH_URL;
  return text.replace('elasticsearch {', `elasticsearch {\n    hosts: ["${url}"]\n    timeout: 100`);
}
