/**
 * A MongoDB-wire server for the tests (docs/development.md, "Running the MongoDB tests"). Looked for in this order:
 * 1. `APIDSL_TEST_MONGODB_URI` (a server someone else runs; the tests use fresh databases on it and drop them);
 * 2. a `mongod` on PATH, started as a single-node replica set (so transactions, and the counts document, are
 *    exercised);
 * 3. a `ferretdb` on PATH, in `$(go env GOPATH)/bin` or in ~/go/bin, started with its embedded SQLite backend.
 * A server this module starts listens on a free loopback port, keeps its data in a temporary directory and is
 * stopped by its process id when the tests end (or by `stop()`).
 *
 * With none of them: under `CI=true` the MongoDB tests fail; elsewhere they are skipped with one loud line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { MongoClient } from 'mongodb';

export type ServerKind = 'uri' | 'mongod' | 'ferretdb';

export interface TestMongo {
  kind: ServerKind;
  /** Connection string without a database: `mongodb://127.0.0.1:PORT/?options`. */
  uri: string;
  /** Whether this is a MongoDB server (mongod, or a URI that answers like one), not FerretDB. */
  realMongo: boolean;
}

export const HOW_TO_ENABLE =
  'set APIDSL_TEST_MONGODB_URI=mongodb://host:port, put mongod on PATH, or install FerretDB ' +
  '(GOTOOLCHAIN=local go install … see docs/development.md "Running the MongoDB tests")';

/** `uri` with its database path set to `name`, its options kept. */
export function withDatabase(uri: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/[^?]*)?(\?.*)?$/i.exec(uri);
  if (!m) throw new Error(`not a MongoDB connection string: ${uri}`);
  return `${m[1]}/${name}${m[2] ?? ''}`;
}

let counter = 0;
/** Database names created by this process on a server it did not start: dropped at the end. */
const created = new Set<string>();

/** A database name nobody used before: `apidsl_t<pid>_<n>_<random>` (FerretDB allows [A-Za-z0-9_-]{1,63}). */
export function freshDatabaseName(label = 't'): string {
  const name = `apidsl_${label}${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  created.add(name);
  return name;
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

export function goBinDirs(): string[] {
  const dirs: string[] = [];
  for (const go of ['go', '/usr/local/go/bin/go']) {
    const r = spawnSync(go, ['env', 'GOPATH'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) {
      dirs.push(
        ...r.stdout
          .trim()
          .split(delimiter)
          .map((d) => join(d, 'bin')),
      );
      break;
    }
  }
  dirs.push(join(homedir(), 'go', 'bin'), '/root/go/bin');
  return [...new Set(dirs)];
}

/** Where a FerretDB binary is, if anywhere. */
export function findFerretdb(): string | undefined {
  return (
    onPath('ferretdb') ??
    goBinDirs()
      .map((d) => join(d, 'ferretdb'))
      .find((p) => existsSync(p))
  );
}

export function findMongod(): string | undefined {
  return onPath('mongod');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `hello` until it answers (or the process exits, or `timeoutMs` passes). */
async function waitForHello(uri: string, exited: () => boolean, timeoutMs: number, log: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (exited()) break;
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000, directConnection: true });
    try {
      await client.connect();
      await client.db('admin').command({ hello: 1 });
      return;
    } catch (e) {
      last = e;
    } finally {
      await client.close().catch(() => undefined);
    }
    await sleep(200);
  }
  const output = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
  throw new Error(`the test MongoDB server at ${uri} did not answer: ${String(last)}\n${output}`);
}

/** A server process this module started. */
export interface LocalServer extends TestMongo {
  port: number;
  dir: string;
  pid: number;
  /** Stops the process by its id (SIGTERM, then SIGKILL after 10 s); the data directory stays. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once('exit', () => {
  for (const child of running) if (child.pid) process.kill(child.pid, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts `ferretdb` or `mongod` on `port` (a free one by default) with its data in `dir` (a new temporary
 * directory by default; pass the same port and directory to restart a stopped server on its data).
 */
export async function startLocalServer(
  options: { kind?: 'ferretdb' | 'mongod'; port?: number; dir?: string } = {},
): Promise<LocalServer> {
  const mongod = options.kind === 'ferretdb' ? undefined : findMongod();
  const ferretdb = mongod ? undefined : findFerretdb();
  if (!mongod && !ferretdb) throw new Error(`no mongod or ferretdb binary found: ${HOW_TO_ENABLE}`);
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'apidsl-mongo-'));
  dirs.add(dir);
  const log = join(dir, 'server.log');
  const fd = openSync(log, 'a');
  const args = mongod
    ? [
        '--dbpath',
        dir,
        '--port',
        String(port),
        '--bind_ip',
        '127.0.0.1',
        '--replSet',
        'apidsl',
        '--quiet',
        '--nounixsocket',
      ]
    : [
        '--handler=sqlite',
        `--sqlite-url=file:${dir}/`,
        `--listen-addr=127.0.0.1:${port}`,
        `--debug-addr=127.0.0.1:${await freePort()}`,
        '--telemetry=disable',
        `--state-dir=${dir}`,
        '--log-level=warn',
      ];
  const child = spawn((mongod ?? ferretdb)!, args, { stdio: ['ignore', fd, fd], detached: false });
  closeSync(fd);
  child.unref(); // the test process may exit while it runs: the exit handler kills it
  running.add(child);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      running.delete(child);
      resolve();
    });
    child.once('error', () => {
      exited = true;
      running.delete(child);
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (exited || !child.pid) return;
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => !exited && child.pid && process.kill(child.pid, 'SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  };
  const uri = `mongodb://127.0.0.1:${port}/${mongod ? '?directConnection=true' : ''}`;
  try {
    await waitForHello(uri, () => exited, 30_000, log);
    if (mongod) await initiateReplicaSet(uri, port);
  } catch (e) {
    await stop();
    throw e;
  }
  return { kind: mongod ? 'mongod' : 'ferretdb', uri, realMongo: Boolean(mongod), port, dir, pid: child.pid!, stop };
}

/** A single-node replica set, so that the store uses transactions (and w: majority) as in production. */
async function initiateReplicaSet(uri: string, port: number): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const admin = client.db('admin');
    try {
      await admin.command({ replSetInitiate: { _id: 'apidsl', members: [{ _id: 0, host: `127.0.0.1:${port}` }] } });
    } catch (e) {
      if (!/already initialized/i.test(String(e))) throw e;
    }
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const hello = await admin.command({ hello: 1 });
      if (hello.isWritablePrimary) return;
      await sleep(200);
    }
    throw new Error('the test replica set elected no primary within 30 s');
  } finally {
    await client.close();
  }
}

/** Whether the server at `uri` is MongoDB itself (FerretDB's buildInfo has `ferretdbVersion`). */
async function isRealMongo(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    return info.ferretdbVersion === undefined;
  } finally {
    await client.close();
  }
}

let shared: Promise<TestMongo | null> | undefined;
let sharedExternal = false;

/** The server of this test process, found or started once; null when there is none. */
export function testMongo(): Promise<TestMongo | null> {
  shared ??= (async () => {
    const given = process.env.APIDSL_TEST_MONGODB_URI;
    if (given) {
      sharedExternal = true;
      const uri = withDatabase(given, '');
      return { kind: 'uri' as const, uri, realMongo: await isRealMongo(uri) };
    }
    if (!findMongod() && !findFerretdb()) return null;
    return startLocalServer();
  })();
  return shared;
}

let warned = false;

/**
 * The shared server for a mocha suite: skips the calling suite or test (after one loud line) when there is
 * none, except under CI=true where a missing server is a failure.
 */
export async function mongoOrSkip(ctx: Mocha.Context): Promise<TestMongo> {
  const server = await testMongo();
  if (server) return server;
  if (process.env.CI === 'true')
    throw new Error(`CI=true and no MongoDB-wire server for the MongoDB tests: ${HOW_TO_ENABLE}`);
  if (!warned) {
    warned = true;
    process.stderr.write(
      `\n!!! MongoDB store tests SKIPPED: no MongoDB-wire server found. To run them, ${HOW_TO_ENABLE}.\n\n`,
    );
  }
  ctx.skip();
}

/**
 * A MongoDB-wire server of the test's own, which it may stop, restart or freeze (`what` names the test in
 * the messages). Only a mongod or ferretdb binary gives one: with APIDSL_TEST_MONGODB_URI alone the test is
 * skipped with one loud line, or fails under CI=true.
 */
export async function ownLocalServerOrSkip(ctx: Mocha.Context, what: string): Promise<LocalServer> {
  await mongoOrSkip(ctx);
  if (!findMongod() && !findFerretdb()) {
    if (process.env.CI === 'true')
      throw new Error(`the ${what} test needs a mongod or ferretdb binary to stop (CI installs FerretDB)`);
    process.stderr.write(`\n!!! MongoDB ${what} test SKIPPED: it needs a mongod or ferretdb binary to stop.\n\n`);
    ctx.skip();
  }
  return startLocalServer();
}

/** A connection string to a database nobody used yet, on the shared server; throws when there is none. */
export async function freshDatabaseUri(label?: string): Promise<string> {
  const server = await testMongo();
  if (!server) throw new Error(`APIDSL_TEST_STORE=mongodb, but no MongoDB-wire server was found: ${HOW_TO_ENABLE}`);
  return withDatabase(server.uri, freshDatabaseName(label));
}

/** Drops the databases this process created on a server it did not start (its own servers' data is deleted). */
export async function dropCreatedDatabases(): Promise<void> {
  if (!sharedExternal || created.size === 0) return;
  const server = await testMongo();
  if (!server) return;
  const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    for (const name of created)
      await client
        .db(name)
        .dropDatabase()
        .catch(() => undefined);
    created.clear();
  } finally {
    await client.close();
  }
}
