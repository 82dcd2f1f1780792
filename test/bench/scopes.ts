/**
 * The cost of row-level scopes (part `scopes` of `npm run bench`), on test/fixtures/bench/scopes.api: the
 * throughput of page 2 of a scoped collection (the item's own owner; the owner of the item's shop, one relation
 * away) against the same page of the unscoped one, same process, store and Bearer JWT, under autocannon in a child
 * process; pairs of runs in turns, ratio as the median of the pairs' ratios (as security.ts does). Half the notes
 * (and half the shops) belong to the caller, so each scoped page is a full page of 30 of theirs.
 */
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadApi } from '../../server/load-api.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item } from '../../server/store/types.js';
import { benchService, benchToken, load, median, type Run } from './security.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/scopes.api', import.meta.url));
const NOTES = 10_000;
const SHOPS = 100;
const PAGE = 30;
const LOAD = { duration: 3, pairs: 7, warmup: 5 };
const SECRET = 'bench-secret-bench-secret-bench-secret-bench-secret';
const KINDS = ['plain', 'own', 'relation'] as const;
type Kind = (typeof KINDS)[number];

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

const owner = (i: number): string => (i % 2 ? 'other' : 'bench');

async function seed(file: string): Promise<Awaited<ReturnType<typeof openSqliteStore>>> {
  const api = await loadApi(file);
  const store = await openSqliteStore({ memory: true });
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
  return store;
}

export async function runScopesBench(): Promise<void> {
  process.env.APIDSL_BENCH_JWT_SECRET = SECRET;
  progress(`seeding ${NOTES.toLocaleString('en-US')} notes in each resource`);
  const store = await seed(FIXTURE);
  const service = await benchService(FIXTURE, store);
  const token = await benchToken(SECRET, {});
  const auth = { Authorization: `Bearer ${token}` };
  const urls: Record<Kind, string> = {
    plain: `${service.url}/open_notes?page=2`,
    own: `${service.url}/own_notes?page=2`,
    relation: `${service.url}/shop_notes?page=2`,
  };
  try {
    for (const kind of KINDS) {
      const res = await fetch(urls[kind], { headers: auth });
      const doc = (await res.json()) as { member?: { owner: string }[]; totalItems?: number };
      const mine = kind === 'plain' || doc.member?.every((m) => m.owner === 'bench');
      if (res.status !== 200 || doc.member?.length !== PAGE || !mine)
        throw new Error(`GET ${urls[kind]} answered ${res.status} with a page that is not the caller's`);
    }
    progress(`scopes: ${LOAD.warmup} s warm-up each, then ${LOAD.pairs} rounds of ${LOAD.duration} s runs (in turns)`);
    for (const kind of KINDS) await load(urls[kind], LOAD.warmup, auth);
    const runs: Record<Kind, Run[]> = { plain: [], own: [], relation: [] };
    for (let round = 1; round <= LOAD.pairs; round++) {
      for (const kind of KINDS) {
        const cpu = process.cpuUsage();
        const result = await load(urls[kind], LOAD.duration, auth);
        const { user, system } = process.cpuUsage(cpu);
        if (result.non2xx || result.errors) throw new Error(`scopes ${kind}: ${result.non2xx} non-2xx answers`);
        runs[kind].push({ ...result, cpuPerRequest: (user + system) / result.requests });
      }
      progress(`  round ${round}: ${KINDS.map((k) => `${k} ${Math.round(runs[k][round - 1]!.rps)}`).join(', ')} req/s`);
    }
    report(runs);
  } finally {
    await service.close();
  }
}

function report(runs: Record<Kind, Run[]>): void {
  const rps = (kind: Kind): string =>
    `${Math.round(median(runs[kind].map((r) => r.rps))).toLocaleString('en-US')} req/s`;
  const ratio = (kind: Kind): number => median(runs.plain.map((r, i) => r.rps / runs[kind][i]!.rps));
  console.log(
    `\nscopes: ${cpus().length} CPUs, node ${process.version}; ${LOAD.pairs} rounds of ${LOAD.duration} s runs in turns after a ` +
      `${LOAD.warmup} s warm-up each (values: median req/s; cost: median of the rounds' unscoped / scoped req/s)\n`,
  );
  console.log('| measurement | value | cost |');
  console.log('|---|---:|---|');
  console.log(`| unscoped: GET /open_notes?page=2, ${NOTES.toLocaleString('en-US')} notes | ${rps('plain')} | 1.00× |`);
  const own = ratio('own');
  console.log(
    `| scoped: GET /own_notes?page=2 (object.owner == user?.identifier) | ${rps('own')} | ${own.toFixed(2)}× (bar ≤ 1.1×: ${own <= 1.1 ? 'met' : 'MISSED'}) |`,
  );
  const relation = ratio('relation');
  console.log(
    `| scoped through one relation: GET /shop_notes?page=2 (object.shop.owner == user?.identifier) | ${rps('relation')} | ${relation.toFixed(2)}× (bar ≤ 1.3×: ${relation <= 1.3 ? 'met' : 'MISSED'}) |`,
  );
}
