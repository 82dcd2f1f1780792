/**
 * The VS Code extension, short of VS Code itself: its manifest and the files it names, and
 * the bundled language server (built with esbuild as the extension's build does) speaking
 * LSP over stdio.
 */
import { expect } from 'chai';
import { build } from 'esbuild';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompletionRequest, type CompletionItem } from 'vscode-languageserver-protocol/node';
import { fromRoot } from '../support/paths.js';
import { freshUri, LspClient, withCursor } from './client.js';

const ext = (path: string): string => fromRoot(`vscode-extension/${path}`);
const json = (path: string): any => JSON.parse(readFileSync(ext(path), 'utf8'));

describe('VS Code extension', () => {
  const manifest = json('package.json');

  it('declares the apidsl language for .api files, its grammar, configuration and snippets', () => {
    expect(manifest).to.deep.include({ name: 'apidsl', publisher: 'apidsl', main: './dist/extension.js' });
    expect(manifest.engines.vscode).to.match(/^\^1\.\d+\.\d+$/);
    const [language] = manifest.contributes.languages;
    expect(language).to.deep.include({ id: 'apidsl', extensions: ['.api'] });
    const [grammar] = manifest.contributes.grammars;
    expect(grammar).to.deep.include({ language: 'apidsl', scopeName: 'source.apidsl' });
    expect(json(grammar.path).scopeName).to.equal('source.apidsl');
    const config = json(language.configuration);
    expect(config.comments).to.deep.equal({ lineComment: '//', blockComment: ['/*', '*/'] });
    expect(config.brackets).to.deep.equal([
      ['{', '}'],
      ['[', ']'],
    ]);
    expect(config.autoClosingPairs.map((p: { open: string }) => p.open)).to.include.members(['{', '[', '"']);
    expect(config.indentationRules).to.have.keys('increaseIndentPattern', 'decreaseIndentPattern');
    const snippets = json(manifest.contributes.snippets[0].path);
    expect(Object.values(snippets).map((s: any) => s.prefix)).to.include.members([
      'resource',
      'filter',
      'op',
      'cursor',
      'cursorfield',
    ]);
    for (const file of ['README.md', 'LICENSE', 'build.mjs', 'src/extension.ts', 'src/server.ts', '.vscodeignore'])
      expect(existsSync(ext(file)), file).to.equal(true);
  });

  it('packages with vsce (bundled, no dependencies to ship)', () => {
    expect(manifest.scripts['vscode:prepublish']).to.include('build');
    expect(manifest.scripts.package).to.include('vsce package').and.include('--no-dependencies');
    expect(manifest.dependencies).to.equal(undefined);
  });

  describe('the bundled server', () => {
    let client: LspClient;
    before(async () => {
      const outfile = join(mkdtempSync(join(tmpdir(), 'apidsl-ext-')), 'server.js');
      await build({
        entryPoints: [ext('src/server.ts')],
        outfile,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        logLevel: 'silent',
      });
      client = await LspClient.start([outfile, '--stdio']);
    });
    after(async () => {
      await client?.stop();
    });

    it('checks and completes like apidsl lsp', async () => {
      const uri = freshUri('bundled');
      const { text, position } = withCursor(
        'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int }\n  operations { GetCollection { paginationType: | } }\n}\n',
      );
      await client.open(uri, text);
      const { params } = await client.diagnostics(uri, 1);
      expect(params.diagnostics.map((d) => d.code)).to.deep.equal(['unknown-option', 'syntax-error']); // the value is still missing
      const items = (await client.connection.sendRequest(CompletionRequest.type, {
        textDocument: { uri },
        position,
      })) as CompletionItem[];
      expect(items.map((i) => i.label)).to.deep.equal(['page', 'cursor']);
    });
  });
});
