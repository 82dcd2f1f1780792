/**
 * `npm run bench -- import`: `apidsl import` of 50,000 books (test/fixtures/bench/import.api; each row valid, with
 * a datetime, a unique value and a relation to one of 200 authors imported first) into the embedded store, the
 * whole command timed from outside: wall time, and the process's CPU time (cpu-report.ts), which depends less on
 * how busy the machine is. Each run imports into a fresh copy of the store holding the authors. With
 * APIDSL_BENCH_BASELINE=<another checkout, built>, that checkout's `bin/apidsl.js` runs the same import in turns
 * (A B A B …), and the ratios of each pair are given: how an import compares with another version's.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../support/paths.js';

const ROWS = 50_000;
const AUTHORS = 200;
const ROUNDS = 5;
const FIXTURE = fromRoot('test/fixtures/bench/import.api');
const CPU_REPORT = fileURLToPath(new URL('./cpu-report.js', import.meta.url));

interface Run {
  wall: number;
  cpu: number;
}

function book(i: number): Record<string, unknown> {
  return {
    id: i,
    title: `Book number ${i}`,
    isbn: `978-${String(i).padStart(9, '0')}`,
    price: (i % 500) / 10,
    pages: 1 + (i % 900),
    status: i % 3 ? 'published' : 'draft',
    tags: [`t${i % 7}`, `u${i % 11}`],
    publishedAt: i % 5 ? new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString() : null,
    author: `/authors/${1 + (i % AUTHORS)}`,
  };
}

const ndjson = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Runs `apidsl import` of `bin` (a checkout's bin/apidsl.js); its wall and CPU seconds. */
function importRun(bin: string, args: string[], dir: string): Promise<Run> {
  const cpuFile = join(dir, 'cpu.json');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', CPU_REPORT, bin, 'import', ...args], {
    env: { ...process.env, APIDSL_BENCH_CPU: cpuFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      const wall = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${bin} import exited with ${code}: ${stderr}`));
      const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user: number; system: number };
      resolve({ wall, cpu: (user + system) / 1e6 });
    }),
  );
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runImportBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-import-bench-'));
  try {
    const api = join(dir, 'import.api');
    cpSync(FIXTURE, api);
    writeFileSync(
      join(dir, 'authors.ndjson'),
      ndjson([...Array(AUTHORS)].map((_, i) => ({ id: i + 1, name: `A${i}` }))),
    );
    writeFileSync(join(dir, 'books.ndjson'), ndjson([...Array(ROWS)].map((_, i) => book(i + 1))));
    const baseline = process.env.APIDSL_BENCH_BASELINE;
    const versions = [{ name: 'this checkout', bin: fromRoot('bin/apidsl.js') }];
    if (baseline) versions.push({ name: baseline, bin: join(baseline, 'bin/apidsl.js') });
    // Each version seeds its own store (the authors), in case the versions lay their stores out differently.
    for (const [k, v] of versions.entries())
      await importRun(v.bin, [api, 'Author', join(dir, 'authors.ndjson'), '--data', join(dir, `seed-${k}`)], dir);
    const runs = versions.map(() => [] as Run[]);
    for (let round = 0; round <= ROUNDS; round++)
      for (const [k, v] of versions.entries()) {
        const data = join(dir, `run-${k}`);
        rmSync(data, { recursive: true, force: true });
        cpSync(join(dir, `seed-${k}`), data, { recursive: true });
        const run = await importRun(v.bin, [api, 'Book', join(dir, 'books.ndjson'), '--data', data], dir);
        if (round > 0) runs[k].push(run); // round 0 warms the file system cache
      }
    console.log(
      `\napidsl import of ${ROWS} rows (whole command, ${ROUNDS} runs${baseline ? ' in turns' : ''}, medians):`,
    );
    for (const [k, v] of versions.entries())
      console.log(
        `  ${v.name}: ${median(runs[k].map((r) => r.wall)).toFixed(2)} s wall, ${median(runs[k].map((r) => r.cpu)).toFixed(2)} s CPU`,
      );
    if (baseline) {
      const ratio = (of: (r: Run) => number): string =>
        median(runs[0].map((r, i) => of(r) / of(runs[1][i]))).toFixed(3);
      console.log(`  this checkout / baseline, pair by pair: wall ${ratio((r) => r.wall)}, CPU ${ratio((r) => r.cpu)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
