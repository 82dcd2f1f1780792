/**
 * Property-based fuzzing: the parser and checker never throw and never produce an invalid
 * range, whatever mutation a valid file goes through (the editor's everyday broken text); and a bounded, seeded
 * replay of the long run (`npm run fuzz`): the texts fuzzing found defects in and a fixed set of mutants.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { check } from '../../grammar/checker/index.js';
import { format } from '../../grammar/format.js';
import { frontEndDefects } from '../support/front-end-defects.js';
import { BASIC_PIECES, bookstoreText, exampleTexts, mutant } from '../support/mutants.js';

const seed = bookstoreText();

/** Texts fuzzing found defects in (issue 31): a hint's range, a comment holding NUL that fmt changed. */
const FOUND = [
  'resource B s{}operations GetCollection{paginationType:u}}}',
  'resource B s{}operations GetCollection{options:u}}}',
  'resource B {\n  operations { GetCollection { class: "X" } } // \u0000\n}\n',
  '// \u0000 comment\nresource B {\n  properties { id: int }  /* \u0000 */\n}\n',
];

type Mutation = { at: number; del: number; insert: string };

const mutation = fc.record({
  at: fc.nat(),
  del: fc.nat({ max: 12 }),
  insert: fc.oneof(fc.constantFrom(...BASIC_PIECES), fc.string({ maxLength: 6 }), fc.constant('')),
});

function apply(text: string, mutations: Mutation[]): string {
  let t = text;
  for (const m of mutations) {
    const at = m.at % (t.length + 1);
    t = t.slice(0, at) + m.insert + t.slice(at + m.del);
  }
  return t;
}

function assertValid(text: string): void {
  const result = check(text);
  for (const d of result.all) {
    expect(
      Number.isInteger(d.range.start) && Number.isInteger(d.range.end),
      `${d.code} ${JSON.stringify(d.range)}`,
    ).to.equal(true);
    expect(d.range.start).to.be.within(0, text.length);
    expect(d.range.end).to.be.within(d.range.start, text.length);
    expect(d.message).to.be.a('string').and.not.empty;
  }
}

describe('fuzzing the front end', () => {
  it('never throws or yields an invalid range on mutated files', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 8 }), (mutations) =>
        assertValid(apply(seed, mutations)),
      ),
      { numRuns: 400 },
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => assertValid(text)),
      { numRuns: 300 },
    );
  });

  it('never throws on token soup', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...BASIC_PIECES), { maxLength: 60 }), (parts) =>
        assertValid(parts.join(' ')),
      ),
      { numRuns: 300 },
    );
  });

  it('finds no defect in the texts fuzzing found them in, nor in 600 seeded mutants of the examples', () => {
    const examples = exampleTexts();
    const corpus: [string, string][] = [
      ...FOUND.map((text, i): [string, string] => [`found ${i}`, text]),
      ...Array.from({ length: 600 }, (_, n): [string, string] => [`mutant 12/${n}`, mutant(12, n, examples)]),
    ];
    const defects = corpus.flatMap(([name, text]) =>
      frontEndDefects(text).map((d) => `${name}: ${d.kind} ${d.detail.slice(0, 200)}`),
    );
    expect(defects, defects.join('\n')).to.deep.equal([]);
  });

  it('reports brackets nested too deeply, with their position, in check and refuses to format them', () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{', '}'],
      ['{a: ', '}'],
      ['[{', '}]'],
    ]) {
      for (const closed of [true, false]) {
        const prefix = 'resource Book {\n  operations { Get { x: ';
        const text = `${prefix}${open.repeat(5000)}${closed ? close.repeat(5000) : ''} } }\n}\n`;
        const started = Date.now();
        const deep = check(text).all.filter((d) => d.code === 'nested-too-deeply');
        // Generous for a loaded machine; what it rules out (work growing faster than the text) takes far longer.
        expect(Date.now() - started).to.be.below(15_000);
        expect(deep, `${open} ${closed}`).to.have.length(1);
        expect(deep[0]!.message).to.contain('nested too deeply');
        expect(deep[0]!.range.start)
          .to.be.above(prefix.length)
          .and.below(prefix.length + 32 * open.length + 1);
        const formatted = format(text);
        expect(formatted.ok).to.equal(false);
        expect(!formatted.ok && formatted.reason).to.match(/^line 2: /);
      }
    }
    // 32 levels are read as usual.
    const fine = `resource Book {\n  operations { Get { normalizationContext: { a: ${'['.repeat(28)}${']'.repeat(28)} } } }\n}\n`;
    expect(check(fine).all.map((d) => d.code)).not.to.include('nested-too-deeply');
  });
});
