/**
 * Over stdio, a document edited many times (each edit re-parsed incrementally by the server) answers
 * exactly as the same text opened afresh: diagnostics, semantic tokens, symbols, folding, hover,
 * definition and completion, so every position stays right after the declarations moved.
 */
import { expect } from 'chai';
import {
  CompletionRequest,
  DefinitionRequest,
  DocumentSymbolRequest,
  FoldingRangeRequest,
  HoverRequest,
  SemanticTokensRequest,
} from 'vscode-languageserver-protocol/node';
import { LineIndex } from '../../grammar/positions.js';
import { generateApi } from '../bench/generate.js';
import { freshUri, LspClient } from './client.js';

const SNIPPETS = [
  'x',
  'ab',
  '\n',
  '{',
  '}',
  '"',
  ':',
  ',',
  '  title: string\n',
  'resource Extra {\n  properties { id: int }\n}\n',
  '// note\n',
  '',
];

describe('lsp: incremental analysis answers as a fresh one', () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start();
  });
  after(async () => {
    await client?.stop();
  });

  it('after each of 40 random edits to a generated file', async () => {
    let seed = 15;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let text = generateApi(400);
    const uri = freshUri('edited');
    await client.open(uri, text);
    await client.diagnostics(uri, 1, 30_000);
    for (let version = 2; version <= 41; version++) {
      const lines = new LineIndex(text);
      const start = random(text.length);
      const end = Math.min(text.length, start + (random(3) === 0 ? random(40) : 0));
      const insert = SNIPPETS[random(SNIPPETS.length)]!;
      await client.change(uri, version, [
        { range: { start: lines.position(start), end: lines.position(end) }, text: insert },
      ]);
      text = text.slice(0, start) + insert + text.slice(end);
      const edited = await client.diagnostics(uri, version, 30_000);

      const fresh = freshUri('fresh');
      await client.open(fresh, text);
      const reference = await client.diagnostics(fresh, 1, 30_000);
      expect(edited.params.diagnostics, `diagnostics after edit ${version}`).to.deep.equal(
        reference.params.diagnostics,
      );
      const ask = async (u: string) => {
        const textDocument = { uri: u };
        const at = new LineIndex(text).position(Math.floor(text.length * 0.75));
        return {
          tokens: await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument }),
          symbols: await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument }),
          folding: await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument }),
          hover: await client.connection.sendRequest(HoverRequest.type, { textDocument, position: at }),
          definition: await client.connection.sendRequest(DefinitionRequest.type, { textDocument, position: at }),
          completion: await client.connection.sendRequest(CompletionRequest.type, { textDocument, position: at }),
        };
      };
      const [a, b] = [await ask(uri), await ask(fresh)];
      // Definitions point into their own document: compare where, not which.
      const where = (d: unknown): unknown => JSON.parse(JSON.stringify(d ?? null).replaceAll(fresh, uri));
      expect(a.tokens?.data, `semantic tokens after edit ${version}`).to.deep.equal(b.tokens?.data); // (resultIds differ)
      expect(a.symbols, `symbols after edit ${version}`).to.deep.equal(b.symbols);
      expect(a.folding, `folding after edit ${version}`).to.deep.equal(b.folding);
      expect(a.hover, `hover after edit ${version}`).to.deep.equal(b.hover);
      expect(a.definition, `definition after edit ${version}`).to.deep.equal(where(b.definition));
      expect(a.completion, `completion after edit ${version}`).to.deep.equal(b.completion);
      await client.close(fresh);
    }
  });
});
