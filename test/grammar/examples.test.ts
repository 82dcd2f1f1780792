import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from '../../grammar/checker/index.js';
import { fromRoot } from '../support/paths.js';

describe('examples/: every file checks clean', () => {
  const dir = fromRoot('examples');
  const files = readdirSync(dir).filter((f) => f.endsWith('.api'));
  it('has the bookstore and at least three more examples', () => {
    expect(files).to.include('bookstore.api');
    expect(files.length).to.be.at.least(4);
  });
  for (const file of files) {
    it(file, () => {
      const result = check(readFileSync(join(dir, file), 'utf8'), { baseDir: dir });
      expect(result.all.map((d) => `${d.severity} ${d.code}: ${d.message}`)).to.deep.equal([]);
    });
  }
});

/** The Markdown texts a user reads: the README and the pages of docs/. */
const PAGES = [
  'README.md',
  ...readdirSync(fromRoot('docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the README and docs/: every whole .api file they show checks clean', () => {
  const blocks = PAGES.flatMap((page) =>
    [...readFileSync(fromRoot(page), 'utf8').matchAll(/^```[a-z]*\n(api "[^]*?)^```$/gm)].map((m) => ({
      page,
      text: m[1],
    })),
  );
  it('the README shows at least one, and so does docs/language.md', () => {
    expect(blocks.filter((b) => b.page === 'README.md')).to.have.length.of.at.least(1);
    expect(blocks.filter((b) => b.page === 'docs/language.md')).to.have.length.of.at.least(1);
  });
  blocks.forEach(({ page, text }, i) => {
    it(`${page}, block ${i + 1}: ${text.split('\n')[0]}`, () => {
      const result = check(text, { baseDir: fromRoot('examples') });
      expect(result.all.map((d) => `${d.severity} ${d.code}: ${d.message}`)).to.deep.equal([]);
    });
  });
});
