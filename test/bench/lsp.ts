/**
 * Language server latency on a generated 5,000-line file, through stdio as an editor sees it:
 * change→diagnostics (the server's 20 ms debounce included), completion, hover, document
 * symbols and semantic tokens, median of 25 runs each. Run: `node dist/test/bench/lsp.js`
 * (after `npm run build`); exported for a bench runner as `runLspBench()`.
 */
import { pathToFileURL } from 'node:url';
import { CompletionRequest, DocumentSymbolRequest, HoverRequest, SemanticTokensRequest } from 'vscode-languageserver-protocol/node';
import { LspClient } from '../lsp/client.js';
import { generateApi } from './generate.js';

const RUNS = 25;

async function median(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export async function runLspBench(lines = 5000): Promise<void> {
  const text = generateApi(lines);
  const rows = text.split('\n');
  const client = await LspClient.start();
  try {
    const uri = 'file:///tmp/apidsl-bench/large.api';
    await client.open(uri, text);
    await client.diagnostics(uri, 1, 60_000);
    const line = rows.findIndex((l, i) => i > rows.length / 2 && l.includes('paginationItemsPerPage'));
    const character = rows[line].indexOf('paginationItemsPerPage');
    let version = 1;
    const change = await median(async () => {
      version++;
      const range = { start: { line, character }, end: { line, character: version % 2 ? character + 1 : character } };
      await client.change(uri, version, [{ range, text: version % 2 ? '' : 'x' }]);
      await client.diagnostics(uri, version, 60_000);
    });
    const textDocument = { uri };
    const position = { line, character: character + 3 };
    const completion = await median(() => client.connection.sendRequest(CompletionRequest.type, { textDocument, position: { line, character: 0 } }));
    const hover = await median(() => client.connection.sendRequest(HoverRequest.type, { textDocument, position }));
    const symbols = await median(() => client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument }));
    const tokens = await median(() => client.connection.sendRequest(SemanticTokensRequest.type, { textDocument }));
    console.log(`language server, ${rows.length} lines (median of ${RUNS}):`);
    console.log(`  change → diagnostics  ${change.toFixed(1)} ms (20 ms debounce included)`);
    console.log(`  completion            ${completion.toFixed(1)} ms`);
    console.log(`  hover                 ${hover.toFixed(1)} ms`);
    console.log(`  document symbols      ${symbols.toFixed(1)} ms`);
    console.log(`  semantic tokens       ${tokens.toFixed(1)} ms`);
  } finally {
    await client.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runLspBench();
