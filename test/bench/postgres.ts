/**
 * The PostgreSQL store (part `postgres` of `npm run bench`, issue 42), on test/fixtures/bench/postgres.api served
 * in this process on a fresh database of the test server (APIDSL_TEST_POSTGRES_URL, default 127.0.0.1:5432):
 *
 * - page: `GET /books?page=2` (30 of 10,000 books) against a bare Koa handler that runs the same SQL (recorded from
 *   the store's own request) through the same driver and a pool of the same size, and stringifies the rows; the
 *   SQLite store (`--memory`) serving the same books beside them. autocannon in a child process (load-process.ts),
 *   10 connections, the three loaded in turns, the order rotating each round;
 * - writes: single POSTs (16 in flight) and bulk POSTs of 1,000 (2 in flight) against the bare handler running the
 *   store's INSERT for the same rows (a batch: one transaction), in turns;
 * - scale: 1,000,000 rows (inserted by one SQL statement): the first and a deep cursor page, a filtered page on an
 *   indexed column, a page with `totalItems` against the same page without (partial pagination), each request
 *   alone, the pair's two requests in turns.
 *
 * - in process: page 2 and a single POST injected into the store's app and the bare handler's (in-process.ts), the
 *   CPU time per request of each, in turns.
 *
 * Each figure is a median over the rounds; a ratio is the median of the rounds' ratios. Beside requests per second,
 * CPU per request: this process's CPU time (the servers run in it, the load generator in a child) over the
 * requests answered, which a loaded machine moves less than wall-clock rates. Tables to stdout, progress to stderr.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import Koa from 'koa';
import pg from 'pg';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { loadApi } from '../../server/load-api.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { startService, type RunningService } from '../../server/serve.js';
import { openPostgresStore } from '../../server/store/postgres/store.js';
import type { Storage } from '../../server/storage.js';
import { dropPostgresDatabase, freshPostgresUrl } from '../support/postgres.js';
import { cpuPerRequestInTurns, inject, type Listener } from './in-process.js';
import { load, type LoadRequest } from './load-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/postgres.api', import.meta.url));
const BOOKS = 10_000;
const LARGE = 1_000_000;
const ROUNDS = 5;
const PAGE_LOAD = { connections: 10, duration: 3 };
const SINGLE = { connections: 16, amount: 2_000 };
const BULK = { connections: 2, amount: 10, batch: 1_000 };
const RUNS = 9;
/** Requests per run of the in-process figures (5 runs, in turns). */
const INJECTED = 2_000;

const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const load1 = (): string => loadavg()[0]!.toFixed(1);
const book = (i: number) => ({ title: `Book ${i}`, author: `Author ${i % 1000}`, price: (i % 5_000) / 100 });
const JSONLD = { 'content-type': 'application/ld+json', accept: 'application/ld+json' };

interface Figure {
  /** Requests (or, for writes, rows) per second. */
  rate: number;
  /** This process's CPU µs per request (or row). */
  cpu: number;
}

/** One autocannon run against `request.url`; `perRequest` rows per request for the write figures. */
async function measured(request: LoadRequest, perRequest = 1): Promise<Figure> {
  const before = process.cpuUsage();
  const result = await load({ timeout: 120, ...request });
  if (result.non2xx || result.errors)
    throw new Error(`${request.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpu = process.cpuUsage(before);
  const rows = result.requests * perRequest;
  return {
    rate: request.amount ? rows / result.seconds : result.rps * perRequest,
    cpu: (cpu.user + cpu.system) / rows,
  };
}

interface Sql {
  text: string;
  values: unknown[];
}

/** The statements the store sends through its pool while `run` runs (the driver's pool, watched for a moment). */
async function recordedSql(run: () => Promise<unknown>): Promise<Sql[]> {
  const original = pg.Pool.prototype.query;
  const seen: Sql[] = [];
  pg.Pool.prototype.query = function (this: pg.Pool, config: unknown, ...rest: unknown[]) {
    const { text, values } = (config ?? {}) as Partial<Sql>;
    if (typeof text === 'string') seen.push({ text, values: values ?? [] });
    return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof pg.Pool.prototype.query;
  try {
    await run();
  } finally {
    pg.Pool.prototype.query = original;
  }
  return seen;
}

async function body(req: Koa.Context['req']): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The bare handler: GET runs `page` and stringifies its rows; POST runs `insert` per row (a batch in one
 * transaction) and answers the new ids.
 */
function bareHandler(pool: pg.Pool, page: Sql, insert: Sql): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === 'GET') {
      const { rows } = await pool.query({ text: page.text, values: page.values, rowMode: 'array' });
      ctx.type = 'application/ld+json';
      ctx.body = JSON.stringify(rows);
      return;
    }
    const input = (await body(ctx.req)) as Record<string, unknown> | Record<string, unknown>[];
    const values = (b: Record<string, unknown>): unknown[] => [b.title, b.author, b.price, null];
    const ids: unknown[] = [];
    if (!Array.isArray(input)) {
      ids.push((await pool.query({ text: insert.text, values: values(input), rowMode: 'array' })).rows[0]);
    } else {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const b of input)
          ids.push((await client.query({ text: insert.text, values: values(b), rowMode: 'array' })).rows[0]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    }
    ctx.status = 201;
    ctx.type = 'application/ld+json';
    ctx.body = JSON.stringify(ids);
  });
  return app;
}

const serve = (storage: Storage): Promise<RunningService> =>
  startService({ file: FIXTURE, port: 0, host: '127.0.0.1', storage, logger: pino({ level: 'silent' }) });

async function seed(url: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, count - from) }, (_, i) => book(from + i));
    const res = await fetch(`${url}/books`, { method: 'POST', headers: JSONLD, body: JSON.stringify(batch) });
    if (res.status !== 201) throw new Error(`seeding ${url}: ${res.status} ${await res.text()}`);
  }
}

async function listen(app: Koa): Promise<{ url: string; server: Server }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, server };
}

/** Runs each side once per round, the order rotating; each side's figures in the order of the rounds. */
async function inTurns(
  sides: Record<string, () => Promise<Figure>>,
  rounds: number,
): Promise<Record<string, Figure[]>> {
  const names = Object.keys(sides);
  const figures: Record<string, Figure[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      figures[name]!.push(await sides[name]!());
    }
    progress(
      `  round ${round + 1}: ${names.map((n) => `${n} ${Math.round(figures[n]!.at(-1)!.rate)}/s ${Math.round(figures[n]!.at(-1)!.cpu)} µs`).join(', ')} (load ${load1()})`,
    );
  }
  return figures;
}

const ratio = (a: Figure[], b: Figure[], of: (f: Figure) => number): number =>
  median(a.map((f, i) => of(f) / of(b[i]!)));
const row = (label: string, f: Figure[], unit: string): string =>
  `| ${label} | ${Math.round(median(f.map((x) => x.rate))).toLocaleString('en-US')} ${unit}/s | ${median(f.map((x) => x.cpu)).toFixed(0)} µs |`;

/** Page 2 of 10,000 books, single and bulk POSTs: the store against the bare handler (and SQLite's page). */
async function againstBare(): Promise<void> {
  const database = await freshPostgresUrl('bench');
  const [apidsl, sqlite] = [await serve({ kind: 'postgres', url: database }), await serve({ kind: 'memory' })];
  const pool = new pg.Pool({ connectionString: database, max: 10 });
  try {
    progress(`seeding ${BOOKS} books on PostgreSQL and SQLite (load ${load1()})`);
    await seed(apidsl.url, BOOKS);
    await seed(sqlite.url, BOOKS);
    const [page] = await recordedSql(() => fetch(`${apidsl.url}/books?page=2`).then((r) => r.text()));
    const [insert] = await recordedSql(() =>
      fetch(`${apidsl.url}/books`, { method: 'POST', headers: JSONLD, body: JSON.stringify(book(0)) }),
    );
    if (!page || !insert) throw new Error('the store sent no SQL through its pool');
    const bare = await listen(bareHandler(pool, page, insert));
    try {
      const get = (url: string) => () => measured({ url: `${url}/books?page=2`, ...PAGE_LOAD, headers: JSONLD });
      const sides = { apidsl: get(apidsl.url), bare: get(bare.url), sqlite: get(sqlite.url) };
      for (const side of Object.values(sides)) await side(); // warm-up: the JIT, the pool, the caches
      progress(`page 2 of ${BOOKS} books, ${ROUNDS} rounds`);
      const pages = await inTurns(sides, ROUNDS);
      const writes = await writesAgainstBare(apidsl.url, bare.url);
      report(page.text, insert.text, pages, writes);
    } finally {
      bare.server.close();
    }
  } finally {
    await pool.end();
    await apidsl.close();
    await sqlite.close();
    await dropPostgresDatabase(database);
  }
}

async function writesAgainstBare(apidsl: string, bare: string): Promise<Record<string, Figure[]>> {
  const single = (url: string) => () =>
    measured({
      url: `${url}/books`,
      method: 'POST',
      body: JSON.stringify(book(1)),
      headers: JSONLD,
      duration: 0,
      ...SINGLE,
    });
  const batch = JSON.stringify(Array.from({ length: BULK.batch }, (_, i) => book(i)));
  const bulk = (url: string) => () =>
    measured(
      {
        url: `${url}/books`,
        method: 'POST',
        body: batch,
        headers: JSONLD,
        duration: 0,
        connections: BULK.connections,
        amount: BULK.amount,
      },
      BULK.batch,
    );
  progress(
    `single POSTs (${SINGLE.amount}, ${SINGLE.connections} in flight) and bulk POSTs (${BULK.amount} of ${BULK.batch}), 3 rounds`,
  );
  await single(apidsl)();
  await single(bare)();
  const singles = await inTurns({ apidsl: single(apidsl), bare: single(bare) }, 3);
  const bulks = await inTurns({ apidsl: bulk(apidsl), bare: bulk(bare) }, 3);
  return { single: singles.apidsl!, singleBare: singles.bare!, bulk: bulks.apidsl!, bulkBare: bulks.bare! };
}

function report(page: string, insert: string, pages: Record<string, Figure[]>, writes: Record<string, Figure[]>): void {
  console.log(
    `\nPostgreSQL store: ${cpus().length} CPUs shared with the load generator and other work (load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}), node ${process.version}`,
  );
  console.log(`page SQL: ${page}\ninsert SQL: ${insert}\n`);
  console.log(
    `| GET /books?page=2 (30 of ${BOOKS.toLocaleString('en-US')}) | requests/s | CPU per request |\n|---|---:|---:|`,
  );
  console.log(row('apidsl, PostgreSQL', pages.apidsl!, 'req'));
  console.log(row('bare Koa + pg, same SQL', pages.bare!, 'req'));
  console.log(row('apidsl, SQLite (--memory)', pages.sqlite!, 'req'));
  const rps = ratio(pages.apidsl!, pages.bare!, (f) => f.rate);
  const cpu = ratio(pages.bare!, pages.apidsl!, (f) => f.cpu);
  console.log(
    `\napidsl / bare (target >= 0.75x): ${rps.toFixed(2)}x requests/s, ${cpu.toFixed(2)}x by CPU per request (bare's CPU / apidsl's)\n`,
  );
  console.log('| writes | rows/s | CPU per row |\n|---|---:|---:|');
  console.log(row(`apidsl, single POSTs (${SINGLE.connections} in flight)`, writes.single!, 'row'));
  console.log(row('bare, single INSERTs', writes.singleBare!, 'row'));
  console.log(row(`apidsl, bulk POSTs of ${BULK.batch} (${BULK.connections} in flight)`, writes.bulk!, 'row'));
  console.log(row('bare, the same INSERTs in one transaction', writes.bulkBare!, 'row'));
  const w = (a: string, b: string): string =>
    `${ratio(writes[a]!, writes[b]!, (f) => f.rate).toFixed(2)}x rows/s, ${ratio(writes[b]!, writes[a]!, (f) => f.cpu).toFixed(2)}x by CPU`;
  console.log(`\napidsl / bare: single ${w('single', 'singleBare')}; bulk ${w('bulk', 'bulkBare')}\n`);
}

/** Median milliseconds of each request, the requests of a pair in turns; and the median of the pairs' ratios. */
async function timedPair(base: string, a: string, b: string): Promise<{ a: number; b: number; ratio: number }> {
  const once = async (path: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers: JSONLD });
    await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 2; i++) await Promise.all([once(a), once(b)].map((p) => p));
  const times = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    const [first, second] = i % 2 ? ([b, a] as const) : ([a, b] as const);
    const t1 = await once(first);
    const t2 = await once(second);
    times.a.push(i % 2 ? t2 : t1);
    times.b.push(i % 2 ? t1 : t2);
  }
  return { a: median(times.a), b: median(times.b), ratio: median(times.b.map((t, i) => t / times.a[i]!)) };
}

/** 1,000,000 rows: cursor pages first and deep, a filtered page, what totalItems costs. */
async function atScale(): Promise<void> {
  const database = await freshPostgresUrl('bench');
  const service = await serve({ kind: 'postgres', url: database });
  const db = new pg.Client({ connectionString: database });
  await db.connect();
  try {
    progress(`inserting ${LARGE.toLocaleString('en-US')} rows (load ${load1()})`);
    await db.query(
      `INSERT INTO book (title, author, price) SELECT 'Book ' || i, 'Author ' || (i % 1000), (i % 5000) / 100.0 FROM generate_series(1, ${LARGE}) AS i`,
    );
    await db.query('VACUUM ANALYZE book');
    const deep = Math.round(LARGE * 0.9);
    const pairs: [string, string, string][] = [
      ['cursor: first page / a page 900,000 rows deep', '/cursor-books', `/cursor-books?id[gt]=${deep}`],
      ['offset with totalItems: page 2 / page 30,001 (900,000 deep)', '/books?page=2', '/books?page=30001'],
      ['page 2: partial (no totalItems) / with totalItems', '/partial-books?page=2', '/books?page=2'],
      [
        'filtered on an indexed column (1,000 of 1,000,000): partial / with totalItems',
        '/partial-books?author=Author%20500',
        '/books?author=Author%20500',
      ],
    ];
    console.log(
      `\n${LARGE.toLocaleString('en-US')} rows, each request alone, median of ${RUNS} (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})\n`,
    );
    console.log('| requests (a / b) | a | b | b / a |\n|---|---:|---:|---:|');
    for (const [label, a, b] of pairs) {
      progress(`  ${label} (load ${load1()})`);
      const t = await timedPair(service.url, a, b);
      console.log(
        `| ${label}: \`${a}\` / \`${b}\` | ${t.a.toFixed(1)} ms | ${t.b.toFixed(1)} ms | ${t.ratio.toFixed(2)}x |`,
      );
    }
  } finally {
    await db.end();
    await service.close();
    await dropPostgresDatabase(database);
  }
}

/**
 * Page 2 and a single POST in process (in-process.ts: each request injected into the app, one at a time, the
 * CPU time of this process per request), the store's app against the bare handler, in turns: no load generator
 * shares the CPU, so the figure moves less with the machine's load than the rates do.
 */
async function inProcessAgainstBare(): Promise<void> {
  const database = await freshPostgresUrl('bench');
  const store = await openPostgresStore({ url: database });
  const runtime = await startRuntime(await loadApi(FIXTURE), store, { logger: pino({ level: 'silent' }) });
  const apidsl: Listener = (await createApp(runtime, undefined)).callback();
  const pool = new pg.Pool({ connectionString: database, max: 10 });
  try {
    for (let from = 0; from < BOOKS; from += 1_000) {
      const batch = Array.from({ length: 1_000 }, (_, i) => book(from + i));
      await inject(apidsl, { url: '/books', method: 'POST', headers: JSONLD, body: JSON.stringify(batch) });
    }
    const post = { url: '/books', method: 'POST' as const, headers: JSONLD, body: JSON.stringify(book(1)) };
    const [page] = await recordedSql(() => inject(apidsl, '/books?page=2'));
    const [insert] = await recordedSql(() => inject(apidsl, post));
    if (!page || !insert) throw new Error('the store sent no SQL through its pool');
    const bare = bareHandler(pool, page, insert).callback();
    // One listener for both, told apart by a path prefix, for cpuPerRequestInTurns.
    const both: Listener = (req, res) => {
      if (!req.url!.startsWith('/bare/')) return apidsl(req, res);
      req.url = req.url!.slice('/bare'.length);
      return bare(req, res);
    };
    progress(`in process: page 2 and single POSTs, ${INJECTED} requests a run (load ${load1()})`);
    const [get, bareGet] = await cpuPerRequestInTurns(both, ['/books?page=2', '/bare/books?page=2'], INJECTED);
    const [single, bareSingle] = await cpuPerRequestInTurns(both, [post, { ...post, url: '/bare/books' }], INJECTED);
    console.log(`\nIn process, CPU per request (median of 5 runs in turns; load average ${load1()})\n`);
    console.log('| | apidsl | bare | bare / apidsl |\n|---|---:|---:|---:|');
    for (const [label, a, b] of [
      ['GET /books?page=2', get!, bareGet!],
      ['single POST', single!, bareSingle!],
    ] as const)
      console.log(`| ${label} | ${a.toFixed(0)} µs | ${b.toFixed(0)} µs | ${(b / a).toFixed(2)}x |`);
  } finally {
    await pool.end();
    await runtime.bus.close();
    await store.close();
    await dropPostgresDatabase(database);
  }
}

export async function runPostgresBench(): Promise<void> {
  await inProcessAgainstBare();
  await againstBare();
  await atScale();
}
