/**
 * Completion at `|` cursor markers in test/fixtures/lsp/completion/*.api, through the stdio
 * server. Each fixture states in its leading comments what it expects:
 * `// expect: a, b` (labels offered), `// reject: c` (labels not offered),
 * `// edit: label => text` (the text an item inserts), `// colon: yes` (a missing colon is
 * inserted with the value), `// empty` (nothing offered).
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { CompletionRequest, type CompletionItem, type CompletionList } from 'vscode-languageserver-protocol/node';
import { fromRoot } from '../support/paths.js';
import { freshUri, LspClient, withCursor } from './client.js';

const dir = fromRoot('test/fixtures/lsp/completion');

interface Expectation {
  expect: string[];
  reject: string[];
  edits: [string, string][];
  colon: boolean;
  empty: boolean;
}

function expectations(text: string): Expectation {
  const out: Expectation = { expect: [], reject: [], edits: [], colon: false, empty: false };
  const list = (s: string): string[] =>
    s
      .split(/,(?![^{]*\})/)
      .map((x) => x.trim())
      .filter(Boolean);
  for (const line of text.split('\n')) {
    const m = /^\/\/ (expect|reject|edit|colon|empty)\b:?\s*(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'expect') out.expect.push(...list(m[2]));
    if (m[1] === 'reject') out.reject.push(...list(m[2]));
    if (m[1] === 'edit') out.edits.push(m[2].split(' => ') as [string, string]);
    if (m[1] === 'colon') out.colon = true;
    if (m[1] === 'empty') out.empty = true;
  }
  return out;
}

const items = (r: CompletionItem[] | CompletionList | null): CompletionItem[] =>
  Array.isArray(r) ? r : (r?.items ?? []);

describe('lsp completion at cursor markers', () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start();
  });
  after(async () => {
    await client?.stop();
  });

  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.api'))
    .sort()) {
    const marked = readFileSync(`${dir}/${file}`, 'utf8');
    const title = /^\/\/ (.*)$/m.exec(marked)?.[1] ?? file;
    it(`${file}: ${title}`, async () => {
      const want = expectations(marked);
      const { text, position } = withCursor(marked);
      const uri = freshUri(file.replace(/\.api$/, ''));
      await client.open(uri, text);
      const got = items(
        await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position }),
      );
      const labels = got.map((i) => i.label);
      if (want.empty) expect(labels).to.deep.equal([]);
      else expect(labels, 'no completion').to.not.be.empty;
      for (const label of want.expect) expect(labels, `offers ${label}`).to.include(label);
      for (const label of want.reject) expect(labels, `does not offer ${label}`).to.not.include(label);
      for (const [label, text] of want.edits) {
        const item = got.find((i) => i.label === label);
        expect(item, label).to.not.equal(undefined);
        expect(item!.textEdit && 'newText' in item!.textEdit ? item!.textEdit.newText : item!.insertText).to.equal(
          text,
        );
      }
      for (const item of got) {
        const edit = item.textEdit;
        expect(edit && 'range' in edit, `${item.label} has a text edit`).to.equal(true);
        if (edit && 'range' in edit) {
          // The replaced range is on the cursor's line and contains the cursor.
          expect(edit.range.start.line).to.equal(position.line);
          expect(edit.range.end.line).to.equal(position.line);
          expect(edit.range.start.character).to.be.at.most(position.character);
          expect(edit.range.end.character).to.be.at.least(position.character);
        }
        if (want.colon)
          expect(
            item.additionalTextEdits?.map((e) => e.newText),
            item.label,
          ).to.deep.equal([':']);
      }
    });
  }

  it('documents each option with its type, default and doc', async () => {
    const { text, position } = withCursor(
      'resource Book {\n  properties { id: int }\n  operations { GetCollection { paginationItems| } }\n}\n',
    );
    const uri = freshUri('doc');
    await client.open(uri, text);
    const got = items(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position }));
    const item = got.find((i) => i.label === 'paginationItemsPerPage')!;
    expect(item.detail).to.equal('int (0 or more)');
    const doc = typeof item.documentation === 'string' ? item.documentation : item.documentation?.value;
    expect(doc).to.include('default `30`').and.include('Items per page.').and.include('pagination_items_per_page');
    expect(item.textEdit && 'newText' in item.textEdit && item.textEdit.newText).to.equal('paginationItemsPerPage: $1');
  });

  it('inserts only the name when the colon is already written', async () => {
    const { text, position } = withCursor('resource Book {\n  paginationIt|: 10\n  properties { id: int }\n}\n');
    const uri = freshUri('colon-after');
    await client.open(uri, text);
    const got = items(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position }));
    const item = got.find((i) => i.label === 'paginationItemsPerPage')!;
    expect(item.textEdit && 'newText' in item.textEdit && item.textEdit.newText).to.equal('paginationItemsPerPage');
    expect(item.textEdit && 'range' in item.textEdit && item.textEdit.range).to.deep.equal({
      start: { line: 1, character: 2 },
      end: { line: 1, character: 14 },
    });
  });
});
