/**
 * Incremental parsing (grammar/reparse.ts) gives exactly what a full parse and check give, after
 * every edit of long random sequences of edits to real files: the examples and a generated file.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type ParseResult } from '../../grammar/parse.js';
import { checkParsed } from '../../grammar/checker/index.js';
import { reparse } from '../../grammar/reparse.js';
import { generateApi } from '../bench/generate.js';
import { fromRoot } from '../support/paths.js';

/** What an editor inserts: typed characters, brackets, quotes, comments, line breaks, whole declarations. */
const SNIPPETS = [
  'a',
  'x',
  '_',
  '1',
  '-',
  ' ',
  '\n',
  '\r\n',
  '\t',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  ':',
  ',',
  '\\',
  '/',
  '/*',
  '*/',
  '//',
  'é',
  '😀',
  'resource X {\n',
  '}\n',
  '\nresource',
  'resource',
  'filter F: order { properties: ["id"] }\n',
  'mutator resource X: "./m.mjs#m"\n',
  '  title: string\n',
  'properties {',
  'operations {',
  'Get',
  'api "x"',
  'config {',
  'paginationItemsPerPage: 3',
  'security: "is_granted(\'X\')"',
];

interface Edit {
  /** Where (a fraction of the text's length), how much is deleted, and what is inserted. */
  at: number;
  remove: number;
  insert: string;
}

const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  remove: fc.oneof(fc.constant(0), fc.nat({ max: 12 }), fc.nat({ max: 200 })),
  insert: fc.oneof(fc.constantFrom(...SNIPPETS), fc.string({ maxLength: 4 }), fc.constant('')),
});

function apply(text: string, e: Edit): string {
  const at = Math.floor(e.at * text.length);
  return text.slice(0, at) + e.insert + text.slice(at + e.remove);
}

const files: [string, string][] = [
  ...readdirSync(fromRoot('examples'))
    .filter((f) => f.endsWith('.api'))
    .map((f): [string, string] => [f, readFileSync(join(fromRoot('examples'), f), 'utf8')]),
  ['generated (300 lines)', generateApi(300)],
];

describe('incremental parsing equals a full parse', () => {
  for (const [name, original] of files) {
    it(`after every edit of random edit sequences on ${name}`, () => {
      let edits = 0;
      let incremental = 0;
      fc.assert(
        fc.property(fc.array(edit, { minLength: 1, maxLength: 40 }), (sequence) => {
          let text = original;
          let previous: ParseResult = parse(text);
          for (const e of sequence) {
            text = apply(text, e);
            const full = parse(text);
            const reparsed = reparse(previous, text);
            edits++;
            if (reparsed) {
              incremental++;
              expect(reparsed.document).to.deep.equal(full.document);
              expect(reparsed.diagnostics).to.deep.equal(full.diagnostics);
              expect(reparsed.splits).to.deep.equal(full.splits);
              expect(checkParsed(reparsed).all).to.deep.equal(checkParsed(full).all);
            }
            previous = reparsed ?? full;
          }
        }),
        { numRuns: 40 },
      );
      // Not vacuous: most edits took the incremental path.
      expect(incremental / edits).to.be.greaterThan(0.3);
    });
  }

  it('re-parses typing in the middle of a generated file incrementally', () => {
    const original = generateApi(2000);
    const at = original.indexOf('paginationItemsPerPage', original.length / 2);
    let previous = parse(original);
    let text = original;
    for (const typed of ['x', 'xy', 'xyz', 'xy', 'x', '']) {
      text = original.slice(0, at) + typed + original.slice(at);
      const reparsed = reparse(previous, text);
      expect(reparsed, `after typing '${typed}'`).to.not.equal(undefined);
      expect(checkParsed(reparsed!).all).to.deep.equal(checkParsed(parse(text)).all);
      previous = reparsed!;
    }
  });
});
