/**
 * Pagination and throughput benchmarks (part of `npm run bench`, after the front-end table), on
 * test/fixtures/bench/pagination.api, every server started here on 127.0.0.1:
 *
 * - depth: the first page against a page 900,000 items deep in a 1,000,000-item collection, by offset
 *   (`?page=30001`) and by cursor (`?id[gt]=900000`);
 * - totals: `totalItems` alone (`?itemsPerPage=0`) on 10,000 against 1,000,000 items;
 * - throughput: `GET /books?page=2` (30 of 10,000 books) under autocannon, against three peers serving
 *   page 2 of the same books in the same process: Feathers with an in-memory service (`$limit=30&$skip=30`,
 *   paginate on), a Koa handler doing equal work (slice, map each book to its JSON-LD member, stringify the
 *   document apidsl answers), and Koa sending a precomputed body (the stack's ceiling). Each round loads the
 *   four in turn (the order rotates from round to round); a ratio is the median over the rounds of apidsl's
 *   req/s over the peer's in that round, its two runs seconds apart, so that a slow spell of a shared machine
 *   weighs on both sides. Beside req/s, each server's CPU per request: the bench process's CPU time
 *   (process.cpuUsage, user + system; the servers run in it and nothing else does during a run) over the
 *   requests answered. The load runs in a child process (load-process.ts). Then the same page without the
 *   network (in-process.ts): apidsl's app and a bare Koa app answering apidsl's text, each handed 20,000
 *   requests five times in the process, CPU µs per request (median): apidsl's own cost, steady to a microsecond.
 *
 * Every ratio is between two measurements of the same run. Progress goes to stderr, tables to stdout.
 */
import { fork } from 'node:child_process';
import { Agent, request as httpRequest, type Server } from 'node:http';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { feathers } from '@feathersjs/feathers';
import { koa as feathersKoa, rest as feathersRest } from '@feathersjs/koa';
import { MemoryService } from '@feathersjs/memory';
import Koa from 'koa';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { aloneLink } from '../../server/cluster/link.js';
import { httpCaching } from '../../server/caching/invalidation.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { loadApi } from '../../server/load-api.js';
import { startService, type RunningService } from '../../server/serve.js';
import type { ApiMetadata } from '../../server/metadata/types.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Collection, Item, Store } from '../../server/store/types.js';
import { cpuPerRequest, inject } from './in-process.js';
import type { LoadRequest, LoadResult } from './load-process.js';
import { measureStreamMemory } from './memory.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/pagination.api', import.meta.url));
const DEEP_ITEMS = 1_000_000;
const SMALL_ITEMS = 10_000;
const BOOKS = 10_000;
const PAGE = 30;
const DEPTH = 900_000;
/** Timed runs of each single request (after warm-up); the median is reported. */
const HTTP_RUNS = 9;
const HTTP_WARMUP = 2;
/** autocannon: connections, seconds per run, rounds (each loads apidsl and its peers in turn), warm-up seconds (the JIT needs them). */
const LOAD = { connections: 10, duration: 3, runs: 9, warmup: 5 };

const logger = pino({ level: 'silent' });
const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

// ---------------------------------------------------------------------------------------------
// Seeding

type InsertMany = (items: Item[]) => Promise<unknown>;

/** Inserts `count` items made by `make(i)` (i from 1), through a bulk API when the store has one. */
async function seed(
  collection: Collection,
  count: number,
  make: (i: number) => Item,
  label: string,
): Promise<{ ms: number; bulk: boolean }> {
  const insertMany = (collection as Collection & { insertMany?: InsertMany }).insertMany;
  const bulk = typeof insertMany === 'function';
  const step = Math.max(1, Math.floor(count / 10));
  const t0 = performance.now();
  if (bulk) {
    const chunk = 10_000;
    for (let start = 1; start <= count; start += chunk) {
      const items: Item[] = [];
      for (let i = start; i < start + chunk && i <= count; i++) items.push(make(i));
      await insertMany.call(collection, items);
      const done = Math.min(count, start + chunk - 1);
      if (done % step === 0 && done < count) progress(`  ${label}: ${done.toLocaleString('en-US')} inserted`);
    }
  } else {
    for (let i = 1; i <= count; i++) {
      await collection.insert(make(i));
      if (i % step === 0 && i < count) progress(`  ${label}: ${i.toLocaleString('en-US')} inserted`);
    }
  }
  const ms = performance.now() - t0;
  const stored = await collection.count();
  if (stored !== count) throw new Error(`${label}: expected ${count} stored, found ${stored}`);
  return { ms, bulk };
}

const EPOCH = Date.UTC(2024, 0, 1);
/** An Item as the service would store it (datetimes in the normalised UTC form). */
const makeItem = (i: number): Item => ({
  id: i,
  name: `Item ${i}`,
  price: (i % 10_000) / 100,
  createdAt: `${new Date(EPOCH + i * 60_000).toISOString().slice(0, 19)}+00:00`,
});
const makeBook = (i: number): Item => ({
  id: i,
  title: `Book ${i}`,
  author: `Author ${i % 97}`,
  price: (i % 5_000) / 100,
});

async function collectionOf(store: Store, api: ApiMetadata, name: string): Promise<Collection> {
  const resource = api.resources.find((r) => r.storage.name === name);
  if (!resource) throw new Error(`the fixture has no ${name} resource`);
  return store.collection(storageSpec(resource));
}

// ---------------------------------------------------------------------------------------------
// Single requests, timed end to end (request sent → whole body received) on a keep-alive socket

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Response {
  status: number;
  body: string;
}

function get(url: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { accept: 'application/ld+json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request whose answer is checked once before timing, so a ratio never compares an error page. */
interface Probe {
  name: string;
  url: string;
  check: (doc: Record<string, unknown>) => void;
}

const membersOf = (doc: Record<string, unknown>): Item[] => (doc.member ?? doc['hydra:member']) as Item[];
const totalOf = (doc: Record<string, unknown>): unknown => doc.totalItems ?? doc['hydra:totalItems'];

function expectPage(firstId: number, total?: number | 'absent'): (doc: Record<string, unknown>) => void {
  return (doc) => {
    const members = membersOf(doc);
    if (!Array.isArray(members) || members.length !== PAGE)
      throw new Error(`expected ${PAGE} members, got ${JSON.stringify(members?.length)}`);
    if (members[0].id !== firstId)
      throw new Error(`expected the page to start at id ${firstId}, got ${JSON.stringify(members[0].id)}`);
    if (total === 'absent' && totalOf(doc) !== undefined)
      throw new Error(`expected no totalItems, got ${JSON.stringify(totalOf(doc))}`);
    if (typeof total === 'number' && totalOf(doc) !== total)
      throw new Error(`expected totalItems ${total}, got ${JSON.stringify(totalOf(doc))}`);
  };
}

function expectCount(total: number): (doc: Record<string, unknown>) => void {
  return (doc) => {
    const members = membersOf(doc);
    if (!Array.isArray(members) || members.length !== 0)
      throw new Error(`expected no members, got ${JSON.stringify(members?.length)}`);
    if (totalOf(doc) !== total) throw new Error(`expected totalItems ${total}, got ${JSON.stringify(totalOf(doc))}`);
  };
}

async function verify(probe: Probe): Promise<void> {
  const res = await get(probe.url);
  if (res.status !== 200)
    throw new Error(`${probe.name}: GET ${probe.url} answered ${res.status}: ${res.body.slice(0, 500)}`);
  try {
    probe.check(JSON.parse(res.body) as Record<string, unknown>);
  } catch (error) {
    throw new Error(`${probe.name}: GET ${probe.url}: ${(error as Error).message}`);
  }
}

/**
 * Median milliseconds of each probe; the probes are timed in turn within every run, so drift (GC,
 * thermal, other load) spreads over all of them rather than biasing one side of a ratio.
 */
async function timeProbes(probes: Probe[]): Promise<Map<string, number>> {
  for (const p of probes) await verify(p);
  const times = new Map<string, number[]>(probes.map((p) => [p.name, []]));
  for (let run = 0; run < HTTP_WARMUP + HTTP_RUNS; run++) {
    for (const p of probes) {
      const t0 = performance.now();
      const res = await get(p.url);
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${p.name}: GET ${p.url} answered ${res.status}`);
      if (run >= HTTP_WARMUP) times.get(p.name)!.push(ms);
    }
  }
  return new Map([...times].map(([name, list]) => [name, median(list)]));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// ---------------------------------------------------------------------------------------------
// Load (autocannon in a child process, see load-process.ts)

function load(url: string, duration: number): Promise<LoadResult> {
  const request: LoadRequest = { url, connections: LOAD.connections, duration };
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL('./load-process.js', import.meta.url));
    const child = fork(script, [JSON.stringify(request)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: LoadResult | undefined;
    child.once('message', (message) => {
      result = message as LoadResult;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result && code === 0 ? resolve(result) : reject(new Error(`the load process exited with ${code} and no result`)),
    );
  });
}

/** A server of the throughput table: its URL, and how to stop it. */
interface Peer {
  url: string;
  close(): Promise<void>;
}

async function listening(server: Server): Promise<Peer> {
  if (!server.listening)
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** A Koa app (same koa package as apidsl, no routing, no store) answering every request with `handle`. */
function startKoa(handle: (ctx: Koa.Context) => void): Promise<Peer> {
  const app = new Koa();
  app.use(handle);
  return listening(app.listen(0, '127.0.0.1'));
}

/** The document apidsl answers for page 2, built per request from the books: slice, map, stringify. */
function equalWorkPage(books: Item[]): string {
  const last = Math.ceil(books.length / PAGE);
  return JSON.stringify({
    '@context': '/contexts/Book',
    '@id': '/books',
    '@type': 'Collection',
    totalItems: books.length,
    member: books
      .slice(PAGE, 2 * PAGE)
      .map((book) => ({ '@id': `/books/${String(book.id)}`, '@type': 'Book', ...book })),
    view: {
      '@id': '/books?page=2',
      '@type': 'PartialCollectionView',
      first: '/books?page=1',
      last: `/books?page=${last}`,
      previous: '/books?page=1',
      next: '/books?page=3',
    },
  });
}

/** Feathers on Koa with an in-memory service holding the books, paginated (30 by default). */
async function startFeathers(books: Item[]): Promise<Peer> {
  const store: Record<string, Item> = {};
  for (const book of books) store[String(book.id)] = book;
  const app = feathersKoa(feathers());
  app.configure(feathersRest());
  app.use('books', new MemoryService({ id: 'id', store, paginate: { default: PAGE, max: 100 } }));
  return listening(await app.listen(0));
}

// ---------------------------------------------------------------------------------------------
// Tables

const ms = (v: number): string => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;
const ratio = (v: number): string => `${v < 10 ? v.toFixed(2) : v.toFixed(1)}×`;
const num = (v: number): string => Math.round(v).toLocaleString('en-US');

function barCell(value: number, bar: { op: '≤' | '≥'; limit: number }): string {
  const met = bar.op === '≤' ? value <= bar.limit : value >= bar.limit;
  return `${ratio(value)} (bar ${bar.op} ${bar.limit}×: ${met ? 'met' : 'MISSED'})`;
}

function table(title: string, rows: [string, string, string][]): void {
  console.log(`\n${title}\n`);
  console.log('| measurement | value | ratio |');
  console.log('|---|---:|---|');
  for (const [m, v, r] of rows) console.log(`| ${m} | ${v} | ${r} |`);
}

// ---------------------------------------------------------------------------------------------

/** Parts of this benchmark: `large` (depth, memory and totals on 1,000,000 items) and `throughput`. */
export type PaginationPart = 'large' | 'throughput';

export async function runPaginationBench(
  parts: ReadonlySet<PaginationPart> = new Set(['large', 'throughput']),
): Promise<void> {
  const started = performance.now();
  const api = await loadApi(FIXTURE);
  const services: RunningService[] = [];
  try {
    // The 10,000-item store also holds the books of the throughput test.
    progress(`seeding ${num(SMALL_ITEMS)} items and ${num(BOOKS)} books`);
    const small = await openSqliteStore({ memory: true });
    const smallSeed = await seed(await collectionOf(small, api, 'Item'), SMALL_ITEMS, makeItem, 'small items');
    await seed(await collectionOf(small, api, 'Book'), BOOKS, makeBook, 'books');
    const smallService = await startService({
      file: FIXTURE,
      port: 0,
      host: '127.0.0.1',
      storage: { kind: 'memory' },
      logger,
      store: small,
    });
    services.push(smallService);

    console.log(`\npagination and throughput on ${cpus().length} CPUs, node ${process.version}, servers on 127.0.0.1`);
    if (parts.has('large')) {
      progress(`seeding ${num(DEEP_ITEMS)} items`);
      const big = await openSqliteStore({ memory: true });
      const bigSeed = await seed(await collectionOf(big, api, 'Item'), DEEP_ITEMS, makeItem, 'items');
      progress(
        `seeded ${num(DEEP_ITEMS)} items in ${(bigSeed.ms / 1000).toFixed(1)} s (${bigSeed.bulk ? 'insertMany' : 'one insert at a time'})`,
      );
      const bigService = await startService({
        file: FIXTURE,
        port: 0,
        host: '127.0.0.1',
        storage: { kind: 'memory' },
        logger,
        store: big,
      });
      services.push(bigService);

      console.log(
        `single requests: median of ${HTTP_RUNS} runs after ${HTTP_WARMUP} warm-up runs, each on a keep-alive connection`,
      );
      console.log(
        `seeding (memory store, ${bigSeed.bulk ? 'insertMany in chunks of 10,000' : 'one insert at a time'}): ` +
          `${num(DEEP_ITEMS)} items in ${(bigSeed.ms / 1000).toFixed(1)} s (${num(DEEP_ITEMS / (bigSeed.ms / 1000))} items/s); ` +
          `${num(SMALL_ITEMS)} items in ${smallSeed.ms.toFixed(0)} ms`,
      );

      // a. Depth
      progress(`depth: first page against page ${DEPTH / PAGE + 1} (offset) and id[gt]=${DEPTH} (cursor)`);
      const big$ = bigService.url;
      const depth = await timeProbes([
        { name: 'offset first', url: `${big$}/items?itemsPerPage=${PAGE}`, check: expectPage(1, DEEP_ITEMS) },
        {
          name: 'offset deep',
          url: `${big$}/items?itemsPerPage=${PAGE}&page=${DEPTH / PAGE + 1}`,
          check: expectPage(DEPTH + 1, DEEP_ITEMS),
        },
        { name: 'cursor first', url: `${big$}/items-by-cursor?itemsPerPage=${PAGE}`, check: expectPage(1, 'absent') },
        {
          name: 'cursor deep',
          url: `${big$}/items-by-cursor?itemsPerPage=${PAGE}&id[gt]=${DEPTH}`,
          check: expectPage(DEPTH + 1, 'absent'),
        },
      ]);
      const d = (name: string): number => depth.get(name)!;
      table(
        `depth: ${num(DEEP_ITEMS)} items, ${PAGE} per page, page at depth ${num(DEPTH)} against the first (ratio = deep / first)`,
        [
          [`offset, first page: GET /items?itemsPerPage=${PAGE}`, ms(d('offset first')), '1.00× (baseline)'],
          [
            `offset, deep page: GET /items?itemsPerPage=${PAGE}&page=${DEPTH / PAGE + 1}`,
            ms(d('offset deep')),
            `${ratio(d('offset deep') / d('offset first'))} (no bar)`,
          ],
          [`cursor, first page: GET /items-by-cursor?itemsPerPage=${PAGE}`, ms(d('cursor first')), '1.00× (baseline)'],
          [
            `cursor, deep page: GET /items-by-cursor?itemsPerPage=${PAGE}&id[gt]=${DEPTH}`,
            ms(d('cursor deep')),
            barCell(d('cursor deep') / d('cursor first'), { op: '≤', limit: 1.5 }),
          ],
        ],
      );

      // Memory: the whole 1,000,000-item collection in one document, streamed.
      progress(`memory: GET /items?pagination=false on ${num(DEEP_ITEMS)} items`);
      const memory = await measureStreamMemory(`${big$}/items?pagination=false`);
      table(
        `memory: the whole collection in one response (?pagination=false), ${num(DEEP_ITEMS)} items, server RSS sampled every 10 ms`,
        [
          ['resident set before the request', `${memory.baselineMb.toFixed(0)} MB`, '1.00× (baseline)'],
          [
            `peak during the response (${memory.documentMb.toFixed(0)} MB of JSON-LD in ${memory.seconds.toFixed(1)} s)`,
            `${memory.peakMb.toFixed(0)} MB`,
            `${(memory.peakMb / memory.baselineMb).toFixed(2)}× (growth ${(memory.peakMb - memory.baselineMb).toFixed(0)} MB for a ${memory.documentMb.toFixed(0)} MB document)`,
          ],
        ],
      );

      // b. Totals
      progress(`totals: itemsPerPage=0 on ${num(SMALL_ITEMS)} and ${num(DEEP_ITEMS)} items`);
      const totals = await timeProbes([
        { name: 'small', url: `${smallService.url}/items?itemsPerPage=0`, check: expectCount(SMALL_ITEMS) },
        { name: 'big', url: `${big$}/items?itemsPerPage=0`, check: expectCount(DEEP_ITEMS) },
      ]);
      const t = (name: string): number => totals.get(name)!;
      table('totals: totalItems of an unfiltered collection, GET /items?itemsPerPage=0 (ratio = 1M / 10k)', [
        [`${num(SMALL_ITEMS)} items`, ms(t('small')), '1.00× (baseline)'],
        [`${num(DEEP_ITEMS)} items`, ms(t('big')), barCell(t('big') / t('small'), { op: '≤', limit: 2 })],
      ]);

      // The big store is done with; free it before the load test.
      await bigService.close();
      services.splice(services.indexOf(bigService), 1);
    }

    if (parts.has('throughput')) {
      await runThroughput(`${smallService.url}/books?page=2`);
      await runInProcess(api, small);
    }
  } finally {
    agent.destroy();
    for (const s of services) await s.close();
  }
  progress(`pagination and throughput benchmarks took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// ---------------------------------------------------------------------------------------------
// Throughput: apidsl and its peers, loaded in turn round after round

type Contender = 'apidsl' | 'feathers' | 'equal' | 'ceiling';

interface Run extends LoadResult {
  /** Microseconds of this process's CPU (user + system) per request answered. */
  cpuPerRequest: number;
}

/** One load of `url`, with the CPU the servers of this process spent on it. */
async function measuredLoad(name: Contender, url: string, duration: number): Promise<Run> {
  const before = process.cpuUsage();
  const result = await load(url, duration);
  const cpu = process.cpuUsage(before);
  if (result.non2xx || result.errors)
    throw new Error(`throughput ${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { ...result, cpuPerRequest: (cpu.user + cpu.system) / result.requests };
}

async function runThroughput(booksUrl: string): Promise<void> {
  await verify({ name: 'books page 2', url: booksUrl, check: expectPage(PAGE + 1, BOOKS) });
  const books = Array.from({ length: BOOKS }, (_, i) => makeBook(i + 1));
  const precomputed = equalWorkPage(books);
  const peers: Peer[] = [];
  try {
    const feathersPeer = await startFeathers(books);
    peers.push(feathersPeer);
    const equal = await startKoa((ctx) => {
      ctx.type = 'application/ld+json; charset=utf-8';
      ctx.body = equalWorkPage(books);
    });
    peers.push(equal);
    const ceiling = await startKoa((ctx) => {
      ctx.type = 'application/ld+json; charset=utf-8';
      ctx.body = precomputed;
    });
    peers.push(ceiling);
    const urls: Record<Contender, string> = {
      apidsl: booksUrl,
      feathers: `${feathersPeer.url}/books?$limit=${PAGE}&$skip=${PAGE}`,
      equal: equal.url,
      ceiling: ceiling.url,
    };
    // Same page everywhere; the equal-work handler's body byte for byte apidsl's.
    const feathersPage = JSON.parse((await get(urls.feathers)).body) as { data: Item[]; total: number };
    if (feathersPage.data.length !== PAGE || feathersPage.data[0].id !== PAGE + 1 || feathersPage.total !== BOOKS)
      throw new Error(`Feathers: not page 2 of ${BOOKS} books: ${JSON.stringify(feathersPage).slice(0, 300)}`);
    if ((await get(booksUrl)).body !== precomputed)
      throw new Error('the equal-work handler does not answer the document apidsl answers');

    const names: Contender[] = ['apidsl', 'feathers', 'equal', 'ceiling'];
    const runs = Object.fromEntries(names.map((n) => [n, [] as Run[]])) as Record<Contender, Run[]>;
    progress(
      `throughput: ${LOAD.warmup} s warm-up each, then ${LOAD.runs} rounds of ${LOAD.duration} s runs of apidsl, ` +
        `Feathers, equal-work Koa and precomputed Koa (order rotating), ${LOAD.connections} connections`,
    );
    for (const name of names) await load(urls[name], LOAD.warmup);
    for (let round = 0; round < LOAD.runs; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) runs[name].push(await measuredLoad(name, urls[name], LOAD.duration));
      const shown = names.map((n) => `${n} ${num(runs[n][round].rps)} (${runs[n][round].cpuPerRequest.toFixed(0)} µs)`);
      progress(`  round ${round + 1}: ${shown.join(', ')} req/s (CPU per request)`);
    }
    const rps = (name: Contender): number => median(runs[name].map((r) => r.rps));
    const cpu = (name: Contender): number => median(runs[name].map((r) => r.cpuPerRequest));
    // apidsl over a peer, round by round: the two runs of a round are seconds apart.
    const against = (peer: Contender): number => median(runs.apidsl.map((r, i) => r.rps / runs[peer][i].rps));
    const rows: [string, Contender, string][] = [
      [`apidsl: GET /books?page=2, ${num(BOOKS)} books`, 'apidsl', '1.00×'],
      [
        `Feathers on Koa, in-memory service, $limit=${PAGE}&$skip=${PAGE}, paginate on`,
        'feathers',
        barCell(against('feathers'), { op: '≥', limit: 1.5 }),
      ],
      [
        'Koa handler doing equal work: slice, map to JSON-LD members, stringify',
        'equal',
        barCell(against('equal'), { op: '≥', limit: 0.75 }),
      ],
      ['Koa sending a precomputed body (the ceiling)', 'ceiling', `${ratio(against('ceiling'))} (no bar)`],
    ];
    console.log(
      `\nthroughput: page 2 of ${num(BOOKS)} books (${PAGE} items), ${LOAD.connections} connections, ${LOAD.runs} rounds of ` +
        `${LOAD.duration} s runs after a ${LOAD.warmup} s warm-up each, load generated in a child process ` +
        `(req/s and CPU: medians of the rounds; apidsl / server: median of the rounds' ratios)\n`,
    );
    console.log('| server | req/s | CPU µs / request | apidsl / server |');
    console.log('|---|---:|---:|---|');
    for (const [label, name, cell] of rows)
      console.log(`| ${label} | ${num(rps(name))} | ${cpu(name).toFixed(0)} | ${cell} |`);
  } finally {
    for (const peer of peers) await peer.close();
  }
}

/** apidsl's app and a bare Koa app answering the same text, without the network (in-process.ts). */
async function runInProcess(api: ApiMetadata, store: Store): Promise<void> {
  const url = '/books?page=2';
  const runtime = await startRuntime(api, store, { logger });
  const app = (await createApp(runtime, httpCaching(api, logger, aloneLink()).cache)).callback();
  const answer = await inject(app, url);
  if (answer.status !== 200) throw new Error(`in-process: GET ${url} answered ${answer.status}`);
  expectPage(PAGE + 1, BOOKS)(JSON.parse(answer.body) as Record<string, unknown>);
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.type = 'application/ld+json; charset=utf-8';
    ctx.body = answer.body;
  });
  progress('in-process: 5 runs of 20,000 requests each, apidsl then bare Koa');
  const apidsl = await cpuPerRequest(app, url);
  const ceiling = await cpuPerRequest(bare.callback(), url);
  console.log(
    `\nin-process, no network: GET ${url} handed to the app's callback on an unconnected socket ` +
      `(CPU µs per request, median of 5 runs of 20,000)\n`,
  );
  console.log('| app | CPU µs / request |');
  console.log('|---|---:|');
  console.log(`| apidsl | ${apidsl.toFixed(1)} |`);
  console.log(`| bare Koa sending apidsl's text | ${ceiling.toFixed(1)} |`);
}
