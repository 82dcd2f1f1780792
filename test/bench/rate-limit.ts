/**
 * The cost of a rate limit (part `rate-limit` of `npm run bench`), on test/fixtures/bench/rate-limit.api: the
 * same GET on a resource with a limit no run reaches (`Item`, counted in the process: the default store of
 * `serve`) and on the same resource without one (`Book`, a name of the same length: bodies of the same size),
 * same data, same app. Measured twice, each in pairs of runs one right after the other, the ratio being the
 * median of the pairs' limited / unlimited (bar: ≤ 1.1×):
 * - in the process (in-process.ts: server CPU per request, no network, no load generator), a GET of one item
 *   and of a page of 30: the count's share of the cheapest requests;
 * - over HTTP (the same app on a node:http server, under autocannon in a child process, as security.ts), a page of 30: server CPU per
 *   request and requests per second.
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
import { cpuPerRequest, inject } from './in-process.js';
import { load, type LoadResult } from './load-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/rate-limit.api', import.meta.url));
const BOOKS = 1_000;
/** Pairs of in-process runs, and requests per run. */
const PAIRS = 41;
const RUN = 2_000;
const LOAD = { connections: 10, duration: 3, pairs: 9, warmup: 3 };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export async function runRateLimitBench(): Promise<void> {
  const api = await loadApi(FIXTURE);
  const store = await openSqliteStore({ memory: true });
  for (const resource of api.resources) {
    const collection = await store.collection(storageSpec(resource));
    for (let i = 1; i <= BOOKS; i++)
      await collection.insert({ id: i, title: `Book ${i}`, author: `Author ${i % 97}`, price: i / 100 } as Item);
  }
  const logger = pino({ level: 'silent' });
  const runtime = await startRuntime(api, store, { logger });
  const app = (await createApp(runtime, undefined)).callback();
  const rows: string[] = [];
  const server = createServer((req, res) => void app(req, res));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const [what, path] of [
      ['GET of one item', '/1'],
      ['GET of a page of 30', '?page=2'],
    ] as const) {
      const plain = `/books${path}`;
      const limited = `/items${path}`;
      for (const url of [plain, limited]) {
        const answer = await inject(app, url);
        if (answer.status !== 200) throw new Error(`rate-limit bench: GET ${url} answered ${answer.status}`);
      }
      // Warm both, then short runs one after the other, many times: a change of the machine's load between
      // two runs of a pair is rare, and the median of the pairs' ratios leaves out the pairs it hit.
      await cpuPerRequest(app, plain, 5_000, 1);
      await cpuPerRequest(app, limited, 5_000, 1);
      const ratios: number[] = [];
      const cpu = { plain: [] as number[], limited: [] as number[] };
      for (let pair = 1; pair <= PAIRS; pair++) {
        const [first, second] = pair % 2 ? [plain, limited] : [limited, plain];
        const a = await cpuRun(app, first);
        const b = await cpuRun(app, second);
        const [p, l] = first === plain ? [a, b] : [b, a];
        cpu.plain.push(p);
        cpu.limited.push(l);
        ratios.push(l / p);
      }
      process.stderr.write(`[bench] rate limit, ${what}: ${PAIRS} pairs measured\n`);
      const ratio = median(ratios);
      rows.push(
        `| ${what} | ${median(cpu.plain).toFixed(1)} µs | ${median(cpu.limited).toFixed(1)} µs | ${ratio.toFixed(3)}× (bar ≤ 1.1×: ${ratio <= 1.1 ? 'met' : 'MISSED'}) |`,
      );
    }
    rows.push(await overHttp(base));
  } finally {
    await new Promise((closed) => server.close(closed));
    await runtime.bus.close();
    await store.close();
  }
  console.log(
    `\nrate limit: ${cpus().length} CPUs, node ${process.version}; server CPU per request in the process, ` +
      `${PAIRS} pairs of runs of ${RUN.toLocaleString('en-US')} requests, in turns; ratio: median of the pairs' limited / unlimited\n`,
  );
  console.log('| request | without a limit | under a limit (in-process counter) | ratio |');
  console.log('|---|---:|---:|---|');
  for (const row of rows) console.log(row);
}

/** Server CPU microseconds per request of one run of RUN GETs of `url` in the process. */
async function cpuRun(app: Parameters<typeof inject>[0], url: string): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < RUN; i++) await inject(app, url);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / RUN;
}

/** Server CPU per request and req/s of a page over HTTP, limited against unlimited, in pairs of autocannon runs. */
async function overHttp(base: string): Promise<string> {
  const urls = { plain: `${base}/books?page=2`, limited: `${base}/items?page=2` };
  const run = async (url: string, duration: number): Promise<LoadResult & { cpu: number }> => {
    const before = process.cpuUsage();
    const result = await load({ url, connections: LOAD.connections, duration });
    const spent = process.cpuUsage(before);
    if (result.non2xx || result.errors)
      throw new Error(`rate-limit bench: GET ${url}: ${result.non2xx} non-2xx answers`);
    return { ...result, cpu: (spent.user + spent.system) / result.requests };
  };
  await run(urls.limited, LOAD.warmup);
  await run(urls.plain, LOAD.warmup);
  const cpuRatios: number[] = [];
  const rpsRatios: number[] = [];
  const cpu = { plain: [] as number[], limited: [] as number[] };
  for (let pair = 1; pair <= LOAD.pairs; pair++) {
    // In turns, so that neither always runs first.
    const [first, second] = pair % 2 ? [urls.limited, urls.plain] : [urls.plain, urls.limited];
    const a = await run(first, LOAD.duration);
    const b = await run(second, LOAD.duration);
    const [l, p] = first === urls.limited ? [a, b] : [b, a];
    cpu.plain.push(p.cpu);
    cpu.limited.push(l.cpu);
    cpuRatios.push(l.cpu / p.cpu);
    rpsRatios.push(p.rps / l.rps);
    process.stderr.write(
      `[bench] rate limit over HTTP, pair ${pair}: ${Math.round(l.rps)} vs ${Math.round(p.rps)} req/s, ${l.cpu.toFixed(0)} vs ${p.cpu.toFixed(0)} µs\n`,
    );
  }
  const ratio = median(cpuRatios);
  return (
    `| GET of a page of 30 over HTTP (${LOAD.connections} connections, ${LOAD.pairs} pairs of ${LOAD.duration} s) | ` +
    `${median(cpu.plain).toFixed(0)} µs | ${median(cpu.limited).toFixed(0)} µs | ${ratio.toFixed(3)}× CPU ` +
    `(bar ≤ 1.1×: ${ratio <= 1.1 ? 'met' : 'MISSED'}); ${median(rpsRatios).toFixed(3)}× in req/s (unlimited / limited) |`
  );
}
