/**
 * The search index (part `elasticsearch` of `npm run bench`), on test/fixtures/bench/elasticsearch.api against a
 * ZincSearch of its own (test/support/zincsearch.ts), 1,000 books on the embedded store (in memory) written through
 * the runtime, so the index receives them as API writes do:
 * - req/s of `GET /books?page=2` (30 books from the index) beside `GET /store-books?page=2` (the same page from
 *   the store), in pairs of runs in turns (graphql.ts's `pairs`); for the record, no bar;
 * - the lag from an acknowledged write (201 to a POST) to the index answering it (`GET /books/{id}` from the index
 *   answers 200), polled every millisecond, for 200 writes one after the other: median and p99.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { loadApi } from '../../server/load-api.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import { engineEnv, startZincsearch } from '../support/zincsearch.js';
import { pairs } from './graphql.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/elasticsearch.api', import.meta.url));
const BOOKS = 1_000;
const WRITES = 200;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

export async function runElasticsearchBench(): Promise<void> {
  const engine = await startZincsearch();
  Object.assign(process.env, engineEnv(engine));
  const api = await loadApi(FIXTURE);
  const store = await openSqliteStore({ memory: true });
  const runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
  const books = runtime.collectionOf(api.resource('Book')!);
  for (let i = 1; i <= BOOKS; i++) await books.insert({ id: i, title: `Book ${i}`, price: i / 100 });
  const app = (await createApp(runtime, undefined)).callback();
  const server = createServer((req, res) => void app(req, res));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    // Every book in the index before anything is measured.
    for (;;) {
      const page = (await (await fetch(`${base}/books`)).json()) as { totalItems: number };
      if (page.totalItems === BOOKS) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const row = await pairs(
      '30 books from the index / from the store',
      { url: `${base}/store-books?page=2` },
      { url: `${base}/books?page=2` },
      0,
    );
    const lags: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const created = await fetch(`${base}/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ title: `New ${i}`, price: 1 }),
      });
      const acknowledged = performance.now();
      const { id } = (await created.json()) as { id: number };
      while ((await fetch(`${base}/books/${id}`)).status !== 200)
        await new Promise((resolve) => setTimeout(resolve, 1));
      lags.push(performance.now() - acknowledged);
    }
    lags.sort((a, b) => a - b);
    console.log(
      `\nelasticsearch: ${cpus().length} CPUs, node ${process.version}; ZincSearch v0.4.10 (ZINC_WAL_SYNC_INTERVAL=10ms, ` +
        `its default is 1 s); ${BOOKS} books on the in-memory embedded store\n`,
    );
    console.log('| comparison | store req/s | index req/s | ratio |');
    console.log('|---|---:|---:|---|');
    console.log(row.replace(/ \(bar ≥ 0\.00×: met\)/, ''));
    console.log(`\n| lag from a 201 to the index answering the item (${WRITES} writes) | median | p99 |`);
    console.log('|---|---:|---:|');
    console.log(
      `| POST → GET /books/{id} from the index | ${percentile(lags, 0.5).toFixed(1)} ms | ${percentile(lags, 0.99).toFixed(1)} ms |`,
    );
  } finally {
    await new Promise((closed) => server.close(closed));
    await runtime.bus.close();
    await runtime.search?.close();
    await store.close();
    await engine.stop();
  }
}
