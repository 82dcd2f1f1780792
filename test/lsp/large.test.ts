/**
 * A 5,000-line document through the stdio server: how long a change takes to come back as
 * diagnostics (printed; no timing assertion: speed belongs to benchmarks), and that the
 * results are right for each version.
 */
import { expect } from 'chai';
import { CompletionRequest, DocumentSymbolRequest, SemanticTokensRequest } from 'vscode-languageserver-protocol/node';
import { check } from '../../grammar/checker/index.js';
import { generateApi } from '../bench/generate.js';
import { freshUri, LspClient } from './client.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number): string => `${x.toFixed(1)} ms`;

describe('lsp on a 5,000-line document', () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start();
  });
  after(async () => {
    await client?.stop();
  });

  it("publishes each change's diagnostics for its version (latency printed)", async () => {
    const text = generateApi(5000);
    const lines = text.split('\n');
    expect(lines.length).to.be.at.least(5000);
    const uri = freshUri('large');
    const opened = performance.now();
    await client.open(uri, text);
    const first = await client.diagnostics(uri, 1, 30_000);
    expect(first.params.diagnostics).to.deep.equal([]);
    const openLatency = first.at - opened;

    // Alternately break and repair a key in the middle of the file, one incremental edit each.
    const line = lines.findIndex((l, i) => i > lines.length / 2 && l.includes('paginationItemsPerPage'));
    const character = lines[line].indexOf('paginationItemsPerPage') + 'pagination'.length;
    const latencies: number[] = [];
    for (let version = 2; version <= 21; version++) {
      const breaking = version % 2 === 0;
      const range = breaking
        ? { start: { line, character }, end: { line, character } }
        : { start: { line, character }, end: { line, character: character + 1 } };
      const sent = performance.now();
      await client.change(uri, version, [{ range, text: breaking ? 'x' : '' }]);
      const got = await client.diagnostics(uri, version, 30_000);
      latencies.push(got.at - sent);
      expect(got.params.diagnostics.map((d) => d.code)).to.deep.equal(breaking ? ['unknown-option'] : []);
      if (breaking)
        expect(got.params.diagnostics[0].range.start).to.deep.equal({
          line,
          character: character - 'pagination'.length,
        });
    }

    const inProcess: number[] = [];
    for (let i = 0; i < 5; i++) check(text); // warm up, as the server is by now
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      check(text);
      inProcess.push(performance.now() - t);
    }
    const timed = async (fn: () => Promise<unknown>): Promise<number> => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    const end = { line: line + 1, character: 0 };
    const completion = await timed(() =>
      client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: end }),
    );
    const symbols = await timed(() =>
      client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } }),
    );
    const tokens = await timed(() =>
      client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } }),
    );
    console.log(
      `      ${lines.length} lines, ${text.length} chars: change→diagnostics median ${ms(median(latencies))}, max ${ms(Math.max(...latencies))} ` +
        `(adaptive debounce included); open→diagnostics ${ms(openLatency)}; parse+check in process median ${ms(median(inProcess))}; ` +
        `completion ${ms(completion)}, symbols ${ms(symbols)}, semantic tokens ${ms(tokens)}`,
    );
  });
});
