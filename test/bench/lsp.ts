/**
 * Language server latency on a generated 5,000-line file, through stdio as an editor sees it:
 * change→publishDiagnostics p50 and p95 over 60 edits (a key in the middle of the file broken and
 * repaired, each change waited for), in ROUNDS rounds each with a fresh server, reported per round and
 * as the median of the rounds; then completion, hover, document symbols and semantic tokens (median
 * of 25). Run: `node dist/test/bench/lsp.js [--baseline <other checkout>/bin/apidsl.js]` (after `npm
 * run build`): with a baseline, its server runs the same rounds paired with this one's (alternating
 * which goes first), for a before/after comparison on a shared, noisy machine. Exported for the
 * bench runner as `runLspBench()`.
 */
import { pathToFileURL } from 'node:url';
import {
  CompletionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  SemanticTokensRequest,
} from 'vscode-languageserver-protocol/node';
import { fromRoot } from '../support/paths.js';
import { LspClient } from '../lsp/client.js';
import { generateApi } from './generate.js';

const RUNS = 25;
const CHANGES = 60;
const ROUNDS = 3;

async function median(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return percentile(times, 0.5);
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
};

interface Latency {
  p50: number;
  p95: number;
}

/** One round: a fresh server, the file opened, CHANGES edits each waited for until its diagnostics. */
async function changeLatency(
  text: string,
  server: string,
  requests?: (client: LspClient, uri: string, line: number, character: number) => Promise<void>,
): Promise<Latency> {
  const rows = text.split('\n');
  const client = await LspClient.start([server, 'lsp', '--stdio']);
  try {
    const uri = 'file:///tmp/apidsl-bench/large.api';
    await client.open(uri, text);
    await client.diagnostics(uri, 1, 60_000);
    const line = rows.findIndex((l, i) => i > rows.length / 2 && l.includes('paginationItemsPerPage'));
    const character = rows[line]!.indexOf('paginationItemsPerPage');
    const times: number[] = [];
    for (let version = 2; version < CHANGES + 7; version++) {
      const breaking = version % 2 === 0;
      const range = { start: { line, character }, end: { line, character: breaking ? character : character + 1 } };
      const t0 = performance.now();
      await client.change(uri, version, [{ range, text: breaking ? 'x' : '' }]);
      await client.diagnostics(uri, version, 60_000);
      if (version >= 7) times.push(performance.now() - t0); // the first five warm the server up
    }
    await requests?.(client, uri, line, character);
    return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
  } finally {
    await client.stop();
  }
}

async function otherRequests(client: LspClient, uri: string, line: number, character: number): Promise<void> {
  const textDocument = { uri };
  const position = { line, character: character + 3 };
  const completion = await median(() =>
    client.connection.sendRequest(CompletionRequest.type, { textDocument, position: { line, character: 0 } }),
  );
  const hover = await median(() => client.connection.sendRequest(HoverRequest.type, { textDocument, position }));
  const symbols = await median(() => client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument }));
  const tokens = await median(() => client.connection.sendRequest(SemanticTokensRequest.type, { textDocument }));
  console.log(
    `  completion ${completion.toFixed(1)} ms, hover ${hover.toFixed(1)} ms, document symbols ${symbols.toFixed(1)} ms, semantic tokens ${tokens.toFixed(1)} ms (median of ${RUNS})`,
  );
}

const middle = (xs: number[]): number => percentile(xs, 0.5);
const show = (l: Latency): string => `p50 ${l.p50.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms`;

export async function runLspBench(lines = 5000, baseline?: string): Promise<void> {
  const text = generateApi(lines);
  const servers: [string, string][] = [['this checkout', fromRoot('bin/apidsl.js')]];
  if (baseline) servers.push(['baseline', baseline]);
  console.log(
    `language server, ${text.split('\n').length} lines, change → publishDiagnostics over stdio (${CHANGES} changes a round, ${ROUNDS} rounds):`,
  );
  const results = new Map<string, Latency[]>(servers.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...servers].reverse() : servers;
    for (const [name, server] of order) {
      const latency = await changeLatency(
        text,
        server,
        round === 0 && name === 'this checkout' ? otherRequests : undefined,
      );
      results.get(name)!.push(latency);
      console.log(`  round ${round + 1}, ${name}: ${show(latency)}`);
    }
  }
  for (const [name, rounds] of results) {
    console.log(
      `  ${name}: median of rounds ${show({ p50: middle(rounds.map((r) => r.p50)), p95: middle(rounds.map((r) => r.p95)) })}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--baseline');
  await runLspBench(5000, at > 0 ? process.argv[at + 1] : undefined);
}
