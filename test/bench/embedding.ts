/**
 * The cost of embedding (part `embedding` of `npm run bench`), on test/fixtures/bench/embedding.api with 1,000
 * talks: the server CPU time of one request for a page of 30 talks with each one's speaker embedded
 * (`GET /talks?page=2`, the speakers read in one store query) against the same page with the speakers' IRIs
 * (`GET /talk_iris?page=2`), both built from the items (groups on both: no stored member texts); once with 30
 * speakers on the page (the worst case: the speakers' read costs about what the page's own does), once with 5.
 * Measured in process (in-process.ts), so that a busy machine moves the figures less; bar ≤ 1.5×.
 */
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { loadApi } from '../../server/load-api.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item } from '../../server/store/types.js';
import { cpuPerRequest, inject, type Listener } from './in-process.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/embedding.api', import.meta.url));
const TALKS = 1_000;
const REQUESTS = 5_000;

export async function runEmbeddingBench(): Promise<void> {
  const rows: string[] = [];
  // Each talk of the page by another speaker (30 read), then the page's talks shared by 5 speakers (5 read).
  for (const speakers of [100, 5]) rows.push(...(await measure(speakers)));
  console.log(`\nembedding: ${cpus().length} CPUs, node ${process.version}; server CPU per request, in process\n`);
  console.log('| page of 30 talks | CPU per request | ratio |');
  console.log('|---|---:|---|');
  for (const row of rows) console.log(row);
}

/** The two rows of a store of 1,000 talks by `speakerCount` speakers. */
async function measure(speakerCount: number): Promise<string[]> {
  const api = await loadApi(FIXTURE);
  const store = await openSqliteStore({ memory: true });
  const speakers = await store.collection(storageSpec(api.resource('Speaker')!));
  for (let i = 1; i <= speakerCount; i++)
    await speakers.insert({ id: i, name: `Speaker ${i}`, company: 'ACME' } as Item);
  const talks = await store.collection(storageSpec(api.resource('Talk')!));
  for (let i = 1; i <= TALKS; i++)
    await talks.insert({
      id: i,
      title: `Talk ${i}`,
      room: 'A',
      speaker: `/speakers/${(i % speakerCount) + 1}`,
    } as Item);
  const runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
  const app: Listener = (await createApp(runtime, undefined)).callback();
  try {
    const embedded = '/talks?page=2';
    const iris = '/talk_iris?page=2';
    const shown = JSON.parse((await inject(app, embedded)).body) as { member: { speaker: unknown }[] };
    const plain = JSON.parse((await inject(app, iris)).body) as { member: { speaker: unknown }[] };
    if (shown.member.length !== 30 || typeof shown.member[0].speaker !== 'object')
      throw new Error(`GET ${embedded} does not embed the speakers`);
    if (plain.member.length !== 30 || typeof plain.member[0].speaker !== 'string')
      throw new Error(`GET ${iris} does not show IRIs`);
    const distinct = Math.min(speakerCount, 30);
    process.stderr.write(`[bench] embedding, ${distinct} speakers a page: ${REQUESTS} requests a run, median of 5\n`);
    const base = await cpuPerRequest(app, iris, REQUESTS);
    const measured = await cpuPerRequest(app, embedded, REQUESTS);
    const ratio = measured / base;
    return [
      `| speakers as IRIs: GET ${iris} | ${Math.round(base)} µs | 1.00× (baseline) |`,
      `| ${distinct} speakers embedded: GET ${embedded} | ${Math.round(measured)} µs | ${ratio.toFixed(2)}× (bar ≤ 1.5×: ${ratio <= 1.5 ? 'met' : 'MISSED'}) |`,
    ];
  } finally {
    await runtime.bus.close();
    await store.close();
  }
}
