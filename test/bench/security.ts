/**
 * The cost of security (part `security` of `npm run bench`), on test/fixtures/bench/security.api: the
 * throughput of `GET /secure_books?page=2` with a valid Bearer JWT (authenticated on every request, then
 * `is_granted('ROLE_USER')` evaluated before the read) against the unguarded `GET /public_books?page=2` of
 * the same process and store (pages of the same size), under autocannon in a child process; pairs of runs
 * seconds apart, ratio as the median of the pairs' ratios (as pagination.ts does). Every request carries
 * the same token, as a client would: its signature is checked on the first and then remembered by its exact
 * text (server/metadata/verified-tokens.ts; exp and nbf still checked on each request).
 */
import { fork } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { pino } from 'pino';
import { loadApi } from '../../server/load-api.js';
import { startService } from '../../server/serve.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item, Store } from '../../server/store/types.js';
import type { LoadRequest, LoadResult } from './load-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/security.api', import.meta.url));
const BOOKS = 10_000;
const PAGE = 30;
const LOAD = { connections: 10, duration: 3, pairs: 7, warmup: 5 };
const SECRET = 'bench-secret-bench-secret-bench-secret-bench-secret';

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

/** One autocannon run in a child process (the scopes benchmark shares it). */
export function load(url: string, duration: number, headers: Record<string, string>): Promise<LoadResult> {
  const request: LoadRequest = { url, connections: LOAD.connections, duration, headers };
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-process.js', import.meta.url)), [JSON.stringify(request)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
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

/** One load run, with the CPU time the server (this process) spent per request answered. */
export type Run = LoadResult & { cpuPerRequest: number };

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A service of `file` on `store`, silent, on a free port (the scopes benchmark shares it). */
export const benchService = (file: string, store: Store): ReturnType<typeof startService> =>
  startService({
    file,
    port: 0,
    host: '127.0.0.1',
    storage: { kind: 'memory' },
    logger: pino({ level: 'silent' }),
    store,
  });

/** A Bearer JWT for subject `bench`, valid for the bench fixtures' issuer and audience. */
export const benchToken = (secret: string, claims: Record<string, unknown>): Promise<string> =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setIssuer('https://id.example.test')
    .setAudience('bench')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));

export async function runSecurityBench(): Promise<void> {
  process.env.APIDSL_BENCH_JWT_SECRET = SECRET;
  const api = await loadApi(FIXTURE);
  const store = await openSqliteStore({ memory: true });
  progress(`seeding ${BOOKS.toLocaleString('en-US')} books in each resource`);
  for (const resource of api.resources) {
    const collection = await store.collection(storageSpec(resource));
    const insertMany = (collection as typeof collection & { insertMany?: (items: Item[]) => Promise<unknown> })
      .insertMany;
    const items = Array.from({ length: BOOKS }, (_, i): Item => ({
      id: i + 1,
      title: `Book ${i + 1}`,
      author: `Author ${i % 97}`,
      price: (i % 5_000) / 100,
    }));
    if (insertMany) await insertMany.call(collection, items);
    else for (const item of items) await collection.insert(item);
  }
  const service = await benchService(FIXTURE, store);
  const token = await benchToken(SECRET, { roles: ['ROLE_ADMIN'] });
  const auth = { Authorization: `Bearer ${token}` };
  const plain = `${service.url}/public_books?page=2`;
  const guarded = `${service.url}/secure_books?page=2`;
  try {
    for (const [url, headers] of [
      [plain, {}],
      [guarded, auth],
    ] as const) {
      const res = await fetch(url, { headers });
      const doc = (await res.json()) as { member?: { id: number }[] };
      if (res.status !== 200 || doc.member?.length !== PAGE || doc.member[0].id !== PAGE + 1)
        throw new Error(`GET ${url} answered ${res.status}`);
    }
    const denied = await fetch(guarded);
    if (denied.status !== 401) throw new Error(`GET ${guarded} without a token answered ${denied.status}, not 401`);
    progress(
      `security: ${LOAD.warmup} s warm-up each, then ${LOAD.pairs} pairs of ${LOAD.duration} s runs (guarded, then unguarded)`,
    );
    await load(guarded, LOAD.warmup, auth);
    await load(plain, LOAD.warmup, {});
    const runs = { guarded: [] as Run[], plain: [] as Run[] };
    for (let pair = 1; pair <= LOAD.pairs; pair++) {
      for (const [name, url, headers] of [
        ['guarded', guarded, auth],
        ['plain', plain, {}],
      ] as const) {
        const cpu = process.cpuUsage();
        const result = await load(url, LOAD.duration, headers);
        const { user, system } = process.cpuUsage(cpu);
        if (result.non2xx || result.errors)
          throw new Error(`security ${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        runs[name].push({ ...result, cpuPerRequest: (user + system) / result.requests });
      }
      const [g, p] = [runs.guarded[pair - 1], runs.plain[pair - 1]];
      progress(
        `  pair ${pair}: guarded ${Math.round(g.rps)}, unguarded ${Math.round(p.rps)} req/s; server CPU ${Math.round(g.cpuPerRequest)}, ${Math.round(p.cpuPerRequest)} µs/request`,
      );
    }
    const rps = (name: 'guarded' | 'plain'): string =>
      `${Math.round(median(runs[name].map((r) => r.rps))).toLocaleString('en-US')} req/s`;
    const cpu = (name: 'guarded' | 'plain'): string =>
      `${Math.round(median(runs[name].map((r) => r.cpuPerRequest)))} µs`;
    const ratio = median(runs.guarded.map((r, i) => r.rps / runs.plain[i].rps));
    const cpuRatio = median(runs.guarded.map((r, i) => runs.plain[i].cpuPerRequest / r.cpuPerRequest));
    console.log(
      `\nsecurity: ${cpus().length} CPUs, node ${process.version}; ${LOAD.connections} connections, ${LOAD.pairs} pairs of ${LOAD.duration} s runs ` +
        `after a ${LOAD.warmup} s warm-up each (values: median req/s; ratio: median of the pairs' guarded / unguarded)\n`,
    );
    console.log('| measurement | value | ratio | server CPU per request | CPU ratio |');
    console.log('|---|---:|---|---:|---|');
    console.log(
      `| unguarded: GET /public_books?page=2, ${BOOKS.toLocaleString('en-US')} books | ${rps('plain')} | 1.00× (baseline) | ${cpu('plain')} | 1.00× |`,
    );
    const met = ratio >= 0.9 ? 'met' : 'MISSED';
    console.log(
      `| guarded: GET /secure_books?page=2 with a Bearer JWT (HS256, verified once then remembered; is_granted('ROLE_USER')) | ${rps('guarded')} | ` +
        `${ratio.toFixed(2)}× (bar ≥ 0.9×: ${met}) | ${cpu('guarded')} | ${cpuRatio.toFixed(2)}× |`,
    );
    console.log(
      '\nCPU ratio: unguarded / guarded server CPU time per request, median of the pairs, from the same runs; it moves less than req/s ' +
        'when other processes share the CPUs, but a loaded machine inflates it too (cache misses, less batching per event-loop turn).',
    );
  } finally {
    await service.close();
  }
}
