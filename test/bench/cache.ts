/**
 * The HTTP cache and the workers (part `cache` of `npm run bench`), on test/fixtures/bench/cache.api with
 * 10,000 books, load from autocannon in a child process, pairs of runs seconds apart, ratios as the median of
 * the pairs' ratios (as pagination.ts does):
 * - `GET /books?page=2` with the in-process response cache on, and off (two apps on one store, same process),
 *   against two bare Koa ceilings: a handler that stringifies the page per request (pagination.ts's), and one
 *   that sends a precomputed body;
 * - the same uncached page from `apidsl serve --workers 2` against `--workers 1` over one --data directory:
 *   real processes, sharing the machine's cores with the load generator;
 * - POSTs to `--workers 2` with the cache on against off: what telling the other worker costs a write.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { pino } from 'pino';
import { loadApi } from '../../server/load-api.js';
import { startService } from '../../server/serve.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item, Store } from '../../server/store/types.js';
import { load, type LoadRequest, type LoadResult } from './load-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/cache.api', import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/apidsl.js', import.meta.url));
const BOOKS = 10_000;
const PAGE = 30;
const LOAD = { connections: 10, duration: 3, pairs: 5, warmup: 4 };

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};
const num = (v: number): string => Math.round(v).toLocaleString('en-US');
const makeBook = (i: number): Item => ({
  id: i,
  title: `Book ${i}`,
  author: `Author ${i % 97}`,
  price: (i % 5_000) / 100,
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** What one run of a pair sends: a GET of a URL, or a POST of a body. */
type Target = string | { url: string; body: string };

const loadOf = (target: Target, duration: number): Promise<LoadResult> => {
  const request: LoadRequest =
    typeof target === 'string'
      ? { url: target, connections: LOAD.connections, duration }
      : {
          url: target.url,
          connections: LOAD.connections,
          duration,
          method: 'POST',
          body: target.body,
          headers: { 'content-type': 'application/ld+json' },
        };
  return load(request);
};

/**
 * A run and this process's CPU time per request during it: the server's own cost when the server runs in this
 * process (the load generator runs in another), far less sensitive than req/s to what else the machine runs.
 */
type Run = LoadResult & { cpuPerRequest: number };

/** Runs every named target once per pair, in turn; the median req/s of each and its runs. */
async function pairs(label: string, targets: Record<string, Target>): Promise<Record<string, Run[]>> {
  const runs: Record<string, Run[]> = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
  progress(
    `${label}: ${LOAD.warmup} s warm-up each, then ${LOAD.pairs} rounds of ${LOAD.duration} s runs (${Object.keys(targets).join(', ')})`,
  );
  for (const target of Object.values(targets)) await loadOf(target, LOAD.warmup);
  for (let pair = 1; pair <= LOAD.pairs; pair++) {
    for (const [name, target] of Object.entries(targets)) {
      const cpu = process.cpuUsage();
      const result = await loadOf(target, LOAD.duration);
      const { user, system } = process.cpuUsage(cpu);
      if (result.non2xx || result.errors)
        throw new Error(`${label} ${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      runs[name].push({ ...result, cpuPerRequest: (user + system) / result.requests });
    }
    progress(
      `  round ${pair}: ${Object.keys(targets)
        .map((n) => `${n} ${num(runs[n][pair - 1].rps)}`)
        .join(', ')} req/s`,
    );
  }
  return runs;
}

const rps = (runs: Run[]): string => `${num(median(runs.map((r) => r.rps)))} req/s`;
const ratio = (a: Run[], b: Run[]): number => median(a.map((r, i) => r.rps / b[i].rps));
const cell = (value: number, bar?: number): string =>
  `${value.toFixed(2)}×${bar === undefined ? '' : ` (bar ≥ ${bar}×: ${value >= bar ? 'met' : 'MISSED'})`}`;

async function seed(store: Store): Promise<void> {
  const api = await loadApi(FIXTURE);
  const collection = await store.collection(storageSpec(api.resources[0]));
  const insertMany = (collection as typeof collection & { insertMany?: (items: Item[]) => Promise<unknown> })
    .insertMany;
  const items = Array.from({ length: BOOKS }, (_, i) => makeBook(i + 1));
  if (insertMany) await insertMany.call(collection, items);
  else if (store.transaction)
    await store.transaction(async () => {
      for (const item of items) await collection.insert(item);
    });
  else for (const item of items) await collection.insert(item);
}

/** The bare Koa ceilings: the page stringified per request, or sent as a precomputed body. */
async function startBareKoa(precomputed: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const books = Array.from({ length: BOOKS }, (_, i) => makeBook(i + 1));
  const body = Buffer.from(JSON.stringify(books.slice(PAGE, 2 * PAGE)));
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = precomputed ? body : JSON.stringify(books.slice(PAGE, 2 * PAGE));
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** `apidsl serve FILE --data DIR --workers N` as a child process, resolved with its URL once it printed it. */
function serveWorkers(file: string, dir: string, workers: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'serve', file, '--data', dir, '--port', '0', '--workers', String(workers)],
    {
      stdio: ['ignore', 'pipe', 'ignore'], // the request log (stderr) is dropped
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const match = /http:\/\/[0-9.:]+/.exec(out);
      if (match && out.includes('\n', match.index)) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume(); // request log lines are dropped
        resolve({
          url: match[0],
          stop: () =>
            new Promise<void>((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`apidsl serve --workers ${workers} exited with ${code}`)));
  });
}

export async function runCacheBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-cache-bench-'));
  const uncachedFile = join(dir, 'uncached.api');
  // The config's own line: the fixture's header comment also says "max_bytes: 0".
  writeFileSync(
    uncachedFile,
    readFileSync(FIXTURE, 'utf8').replace(/in_process \{ max_bytes: \d+ \}/, 'in_process { max_bytes: 0 }'),
  );
  // Each side is what it says, or every figure below compares the cache with itself.
  if ((await loadApi(uncachedFile)).settings.httpCache.inProcessMaxBytes !== 0)
    throw new Error(`${uncachedFile} still turns the in-process cache on`);
  if ((await loadApi(FIXTURE)).settings.httpCache.inProcessMaxBytes === 0)
    throw new Error(`${FIXTURE} does not turn the in-process cache on`);
  const store = await openSqliteStore({ file: join(dir, 'apidsl.sqlite') });
  progress(`seeding ${num(BOOKS)} books`);
  await seed(store);
  const logger = pino({ level: 'silent' });
  const cached = await startService({
    file: FIXTURE,
    port: 0,
    host: '127.0.0.1',
    storage: { kind: 'memory' },
    logger,
    store,
  });
  const uncached = await startService({
    file: uncachedFile,
    port: 0,
    host: '127.0.0.1',
    storage: { kind: 'memory' },
    logger,
    store,
  });
  const [bare, precomputed] = await Promise.all([startBareKoa(false), startBareKoa(true)]);
  try {
    for (const url of [cached.url, uncached.url]) {
      const doc = (await (await fetch(`${url}/books?page=2`)).json()) as { member: { id: number }[] };
      if (doc.member[0]?.id !== PAGE + 1) throw new Error(`GET ${url}/books?page=2 did not answer page 2`);
    }
    const runs = await pairs('cache', {
      cached: `${cached.url}/books?page=2`,
      uncached: `${uncached.url}/books?page=2`,
      bare: bare.url,
      precomputed: precomputed.url,
    });
    console.log(
      `\nHTTP cache: ${cpus().length} CPUs shared with the load generator, node ${process.version}; ${LOAD.connections} connections, ${LOAD.pairs} rounds of ` +
        `${LOAD.duration} s runs after a ${LOAD.warmup} s warm-up each (values: median req/s; ratios: median of the rounds' ratios)\n`,
    );
    // The CPU ratio is the inverse of the CPU times: how many requests the baseline's CPU time serves here.
    const cpu = (runs: Run[]): string => `${Math.round(median(runs.map((r) => r.cpuPerRequest)))} µs`;
    const cpuRatio = (a: Run[], b: Run[]): number => median(a.map((r, i) => b[i].cpuPerRequest / r.cpuPerRequest));
    console.log(
      '| measurement | value | ratio to bare Koa (stringified per request) | ratio to bare Koa (precomputed body) | server CPU per request | CPU ratio to precomputed |',
    );
    console.log('|---|---:|---|---|---:|---|');
    const row = (name: string, measured: Run[], bar?: number): void =>
      console.log(
        `| ${name} | ${rps(measured)} | ${cell(ratio(measured, runs.bare))} | ${cell(ratio(measured, runs.precomputed), bar)} | ${cpu(measured)} | ${cell(cpuRatio(measured, runs.precomputed), bar)} |`,
      );
    row('bare Koa, page 2 stringified per request', runs.bare);
    row('bare Koa, page 2 precomputed', runs.precomputed);
    row('apidsl GET /books?page=2, in-process cache on', runs.cached, 0.8);
    row('apidsl GET /books?page=2, cache off', runs.uncached, 0.5);
  } finally {
    await Promise.all([cached.close(), uncached.close(), bare.close(), precomputed.close()]);
  }
  // The store is closed by the services; the workers open the same file.
  await measureWorkers(uncachedFile, dir);
  // What the cache's invalidation across workers costs a write: POSTs to two workers, cache on against off.
  const cachedFile = join(dir, 'cached.api');
  writeFileSync(cachedFile, readFileSync(FIXTURE, 'utf8'));
  await measureWriteInvalidation(cachedFile, uncachedFile, dir);
  rmSync(dir, { recursive: true, force: true });
}

async function measureWorkers(file: string, dir: string): Promise<void> {
  const one = await serveWorkers(file, dir, 1);
  try {
    const two = await serveWorkers(file, dir, 2);
    try {
      const runs = await pairs('workers', { one: `${one.url}/books?page=2`, two: `${two.url}/books?page=2` });
      console.log(
        `\nworkers: apidsl serve --data, cache off; ${cpus().length} CPUs shared by the workers and the load generator (one autocannon process)\n`,
      );
      console.log('| measurement | value | ratio |');
      console.log('|---|---:|---|');
      console.log(`| --workers 1: GET /books?page=2 | ${rps(runs.one)} | 1.00× (baseline) |`);
      console.log(`| --workers 2: GET /books?page=2 | ${rps(runs.two)} | ${cell(ratio(runs.two, runs.one))} |`);
    } finally {
      await two.stop();
    }
  } finally {
    await one.stop();
  }
}

async function measureWriteInvalidation(cachedFile: string, uncachedFile: string, dir: string): Promise<void> {
  const body = JSON.stringify({ title: 'Written', author: 'Bench', price: 1 });
  const cached = await serveWorkers(cachedFile, dir, 2);
  try {
    const uncached = await serveWorkers(uncachedFile, dir, 2);
    try {
      // Each write with the cache on sends its tags through the primary to the other worker and waits for it.
      const runs = await pairs('writes', {
        'cache on': { url: `${cached.url}/books`, body },
        'cache off': { url: `${uncached.url}/books`, body },
      });
      console.log(
        `\nwrites with --workers 2 over --data: POST /books, ${LOAD.connections} in flight; with the cache on, each write waits until the other worker dropped its pages\n`,
      );
      console.log('| measurement | value | ratio |');
      console.log('|---|---:|---|');
      console.log(`| cache off | ${rps(runs['cache off'])} | 1.00× (baseline) |`);
      console.log(`| cache on | ${rps(runs['cache on'])} | ${cell(ratio(runs['cache on'], runs['cache off']))} |`);
    } finally {
      await uncached.stop();
    }
  } finally {
    await cached.stop();
  }
}
