/**
 * GraphQL against REST (part `graphql` of `npm run bench`), on test/fixtures/bench/graphql.api with 1,000 books
 * and 100 authors, one app on a node:http server, autocannon in a child process (load-process.ts), in pairs of runs
 * one right after the other, each ratio the median of the pairs' req/s ratios:
 * - `books(first: 30, after: <cursor of 29>)` selecting the book's fields against `GET /books?page=2`
 *   (bar ≥ 0.6×);
 * - the same GraphQL page also selecting each book's author (a to-one relation) against the page without it
 *   (bar ≥ 0.7×).
 * Before the load, the same three requests without the network (in-process.ts): CPU µs per request in the process,
 * 10,000 requests five times each, in turns (medians), where a busy machine moves the figures far less.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { loadApi } from '../../server/load-api.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item } from '../../server/store/types.js';
import { cpuPerRequestInTurns, inject, type Injected } from './in-process.js';
import { load, type LoadRequest, type LoadResult } from './load-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/graphql.api', import.meta.url));
const BOOKS = 1_000;
const AUTHORS = 100;
const LOAD = { connections: 10, duration: 3, pairs: 7, warmup: 2 };
const AFTER_29 = Buffer.from('29').toString('base64');
const PAGE = `{ books(first: 30, after: "${AFTER_29}") { edges { node { id _id title price } } } }`;
const WITH_AUTHOR = `{ books(first: 30, after: "${AFTER_29}") { edges { node { id _id title price author { id name } } } } }`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const graphQl = (base: string, query: string): Omit<LoadRequest, 'connections' | 'duration'> => ({
  url: `${base}/graphql`,
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ query }),
});

export async function runGraphQlBench(): Promise<void> {
  const api = await loadApi(FIXTURE);
  const store = await openSqliteStore({ memory: true });
  const authors = await store.collection(storageSpec(api.resource('Author')!));
  for (let i = 1; i <= AUTHORS; i++) await authors.insert({ id: i, name: `Author ${i}` } as Item);
  const books = await store.collection(storageSpec(api.resource('Book')!));
  for (let i = 1; i <= BOOKS; i++)
    await books.insert({ id: i, title: `Book ${i}`, price: i / 100, author: `/authors/${(i % AUTHORS) + 1}` } as Item);
  const runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
  const app = (await createApp(runtime, undefined)).callback();
  const cpu = await inProcess(app);
  const server = createServer((req, res) => void app(req, res));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: string[] = [];
  try {
    rows.push(
      await pairs('GraphQL page / REST page', { url: `${base}/books?page=2` }, graphQl(base, PAGE), 0.6),
      await pairs('GraphQL page with authors / without', graphQl(base, PAGE), graphQl(base, WITH_AUTHOR), 0.7),
    );
  } finally {
    await new Promise((closed) => server.close(closed));
    await runtime.bus.close();
    await store.close();
  }
  console.log(
    `\ngraphql: ${cpus().length} CPUs, node ${process.version}; ${LOAD.connections} connections, ${LOAD.pairs} pairs ` +
      `of ${LOAD.duration} s runs in turns; ratio: median of the pairs' req/s ratios (measured / baseline)\n`,
  );
  console.log(`in process, CPU µs per request: ${cpu}\n`);
  console.log('| comparison | baseline req/s | measured req/s | ratio |');
  console.log('|---|---:|---:|---|');
  for (const row of rows) console.log(row);
}

/** CPU per request of the REST page, the GraphQL page and the page with authors, in the process (in-process.ts). */
async function inProcess(app: Parameters<typeof inject>[0]): Promise<string> {
  const posted = (query: string): Injected => ({
    url: '/graphql',
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  const targets = ['/books?page=2', posted(PAGE), posted(WITH_AUTHOR)];
  for (const target of targets) {
    const answer = await inject(app, target);
    if (answer.status !== 200 || answer.body.includes('"errors"')) throw new Error(`bench: ${answer.body}`);
  }
  const [rest, page, withAuthor] = await cpuPerRequestInTurns(app, targets, 10_000, 5);
  return (
    `REST page ${rest.toFixed(1)}, GraphQL page ${page.toFixed(1)} (${(rest / page).toFixed(2)}× REST's ` +
    `requests per CPU second), with authors ${withAuthor.toFixed(1)}`
  );
}

export type Target = Omit<LoadRequest, 'connections' | 'duration'>;

/** Req/s of `measured` against `baseline`, in pairs of runs in turns (the MCP part uses it too). */
export async function pairs(what: string, baseline: Target, measured: Target, bar: number): Promise<string> {
  const run = async (target: Target, duration: number): Promise<LoadResult> => {
    const result = await load({ ...target, connections: LOAD.connections, duration });
    if (result.non2xx || result.errors) throw new Error(`bench: ${target.url}: ${result.non2xx} non-2xx answers`);
    return result;
  };
  await run(baseline, LOAD.warmup);
  await run(measured, LOAD.warmup);
  const ratios: number[] = [];
  const rps = { baseline: [] as number[], measured: [] as number[] };
  for (let pair = 1; pair <= LOAD.pairs; pair++) {
    const [first, second] = pair % 2 ? [baseline, measured] : [measured, baseline];
    const a = await run(first, LOAD.duration);
    const b = await run(second, LOAD.duration);
    const [base, meas] = first === baseline ? [a, b] : [b, a];
    rps.baseline.push(base.rps);
    rps.measured.push(meas.rps);
    ratios.push(meas.rps / base.rps);
    process.stderr.write(`[bench] ${what}, pair ${pair}: ${Math.round(meas.rps)} vs ${Math.round(base.rps)} req/s\n`);
  }
  const ratio = median(ratios);
  return (
    `| ${what} | ${Math.round(median(rps.baseline))} | ${Math.round(median(rps.measured))} | ` +
    `${ratio.toFixed(2)}× (bar ≥ ${bar.toFixed(2)}×: ${ratio >= bar ? 'met' : 'MISSED'}) |`
  );
}
