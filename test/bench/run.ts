/**
 * `npm run bench`: front-end speed on a generated 10,000-line file, median of several runs,
 * with the Chevrotain lexer alone as the baseline measured in the same run; then the pagination
 * and throughput benchmarks of pagination.ts, the cost of security (security.ts), then the language
 * server's latency (lsp.ts), the HTTP cache and the workers (cache.ts), then bulk writes against single POSTs
 * (bulk.ts), then the cost of a rate limit (rate-limit.ts), then GraphQL against REST (graphql.ts), then embedded
 * relations against IRIs (embedding.ts), then an MCP tool call against REST (mcp.ts), then a page from the search
 * index against the store, and the index's lag (elasticsearch.ts), then how soon the README's serve command
 * answers (start.ts), then `apidsl import` of 50,000 rows (import.ts), then the PostgreSQL store against a bare
 * handler and at 1,000,000 rows (postgres.ts). `npm run bench -- throughput` (or front-end, large, security, scopes,
 * cache, lsp, bulk, rate-limit, graphql, embedding, mcp, elasticsearch, start, import, postgres, several allowed)
 * runs only those parts.
 */
import { performance } from 'node:perf_hooks';
import { parse } from '../../grammar/parse.js';
import { check } from '../../grammar/checker/index.js';
import { apiLexer } from '../../grammar/lexer.js';
import { runBulkBench } from './bulk.js';
import { generateApi } from './generate.js';
import { runCacheBench } from './cache.js';
import { runElasticsearchBench } from './elasticsearch.js';
import { runEmbeddingBench } from './embedding.js';
import { runGraphQlBench } from './graphql.js';
import { runImportBench } from './import.js';
import { runLspBench } from './lsp.js';
import { runMcpBench } from './mcp.js';
import { runPaginationBench, type PaginationPart } from './pagination.js';
import { runPostgresBench } from './postgres.js';
import { runRateLimitBench } from './rate-limit.js';
import { runScopesBench } from './scopes.js';
import { runSecurityBench } from './security.js';
import { runStartBench } from './start.js';

const PARTS = [
  'front-end',
  'large',
  'throughput',
  'security',
  'scopes',
  'cache',
  'lsp',
  'bulk',
  'rate-limit',
  'graphql',
  'embedding',
  'mcp',
  'elasticsearch',
  'start',
  'import',
  'postgres',
] as const;
const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !(PARTS as readonly string[]).includes(a));
if (unknown.length) throw new Error(`unknown benchmark part ${unknown.join(', ')}: choose among ${PARTS.join(', ')}`);
const parts = new Set<string>(asked.length ? asked : PARTS);

const RUNS = 25;

function median(fn: () => void): number {
  for (let i = 0; i < 5; i++) fn(); // warm up the JIT
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

if (parts.has('front-end')) runFrontEndBench();
const pagination = new Set(['large', 'throughput'].filter((p) => parts.has(p)) as PaginationPart[]);
if (pagination.size) await runPaginationBench(pagination);
if (parts.has('security')) await runSecurityBench();
if (parts.has('scopes')) await runScopesBench();
if (parts.has('cache')) await runCacheBench();
if (parts.has('lsp')) await runLspBench();
if (parts.has('bulk')) await runBulkBench();
if (parts.has('rate-limit')) await runRateLimitBench();
if (parts.has('graphql')) await runGraphQlBench();
if (parts.has('embedding')) await runEmbeddingBench();
if (parts.has('mcp')) await runMcpBench();
if (parts.has('elasticsearch')) await runElasticsearchBench();
if (parts.has('start')) await runStartBench();
if (parts.has('import')) await runImportBench();
if (parts.has('postgres')) await runPostgresBench();

function runFrontEndBench(): void {
  const text = generateApi(10_000);
  const lineCount = text.split('\n').length;
  const mb = Buffer.byteLength(text) / 1e6;
  const diagnostics = check(text).all.length;
  if (diagnostics !== 0) throw new Error(`the generated file should check clean, got ${diagnostics} diagnostics`);

  const rows = [
    { name: 'lex (baseline: Chevrotain lexer alone)', ms: median(() => apiLexer.tokenize(text)) },
    { name: 'parse (lex + parse + AST)', ms: median(() => parse(text)) },
    { name: 'parse + check', ms: median(() => check(text)) },
  ];
  const base = rows[0].ms;
  console.log(`front end on a generated file: ${lineCount} lines, ${mb.toFixed(2)} MB, median of ${RUNS} runs\n`);
  console.log('| step | ms | MB/s | ratio to baseline |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.ms.toFixed(1)} | ${(mb / (r.ms / 1000)).toFixed(1)} | ${(r.ms / base).toFixed(2)}x |`,
    );
}
