/**
 * Every file of test/fixtures/broken/ states the diagnostics it must produce in header lines
 * `// expect: CODE LINE:COL [SUGGESTION]` (and `// expect-also:` anywhere); the checker must
 * report exactly those, at those positions.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from '../../grammar/checker/index.js';
import { fromRoot } from '../support/paths.js';

const dir = fromRoot('test/fixtures/broken');

interface Expected {
  code: string;
  at: string;
  suggestion?: string;
}

function expectations(text: string): Expected[] {
  return [...text.matchAll(/\/\/ expect(?:-also)?: (\S+) (\d+:\d+)(?: (\S+))?/g)].map((m) => ({
    code: m[1],
    at: m[2],
    ...(m[3] ? { suggestion: m[3] } : {}),
  }));
}

describe('broken files: each defect reported with its code, line and column', () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.api'))
    .sort();
  it('the corpus is not empty', () => expect(files.length).to.be.greaterThan(30));
  for (const file of files) {
    it(file, () => {
      const text = readFileSync(join(dir, file), 'utf8');
      const result = check(text, { baseDir: dir });
      const actual = result.all.map((d) => {
        const p = result.lines.position(d.range.start);
        return { code: d.code, at: `${p.line + 1}:${p.character + 1}`, suggestion: d.suggestion, message: d.message };
      });
      const wanted = expectations(text);
      expect(wanted, 'fixture has expectations').to.not.be.empty;
      expect(actual.map((a) => `${a.code} ${a.at}`).sort(), JSON.stringify(actual, null, 1)).to.deep.equal(
        wanted.map((w) => `${w.code} ${w.at}`).sort(),
      );
      for (const w of wanted.filter((x) => x.suggestion)) {
        const d = actual.find((a) => a.code === w.code && a.at === w.at)!;
        expect(d.suggestion).to.equal(w.suggestion);
        expect(d.message).to.include(`'${w.suggestion}'`);
      }
    });
  }
});
