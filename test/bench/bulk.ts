/**
 * Bulk writes (part `bulk` of `npm run bench`), on test/fixtures/bench/bulk.api: items/s of 10,000 books created
 * by single POSTs with 64 in flight against 50,000 created by bulk POSTs (batches of 1,000, two requests
 * in flight, as a loader would send them: with one, the server idles while the client reads an answer and sends
 * the next batch), both through the same `bulk: true` operation, on the in-memory store (`--memory`) and on a data
 * file (`--data`: SQLite WAL, synchronous=FULL, so each single POST waits for its own commit on disk). The load
 * runs under autocannon in a child process (load-process.ts); pairs of runs, values and ratio as medians of
 * the pairs. Target: bulk ≥ 10× single POSTs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Storage } from '../../server/storage.js';
import { startService } from '../../server/serve.js';
import { load } from './load-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/bulk.api', import.meta.url));
const ITEMS = 10_000;
/** Items a bulk run creates: more than a single run's, so that it lasts about as long (a tenth of a second is too short to time). */
const BULK_ITEMS = 50_000;
const IN_FLIGHT = 64;
const BATCHES_IN_FLIGHT = 2;
const BATCH = 1_000;
const PAIRS = 3;

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const book = (i: number) => ({ title: `Book ${i}`, author: `Author ${i % 97}`, price: (i % 5_000) / 100 });
const HEADERS = { 'content-type': 'application/ld+json', accept: 'application/ld+json' };

interface Run {
  /** Items created per second (wall clock). */
  rate: number;
  /** CPU time of this process (the server's) per item created, in µs: independent of how busy the machine is. */
  cpu: number;
}

/** `requests` POSTs of `body`, each creating `perRequest` items, `connections` in flight. */
async function post(
  url: string,
  body: string,
  requests: number,
  perRequest: number,
  connections: number,
): Promise<Run> {
  const before = process.cpuUsage();
  // A generous timeout: on --data each single POST waits for its commit to reach the disk, 64 at a time.
  const result = await load({
    url,
    connections,
    duration: 0,
    amount: requests,
    method: 'POST',
    body,
    headers: HEADERS,
    timeout: 120,
  });
  if (result.non2xx || result.errors || result.requests !== requests) {
    throw new Error(
      `POST ${url}: ${result.requests} requests, ${result.non2xx} non-2xx answers, ${result.errors} errors`,
    );
  }
  const cpu = process.cpuUsage(before);
  const items = requests * perRequest;
  return { rate: items / result.seconds, cpu: (cpu.user + cpu.system) / items };
}

type Measured = { single: number; bulk: number; ratio: number; singleCpu: number; bulkCpu: number; cpuRatio: number };

async function measure(label: string, storage: Storage): Promise<Measured> {
  const service = await startService({
    file: FIXTURE,
    port: 0,
    host: '127.0.0.1',
    storage,
    logger: pino({ level: 'silent' }),
  });
  const url = `${service.url}/books`;
  const single = JSON.stringify(book(1));
  const batch = JSON.stringify(Array.from({ length: BATCH }, (_, i) => book(i)));
  try {
    // Warm-up: the JIT, the statement cache, the table.
    await post(url, single, 2_000, 1, IN_FLIGHT);
    await post(url, batch, 4, BATCH, BATCHES_IN_FLIGHT);
    const runs = { single: [] as Run[], bulk: [] as Run[] };
    for (let pair = 1; pair <= PAIRS; pair++) {
      runs.single.push(await post(url, single, ITEMS, 1, IN_FLIGHT));
      runs.bulk.push(await post(url, batch, BULK_ITEMS / BATCH, BATCH, BATCHES_IN_FLIGHT));
      const [s, b] = [runs.single.at(-1)!, runs.bulk.at(-1)!];
      progress(
        `  ${label} pair ${pair}: single ${Math.round(s.rate)} items/s (${Math.round(s.cpu)} µs CPU/item), bulk ${Math.round(b.rate)} items/s (${Math.round(b.cpu)} µs CPU/item)`,
      );
    }
    const total = ((await (await fetch(`${url}?itemsPerPage=1`)).json()) as { totalItems: number }).totalItems;
    const expected = 2_000 + 4 * BATCH + PAIRS * (ITEMS + BULK_ITEMS);
    if (total !== expected) throw new Error(`${label}: ${total} books stored, expected ${expected}`);
    const pairs = (f: (s: Run, b: Run) => number): number => median(runs.single.map((s, i) => f(s, runs.bulk[i])));
    return {
      single: median(runs.single.map((r) => r.rate)),
      bulk: median(runs.bulk.map((r) => r.rate)),
      ratio: pairs((s, b) => b.rate / s.rate),
      singleCpu: median(runs.single.map((r) => r.cpu)),
      bulkCpu: median(runs.bulk.map((r) => r.cpu)),
      cpuRatio: pairs((s, b) => s.cpu / b.cpu),
    };
  } finally {
    await service.close();
  }
}

export async function runBulkBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-bulk-bench-'));
  try {
    progress(
      `bulk: ${PAIRS} pairs of ${ITEMS.toLocaleString('en-US')} books by single POSTs (${IN_FLIGHT} in flight) then ${BULK_ITEMS.toLocaleString('en-US')} by batches of ${BATCH.toLocaleString('en-US')} (${BATCHES_IN_FLIGHT} in flight)`,
    );
    const rows = [
      { label: '--memory', ...(await measure('--memory', { kind: 'memory' })) },
      { label: '--data', ...(await measure('--data', { kind: 'file', dir })) },
    ];
    console.log(
      `\nbulk writes: ${cpus().length} CPUs (shared with the load generator), node ${process.version}; ${ITEMS.toLocaleString('en-US')} books per single run, ${BULK_ITEMS.toLocaleString('en-US')} per bulk run, ` +
        `${PAIRS} pairs (values: medians; ratios: median of the pairs' bulk / single). Server CPU per item is the ` +
        `serving process's own CPU time (the load generator runs in another), less sensitive than wall-clock rates to other processes on the machine.\n`,
    );
    console.log(
      `| storage | single POSTs, ${IN_FLIGHT} in flight | bulk POSTs of ${BATCH.toLocaleString('en-US')}, ${BATCHES_IN_FLIGHT} in flight | ratio (target ≥ 10×) | server CPU per item: single / bulk | CPU ratio |`,
    );
    console.log('|---|---:|---:|---|---:|---:|');
    const n = (v: number): string => `${Math.round(v).toLocaleString('en-US')} items/s`;
    for (const r of rows) {
      const met = r.ratio >= 10 ? 'met' : 'MISSED';
      console.log(
        `| ${r.label} | ${n(r.single)} | ${n(r.bulk)} | ${r.ratio.toFixed(1)}× (${met}) | ${Math.round(r.singleCpu)} µs / ${Math.round(r.bulkCpu)} µs | ${r.cpuRatio.toFixed(1)}× |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
