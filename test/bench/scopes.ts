/**
 * The cost of row-level scopes (part `scopes` of `npm run bench`), on test/fixtures/bench/scopes.api: page 2 of a
 * scoped collection (the item's own owner; the owner of the item's shop, one relation away) against the same page
 * of the unscoped one, same process, store and Bearer JWT. Half the notes (and half the shops) belong to the
 * caller, so each scoped page is a full page of 30 of theirs. Beside them, the unscoped page filtered to the same
 * notes (`?owner=bench`, `?shop.owner=bench`): a scoped page's cost against it is what the scope adds to the query
 * the database runs anyway for such a page. Measured twice, kinds in turns (unscoped, own, relation, the two
 * filtered, then again), cost as the median of the rounds' ratios (as security.ts does):
 *
 * - in process (in-process.ts): the server's CPU time per request and the time a request takes, one at a time
 *   (runs of a few seconds, as many requests as fit);
 * - over HTTP: throughput under autocannon in a child process, and the server's CPU time per request answered.
 *
 * The store is SQLite in memory, or the test servers' with `APIDSL_BENCH_STORE=mongodb` (FerretDB or mongod, as
 * the tests find it) or `APIDSL_BENCH_STORE=postgres` (APIDSL_TEST_POSTGRES_URL): there the database's own CPU is
 * not the server's, so the time per request is the in-process figure that holds it. `APIDSL_BENCH_NOTES` sets the
 * number of notes (10,000).
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { loadApi } from '../../server/load-api.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { openMongoStore } from '../../server/store/mongodb/store.js';
import { openPostgresStore } from '../../server/store/postgres/store.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item, Store } from '../../server/store/types.js';
import { freshDatabaseUri, testMongo } from '../support/mongodb.js';
import { dropPostgresDatabase, freshPostgresUrl } from '../support/postgres.js';
import { inject, type Injected, type Listener } from './in-process.js';
import { benchService, benchToken, load, median, type Run } from './security.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/scopes.api', import.meta.url));
/** FerretDB sorts and filters in its own process, seconds a page of 10,000 on a loaded machine: fewer there. */
const NOTES = Number(process.env.APIDSL_BENCH_NOTES ?? 10_000);
const SHOPS = 100;
const PAGE = 30;
const LOAD = { duration: 3, pairs: 7, warmup: 5 };
const IN_PROCESS = { seconds: 2, rounds: 9, warmup: 3 };
const SECRET = 'bench-secret-bench-secret-bench-secret-bench-secret';
const KINDS = ['plain', 'own', 'relation', 'ownFilter', 'relationFilter'] as const;
type Kind = (typeof KINDS)[number];
const PATHS: Record<Kind, string> = {
  plain: '/open_notes?page=2',
  own: '/own_notes?page=2',
  relation: '/shop_notes?page=2',
  ownFilter: '/open_notes?owner=bench&page=2',
  relationFilter: '/open_notes?shop.owner=bench&page=2',
};
/** Each scoped page and the filtered unscoped page that selects the same notes: what the scope adds to the WHERE. */
const FILTERED: Partial<Record<Kind, Kind>> = { own: 'ownFilter', relation: 'relationFilter' };

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

const owner = (i: number): string => (i % 2 ? 'other' : 'bench');

/** The store the bench runs on (APIDSL_BENCH_STORE), empty, and how to let it go. */
async function openStore(): Promise<{ name: string; store: Store; drop: () => Promise<void> }> {
  const kind = process.env.APIDSL_BENCH_STORE ?? 'sqlite';
  if (kind === 'sqlite')
    return { name: 'SQLite (memory)', store: await openSqliteStore({ memory: true }), drop: async () => undefined };
  if (kind === 'mongodb') {
    const server = await testMongo();
    if (!server) throw new Error('APIDSL_BENCH_STORE=mongodb, but no MongoDB-wire server was found');
    // FerretDB, on a loaded machine, may take longer than the default 5 s to answer a first page.
    const uri = await freshDatabaseUri('bench');
    const store = await openMongoStore({ uri: `${uri}${uri.includes('?') ? '&' : '?'}serverSelectionTimeoutMS=60000` });
    return { name: `MongoDB (${server.kind})`, store, drop: async () => undefined };
  }
  if (kind === 'postgres') {
    const url = await freshPostgresUrl('bench');
    return { name: 'PostgreSQL', store: await openPostgresStore({ url }), drop: () => dropPostgresDatabase(url) };
  }
  throw new Error(`APIDSL_BENCH_STORE=${kind}: choose sqlite, mongodb or postgres`);
}

async function seed(store: Store): Promise<void> {
  const api = await loadApi(FIXTURE);
  for (const resource of api.resources) {
    const collection = await store.collection(storageSpec(resource));
    const items =
      resource.shortName === 'Shop'
        ? Array.from({ length: SHOPS }, (_, i): Item => ({ id: i + 1, owner: owner(i) }))
        : Array.from({ length: NOTES }, (_, i): Item => ({
            id: i + 1,
            title: `Note ${i + 1}`,
            owner: owner(i),
            shop: `/shops/${(i % SHOPS) + 1}`,
          }));
    await collection.insertMany(items);
  }
}

/**
 * Throws unless each page is 200 with 30 members, all the caller's where scoped or filtered, and each filtered page
 * holds the same notes as the scoped page it stands beside (the resources hold the same notes).
 */
async function checkPages(get: (kind: Kind) => Promise<{ status: number; body: string }>): Promise<void> {
  const pages = new Map<Kind, string>();
  for (const kind of KINDS) {
    const res = await get(kind);
    const doc = JSON.parse(res.body) as { member?: { id: number; owner: string }[]; totalItems?: number };
    const mine = kind === 'plain' || doc.member?.every((m) => m.owner === 'bench');
    const total = kind === 'plain' ? NOTES : NOTES / 2;
    if (res.status !== 200 || doc.member?.length !== PAGE || !mine || doc.totalItems !== total)
      throw new Error(`GET ${PATHS[kind]} answered ${res.status}, not a page of the caller: ${res.body.slice(0, 300)}`);
    pages.set(kind, doc.member.map((m) => m.id).join());
  }
  for (const [scoped, filtered] of Object.entries(FILTERED) as [Kind, Kind][])
    if (pages.get(scoped) !== pages.get(filtered))
      throw new Error(`GET ${PATHS[filtered]} holds other notes than GET ${PATHS[scoped]}`);
}

export async function runScopesBench(): Promise<void> {
  process.env.APIDSL_BENCH_JWT_SECRET = SECRET;
  const { name, store, drop } = await openStore();
  progress(`scopes on ${name}: seeding ${NOTES.toLocaleString('en-US')} notes in each resource`);
  await seed(store);
  const token = await benchToken(SECRET, {});
  try {
    reportInProcess(name, await measureInProcess(store, token));
    reportHttp(name, await measureHttp(store, token));
  } finally {
    await drop();
  }
}

/** Per round and kind: the server's CPU µs per request and the µs a request takes, one at a time. */
interface InProcessRun {
  cpu: number;
  wall: number;
}

async function measureInProcess(store: Store, token: string): Promise<Record<Kind, InProcessRun[]>> {
  const api = await loadApi(FIXTURE);
  const runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
  const app: Listener = (await createApp(runtime, undefined)).callback();
  const headers = { accept: 'application/ld+json', authorization: `Bearer ${token}` };
  const request = (kind: Kind): Injected => ({ url: PATHS[kind], method: 'GET', headers });
  const runs = Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, InProcessRun[]>;
  const { seconds, rounds, warmup } = IN_PROCESS;
  /** Requests of `kind`, one at a time, for `seconds`: the CPU and the time each took. */
  const run = async (kind: Kind, seconds: number): Promise<InProcessRun> => {
    const [cpu, started] = [process.cpuUsage(), performance.now()];
    let requests = 0;
    while (performance.now() - started < seconds * 1000 || requests < 10) {
      await inject(app, request(kind));
      requests++;
    }
    const { user, system } = process.cpuUsage(cpu);
    return { cpu: (user + system) / requests, wall: ((performance.now() - started) * 1000) / requests };
  };
  try {
    await checkPages((kind) => inject(app, request(kind)));
    progress(`scopes in process: ${warmup} s warm-up each, then ${rounds} rounds of ${seconds} s runs (in turns)`);
    for (const kind of KINDS) await run(kind, warmup);
    for (let round = 1; round <= rounds; round++) {
      for (const kind of KINDS) runs[kind].push(await run(kind, seconds));
      progress(
        `  round ${round}: ${KINDS.map((k) => `${k} ${Math.round(runs[k][round - 1]!.cpu)}`).join(', ')} µs CPU`,
      );
    }
    return runs;
  } finally {
    await runtime.close();
  }
}

async function measureHttp(store: Store, token: string): Promise<Record<Kind, Run[]>> {
  const service = await benchService(FIXTURE, store);
  const auth = { Authorization: `Bearer ${token}` };
  const url = (kind: Kind): string => `${service.url}${PATHS[kind]}`;
  try {
    await checkPages(async (kind) => {
      const res = await fetch(url(kind), { headers: auth });
      return { status: res.status, body: await res.text() };
    });
    progress(`scopes over HTTP: ${LOAD.warmup} s warm-up each, then ${LOAD.pairs} rounds of ${LOAD.duration} s runs`);
    for (const kind of KINDS) await load(url(kind), LOAD.warmup, auth);
    const runs = Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, Run[]>;
    for (let round = 1; round <= LOAD.pairs; round++) {
      for (const kind of KINDS) {
        const cpu = process.cpuUsage();
        const result = await load(url(kind), LOAD.duration, auth);
        const { user, system } = process.cpuUsage(cpu);
        if (result.non2xx || result.errors || !result.requests)
          throw new Error(
            `scopes ${kind}: ${result.requests} answers, ${result.non2xx} non-2xx, ${result.errors} errors`,
          );
        runs[kind].push({ ...result, cpuPerRequest: (user + system) / result.requests });
      }
      progress(`  round ${round}: ${KINDS.map((k) => `${k} ${Math.round(runs[k][round - 1]!.rps)}`).join(', ')} req/s`);
    }
    return runs;
  } finally {
    await service.close();
  }
}

/** The median over rounds of `kind`'s cost against `base`'s run of the same round (higher: dearer). */
function cost<R>(
  runs: Record<Kind, R[]>,
  kind: Kind,
  dearer: (scoped: R, plain: R) => number,
  base: Kind = 'plain',
): number {
  return median(runs[base].map((other, i) => dearer(runs[kind][i]!, other)));
}

/** The cost against the unscoped page, with the contract's bar where the page is scoped. */
const bar = (kind: Kind, ratio: number): string => {
  if (kind === 'plain') return '1.00×';
  if (!FILTERED[kind]) return `${ratio.toFixed(3)}×`;
  const limit = kind === 'own' ? 1.1 : 1.3;
  return `${ratio.toFixed(3)}× (≤ ${limit}×: ${ratio <= limit ? 'met' : 'MISSED'})`;
};
/** A scoped page's cost against the unscoped page filtered to the same notes: what the scope adds. */
const againstFilter = <R>(runs: Record<Kind, R[]>, kind: Kind, dearer: (scoped: R, plain: R) => number): string => {
  const filtered = FILTERED[kind];
  return filtered ? `${cost(runs, kind, dearer, filtered).toFixed(3)}×` : '';
};
const µs = (values: number[]): string => `${Math.round(median(values))} µs`;
const LABELS: Record<Kind, string> = {
  plain: `unscoped: GET ${PATHS.plain}, ${NOTES.toLocaleString('en-US')} notes`,
  own: `scoped: GET ${PATHS.own} (object.owner == user?.identifier)`,
  relation: `one relation: GET ${PATHS.relation} (object.shop.owner == user?.identifier)`,
  ownFilter: `unscoped, filtered as the scope: GET ${PATHS.ownFilter}`,
  relationFilter: `unscoped, filtered as the relation's scope: GET ${PATHS.relationFilter}`,
};

/** The in-process table (printed before the HTTP runs: a store too slow for them still has its figures). */
function reportInProcess(store: string, runs: Record<Kind, InProcessRun[]>): void {
  console.log(
    `\nscopes on ${store}, in process: ${cpus().length} CPUs, node ${process.version}; ${IN_PROCESS.rounds} rounds of ` +
      `${IN_PROCESS.seconds} s runs, kinds in turns, after a ${IN_PROCESS.warmup} s warm-up each; values are medians, ` +
      `costs the median of the rounds' ratios: against the unscoped page, and against the page filtered as the scope\n`,
  );
  console.log(
    '| page | server CPU per request | cost | against its filter | time per request | cost | against its filter |',
  );
  console.log('|---|---:|---|---:|---:|---|---:|');
  for (const kind of KINDS) {
    const cpu = (s: InProcessRun, p: InProcessRun): number => s.cpu / p.cpu;
    const wall = (s: InProcessRun, p: InProcessRun): number => s.wall / p.wall;
    const cells = [
      µs(runs[kind].map((r) => r.cpu)),
      bar(kind, cost(runs, kind, cpu)),
      againstFilter(runs, kind, cpu),
      µs(runs[kind].map((r) => r.wall)),
      bar(kind, cost(runs, kind, wall)),
      againstFilter(runs, kind, wall),
    ];
    console.log(`| ${LABELS[kind]} | ${cells.join(' | ')} |`);
  }
}

function reportHttp(store: string, runs: Record<Kind, Run[]>): void {
  console.log(
    `\nscopes on ${store}, over HTTP: ${LOAD.pairs} rounds of ${LOAD.duration} s runs (10 connections), kinds in ` +
      `turns, after a ${LOAD.warmup} s warm-up each; values are medians, costs the median of the rounds' ratios\n`,
  );
  console.log('| page | req/s | cost | against its filter | server CPU per request | cost | against its filter |');
  console.log('|---|---:|---|---:|---:|---|---:|');
  for (const kind of KINDS) {
    const rps = (s: Run, p: Run): number => p.rps / s.rps;
    const cpu = (s: Run, p: Run): number => s.cpuPerRequest / p.cpuPerRequest;
    const served = Math.round(median(runs[kind].map((r) => r.rps))).toLocaleString('en-US');
    const cells = [
      served,
      bar(kind, cost(runs, kind, rps)),
      againstFilter(runs, kind, rps),
      µs(runs[kind].map((r) => r.cpuPerRequest)),
      bar(kind, cost(runs, kind, cpu)),
      againstFilter(runs, kind, cpu),
    ];
    console.log(`| ${LABELS[kind]} | ${cells.join(' | ')} |`);
  }
}
