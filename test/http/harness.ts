/**
 * Black-box harness for `apidsl serve`: starts the real command in a child process, waits for the
 * URL it prints, talks to it over HTTP with Node's global fetch, and stops it with SIGTERM.
 *
 * Servers are started once per `describe` block with `useServer(file, args)` (mocha `before()`/`after()`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../support/paths.js';
import { outsideTestBound } from '../support/startup-bound.js';
import { dropCreatedDatabases, freshDatabaseUri } from '../support/mongodb.js';
import { dropCreatedPostgresDatabases, freshPostgresUrl } from '../support/postgres.js';
import { callingTestFile, refuseListedCaller } from './suite-store.js';

/**
 * How long a server may take to print its URL: generous, as a loaded machine can take many seconds; a server that
 * exits fails at once.
 */
export const STARTUP_TIMEOUT_MS = 120_000;
/** How long a server may take to exit after SIGTERM before it is killed. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

export interface RunningServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  /** Sends SIGTERM and resolves with the exit code (null when killed by a signal or after the shutdown timeout). */
  stop(): Promise<number | null>;
  /** Everything printed so far, stdout then stderr interleaved as received. */
  output(): string;
  /** The process id of the command (the primary, with --workers). */
  pid: number;
}

export interface ExitedServer {
  code: number | null;
  output: string;
  /** The URL, when the server started although it should not have (it is then stopped). */
  url?: string;
}

/** Children still running, killed when the test process exits so that no server outlives the suite. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const URL_PATTERN = /http:\/\/[^\s"'<>)\]]+/;

/** The command under test; APIDSL_TEST_BIN points the suite at another entry script (e.g. a stub). */
const bin = (): string => process.env.APIDSL_TEST_BIN || fromRoot('bin/apidsl.js');

/**
 * Store selection. `--memory` unless the caller chose the storage (`--data DIR`, `--db URI` or `--memory`
 * itself). With `APIDSL_TEST_STORE=mongodb` (or `postgres`) the suite runs against MongoDB (or PostgreSQL): a fresh
 * database per server start takes the place of `--memory` (chosen or implied); `--data DIR` keeps meaning the
 * embedded store.
 */
async function storageArgs(
  extraArgs: string[],
  from: string | undefined,
): Promise<{ storage: string[]; rest: string[] }> {
  const storageChosen = extraArgs.some(
    (a) => a === '--memory' || a === '--data' || a === '--db' || a.startsWith('--data=') || a.startsWith('--db='),
  );
  const onSuiteStore = !storageChosen || extraArgs.includes('--memory');
  if (onSuiteStore) refuseListedCaller(from);
  const shared = process.env.APIDSL_TEST_STORE;
  if ((shared === 'mongodb' || shared === 'postgres') && onSuiteStore) {
    const db = shared === 'mongodb' ? await freshDatabaseUri() : await freshPostgresUrl('h');
    return { storage: ['--db', db], rest: extraArgs.filter((a) => a !== '--memory') };
  }
  return { storage: storageChosen ? [] : ['--memory'], rest: extraArgs };
}

// Databases made on a MongoDB server the suite did not start are dropped at the end (mocha root hook).
if (process.env.APIDSL_TEST_STORE === 'mongodb' && typeof after === 'function') after(() => dropCreatedDatabases());
if (process.env.APIDSL_TEST_STORE === 'postgres' && typeof after === 'function')
  after(() => dropCreatedPostgresDatabases());

async function serveArgs(apiFile: string, extraArgs: string[], from: string | undefined): Promise<string[]> {
  const { storage, rest } = await storageArgs(extraArgs, from);
  return [bin(), 'serve', apiFile, ...storage, '--port', '0', '--host', '127.0.0.1', ...rest];
}

async function spawnServe(
  apiFile: string,
  extraArgs: string[],
  from: string | undefined,
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, await serveArgs(apiFile, extraArgs, from), {
    cwd: fromRoot('.'),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  live.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (out += chunk));
  child.stderr!.on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    });
    child.once('error', (err) => {
      out += `\n[harness] spawn error: ${err.message}\n`;
      live.delete(child);
      resolve(null);
    });
  });
  return { child, output: () => out, exited };
}

function stopper(child: ChildProcess, exited: Promise<number | null>): () => Promise<number | null> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, SHUTDOWN_TIMEOUT_MS);
    });
    const code = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    return code;
  };
}

/**
 * Starts `apidsl serve FILE --memory --port 0 --host 127.0.0.1 [extraArgs]` and resolves once the
 * server printed its URL on stdout. Rejects with the captured output as soon as it exits first, or when it prints
 * nothing within STARTUP_TIMEOUT_MS (the child is then killed). `from`: the test file starting it (suite-store.ts).
 */
export function startServer(
  apiFile: string,
  extraArgs: string[] = [],
  startupTimeoutMs = STARTUP_TIMEOUT_MS,
  from = callingTestFile(),
): Promise<RunningServer> {
  return outsideTestBound(startupTimeoutMs + 10_000, () =>
    serveUntilListening(apiFile, extraArgs, startupTimeoutMs, from),
  );
}

async function serveUntilListening(
  apiFile: string,
  extraArgs: string[],
  startupTimeoutMs: number,
  from: string | undefined,
): Promise<RunningServer> {
  const { child, output, exited } = await spawnServe(apiFile, extraArgs, from);
  const stop = stopper(child, exited);
  return new Promise<RunningServer>((resolve, reject) => {
    let settled = false;
    let stdout = '';
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      fn();
    };
    const onData = (chunk: string): void => {
      stdout += chunk;
      const match = URL_PATTERN.exec(stdout);
      // Wait for the end of the line so that a URL split across chunks is read whole.
      if (match && stdout.slice(match.index + match[0].length).length > 0) {
        const url = new URL(match[0]);
        finish(() => resolve({ url: `${url.protocol}//${url.host}`, stop, output, pid: child.pid! }));
      }
    };
    child.stdout!.on('data', onData);
    const timer = setTimeout(() => {
      finish(() => {
        child.kill('SIGKILL');
        reject(
          new Error(
            `server did not print its URL within ${startupTimeoutMs / 1000} s; output: ${output() || '(none)'}`,
          ),
        );
      });
    }, startupTimeoutMs);
    void exited.then((code) => {
      finish(() =>
        reject(new Error(`server exited with code ${code} before printing its URL; output: ${output() || '(none)'}`)),
      );
    });
  });
}

/**
 * Runs `apidsl serve` for a file that must be refused: resolves with the exit code and output once
 * the process exits. If it prints a URL instead, it is stopped and the URL is reported; if it does
 * neither within STARTUP_TIMEOUT_MS, it is killed and `code` is null.
 */
export function serveExpectingExit(apiFile: string, extraArgs: string[] = []): Promise<ExitedServer> {
  const from = callingTestFile();
  return outsideTestBound(STARTUP_TIMEOUT_MS + 10_000, () => serveUntilExit(apiFile, extraArgs, from));
}

async function serveUntilExit(apiFile: string, extraArgs: string[], from: string | undefined): Promise<ExitedServer> {
  const { child, output, exited } = await spawnServe(apiFile, extraArgs, from);
  const stop = stopper(child, exited);
  return new Promise<ExitedServer>((resolve) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      resolve({ code: null, output: `${output()}\n[harness] still running after ${STARTUP_TIMEOUT_MS / 1000} s` });
    }, STARTUP_TIMEOUT_MS);
    child.stdout!.on('data', () => {
      const match = URL_PATTERN.exec(output());
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        void stop().then((code) => resolve({ code, output: output(), url: match[0] }));
      }
    });
    void exited.then((code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, output: output() });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is non-empty JSON, else undefined. */
  json: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /**
   * A string or bytes are sent as they are, with no implicit Content-Type (fetch would add
   * `text/plain` for a string; we send bytes so that it does not). Any other value is sent as JSON,
   * with `Content-Type: application/ld+json` unless `headers` sets one.
   */
  body?: unknown;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase());
}

export async function request(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: Uint8Array | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string') body = Buffer.from(options.body, 'utf8');
    else if (options.body instanceof Uint8Array) body = options.body;
    else {
      body = Buffer.from(JSON.stringify(options.body), 'utf8');
      if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/ld+json';
    }
  }
  const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Shorthands. */
export const get = (base: string, path: string, headers: Record<string, string> = {}): Promise<HttpResponse> =>
  request(base, 'GET', path, { headers });
export const post = (
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResponse> => request(base, 'POST', path, { headers, body });

/**
 * Sends raw bytes over a TCP connection and resolves with the status code of the first response
 * line (null when the connection closes without one). For requests fetch refuses to send.
 */
export function rawRequest(
  base: string,
  raw: string,
  timeoutMs = 5_000,
): Promise<{ status: number | null; text: string }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    let data = '';
    const socket = connect(Number(url.port), url.hostname);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      resolve({ status: m ? Number(m[1]) : null, text: data });
    };
    const timer = setTimeout(done, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (/\r\n\r\n/.test(data)) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.write(raw, 'latin1');
  });
}

// ---------------------------------------------------------------------------------------------
// Documents and headers as API Platform gives them (docs/behaviour.md)

/** The Hydra error document as API Platform answers it (prefix off). */
export function errorDoc(status: number, detail: string): Record<string, unknown> {
  return {
    '@context': '/contexts/Error',
    '@id': `/errors/${status}`,
    '@type': 'Error',
    title: 'An error occurred',
    detail,
    status,
    type: `/errors/${status}`,
    description: detail,
  };
}

export const PROBLEM_JSON = 'application/problem+json; charset=utf-8';
export const JSONLD = 'application/ld+json; charset=utf-8';
export const JSON_UTF8 = 'application/json; charset=utf-8';

export const NOT_BLANK = 'c1051bb4-d103-4f74-8988-acbcafc7fdc3';

/** The `Link` value pointing at the Hydra API documentation, absolute, for this server. */
export const apiDocLink = (base: string): string =>
  `<${base}/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"`;

/** Splits a comma-separated header (Vary, Allow, Link) into trimmed parts. */
export function headerList(headers: Headers, name: string): string[] {
  const value = headers.get(name);
  if (value === null) return [];
  return value
    .split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A fresh temporary directory. */
export const tempDir = (prefix = 'apidsl-http-'): string => mkdtempSync(join(tmpdir(), prefix));

/** Path of a fixture of this suite. */
export const fixture = (name: string): string => fromRoot(`test/fixtures/http/${name}`);
/** Path of the normative bookstore example. */
export const bookstore = (): string => fromRoot('examples/bookstore.api');

/** The bookstore served with one book, Dune by Frank Herbert at 9.99 (id 1), as several suites start. */
export async function bookstoreWithDune(): Promise<RunningServer> {
  const server = await startServer(bookstore());
  const r = await request(server.url, 'POST', '/books', {
    body: { title: 'Dune', author: 'Frank Herbert', price: 9.99 },
  });
  if (r.status !== 201) {
    await server.stop();
    throw new Error(`seeding Dune answered ${r.status}: ${r.text}`);
  }
  return server;
}

/**
 * Starts a server for the enclosing `describe` block: registers mocha's `before()` (start) and
 * `after()` (stop) and returns a handle whose `url` and `output()` may be used inside the tests.
 * Reading the handle before `before()` ran throws, so a misuse fails loudly instead of fetching
 * from `undefined`.
 */
export function useServer(
  apiFile: string | (() => string),
  extraArgs: string[] | (() => string[]) = [],
  options: { startupTimeoutMs?: number } = {},
): RunningServer {
  let running: RunningServer | undefined;
  const current = (): RunningServer => {
    if (!running) throw new Error('useServer(): the server is used before its before() hook ran');
    return running;
  };
  // The hook runs from mocha, not from the test file: the file is read here, where the file calls.
  const from = callingTestFile();
  before(async function () {
    this.timeout((options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS) + 10_000);
    const file = typeof apiFile === 'function' ? apiFile() : apiFile;
    const args = typeof extraArgs === 'function' ? extraArgs() : extraArgs;
    running = await startServer(file, args, options.startupTimeoutMs, from);
  });
  after(async () => {
    await running?.stop();
  });
  return {
    get url() {
      return current().url;
    },
    get pid() {
      return current().pid;
    },
    stop: () => current().stop(),
    output: () => current().output(),
  };
}
