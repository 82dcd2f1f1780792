/**
 * The TextMate grammar of the VS Code extension: the vscode-tmgrammar-test fixtures in
 * test/fixtures/lsp/grammar/ (one assertion per construct of the language), and every example
 * file tokenized without an invalid token and ending back at the top level.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import oniguruma from 'vscode-oniguruma';
import vsctm from 'vscode-textmate';
import { FILTER_KINDS } from '../../grammar/catalogue/filters.js';
import { fromRoot } from '../support/paths.js';

const require = createRequire(import.meta.url);
const grammarPath = fromRoot('vscode-extension/syntaxes/apidsl.tmLanguage.json');

async function loadGrammar(): Promise<vsctm.IGrammar> {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (p: string[]) => new oniguruma.OnigScanner(p),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope: string) =>
      scope === 'source.apidsl' ? vsctm.parseRawGrammar(readFileSync(grammarPath, 'utf8'), grammarPath) : null,
  });
  const grammar = await registry.loadGrammar('source.apidsl');
  if (!grammar) throw new Error('grammar not loaded');
  return grammar;
}

describe('TextMate grammar', () => {
  it('passes the vscode-tmgrammar-test fixtures', () => {
    const tool = require.resolve('vscode-tmgrammar-test/dist/unit.js');
    const r = spawnSync(process.execPath, [tool, '--compact', '../test/fixtures/lsp/grammar/*.api'], {
      cwd: fromRoot('vscode-extension'),
      encoding: 'utf8',
    });
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.not.include('failed');
  });

  it('has a fixture for each area of the language', () => {
    const names = readdirSync(fromRoot('test/fixtures/lsp/grammar')).sort();
    expect(names).to.deep.equal(['declarations.api', 'resources.api', 'values.api']);
  });

  it('scopes every filter kind of the catalogue as a filter kind, and a misspelt one as invalid', async () => {
    const grammar = await loadGrammar();
    const kindScope = (kind: string): string[] => {
      const token = grammar
        .tokenizeLine(`filter f: ${kind} { properties: ["id"] }`, vsctm.INITIAL)
        .tokens.find((t) => t.startIndex === 'filter f: '.length);
      return token?.scopes ?? [];
    };
    expect(FILTER_KINDS.length).to.be.greaterThan(5);
    for (const { name } of FILTER_KINDS) expect(kindScope(name), name).to.include('support.type.filter-kind.apidsl');
    expect(kindScope('serach')).to.include('invalid.illegal.filter-kind.apidsl');
  });

  describe('on the examples', () => {
    let grammar: vsctm.IGrammar;
    before(async () => {
      grammar = await loadGrammar();
    });
    const files = [
      ...readdirSync(fromRoot('examples'))
        .filter((f) => f.endsWith('.api'))
        .map((f) => `examples/${f}`),
      'test/fixtures/lsp/features.api',
    ];
    for (const file of files) {
      it(`tokenizes ${file} with no invalid token, back at the top level at its end`, () => {
        let state = vsctm.INITIAL;
        const lines = readFileSync(fromRoot(file), 'utf8').split(/\r?\n/);
        lines.forEach((line, i) => {
          const { tokens, ruleStack } = grammar.tokenizeLine(line, state);
          for (const t of tokens) {
            const invalid = t.scopes.find((s) => s.startsWith('invalid'));
            expect(invalid, `${file}:${i + 1}:${t.startIndex + 1} ${line.slice(t.startIndex, t.endIndex)}`).to.equal(
              undefined,
            );
          }
          state = ruleStack;
        });
        // Back at the top level: a declaration after the file is scoped as at the file's start.
        const after = grammar.tokenizeLine('filter zz: search', state).tokens[0];
        expect(after.scopes, `${file} ends inside a block`).to.deep.equal([
          'source.apidsl',
          'keyword.declaration.filter.apidsl',
        ]);
      });
    }
  });
});
