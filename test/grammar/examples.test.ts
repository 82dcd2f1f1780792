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

describe('README: every whole .api file it shows checks clean', () => {
  const blocks = [...readFileSync(fromRoot('README.md'), 'utf8').matchAll(/^```[a-z]*\n(api "[^]*?)^```$/gm)].map(
    (m) => m[1],
  );
  it('shows at least one', () => expect(blocks.length).to.be.at.least(1));
  blocks.forEach((text, i) => {
    it(`block ${i + 1}: ${text.split('\n')[0]}`, () => {
      const result = check(text, { baseDir: fromRoot('examples') });
      expect(result.all.map((d) => `${d.severity} ${d.code}: ${d.message}`)).to.deep.equal([]);
    });
  });
});
