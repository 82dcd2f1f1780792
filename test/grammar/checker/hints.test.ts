/**
 * Hints for what people write from other languages, each with the quick fix `apidsl check --fix` and the
 * editor apply: a single-quoted string (`'1.0.0'`), a type named as elsewhere (`integer`, `boolean`…), and an
 * enum written as a type (`status: enum { … }`).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { PROPERTY_TYPES } from '../../../grammar/catalogue/index.js';
import { check } from '../../../grammar/checker/index.js';
import { applyEdits, automaticFixes, fixesFor } from '../../../grammar/fixes.js';

const findings = (text: string): { code: string; message: string; at: string; suggestion?: string }[] =>
  check(text)
    .all.filter((d) => d.severity !== 'hint')
    .map((d) => ({
      code: d.code,
      message: d.message,
      at: text.slice(d.range.start, d.range.end),
      suggestion: d.suggestion,
    }));

/** The text after `apidsl check --fix` (every automatic fix, pass after pass, as the command applies them). */
function fixed(text: string): string {
  for (let pass = 0; pass < 5; pass++) {
    const fixes = automaticFixes(text, check(text));
    if (!fixes.length) return text;
    text = applyEdits(
      text,
      fixes.flatMap((f) => f.edits),
    );
  }
  return text;
}

const talk = (props: string): string =>
  `api "Talks" { version: "1.0.0" }\n\nresource Talk {\n  properties {\n    id: int\n    ${props}\n  }\n}\n`;

describe('checker hints: single-quoted strings', () => {
  it('\'1.0.0\' is one error, at the string, saying to write "1.0.0" (no cascade), and the fix writes it', () => {
    const text = 'api "Talks" { version: \'1.0.0\' }\n\nresource Talk { properties { id: int } }\n';
    expect(findings(text)).to.deep.equal([
      {
        code: 'invalid-character',
        message: `strings use double quotes: write "1.0.0" instead of '1.0.0'`,
        at: "'1.0.0'",
        suggestion: '"1.0.0"',
      },
    ]);
    const [d] = check(text).all;
    expect(fixesFor(text, check(text), d).map((f) => f.title)).to.deep.equal(['Use double quotes: "1.0.0"']);
    expect(fixed(text)).to.equal(text.replace("'1.0.0'", '"1.0.0"'));
  });

  it('any single-quoted string, wherever a value goes, is read as the string it means and fixed to it', () => {
    const chars = fc.constantFrom('a', '1', '.', ' ', '"', 'é', '{', ':', ',', '/', '[', '😀', '\t');
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 12 }).map((a) => a.join('')),
        (s) => {
          fc.pre(!/['\\\r\n]/.test(s));
          const text = talk(`title: string { default: '${s}', maxLength: 100 }`);
          const all = findings(text);
          expect(all, JSON.stringify(all)).to.have.length(1);
          expect(all[0]).to.include({
            code: 'invalid-character',
            at: `'${s}'`,
            suggestion: `"${s.replace(/"/g, '\\"')}"`,
          });
          const after = fixed(text);
          expect(findings(after)).to.deep.equal([]);
          expect(after).to.include(`default: ${all[0].suggestion}, maxLength: 100`);
          const read = check(text).model.resources.get('Talk')!.properties.get('title')!.constraints.get('default');
          expect(read?.value).to.deep.include({ kind: 'string', value: s });
        },
      ),
    );
  });

  it('a single quote never closed on its line is an unterminated string', () => {
    const text = `api "Talks" {\n  version: '1.0.0\n}\n`;
    expect(findings(text)[0]).to.include({
      code: 'unterminated-string',
      message: 'unterminated string: strings use double quotes, closed on their line',
      at: "'1.0.0",
    });
  });

  it('keeps the escapes JSON has, and gives no fix for one it has not', () => {
    expect(findings(talk(`title: string { default: 'a\\tb\\u00e9' }`))[0].suggestion).to.equal('"a\\tb\\u00e9"');
    const [d] = findings(talk(`title: string { default: 'a\\qb' }`));
    expect(d).to.include({
      code: 'invalid-character',
      message: "strings use double quotes, not 'a\\qb'",
      suggestion: undefined,
    });
  });
});

describe('checker hints: types as other languages name them', () => {
  const cases = PROPERTY_TYPES.flatMap((t) => (t.writtenElsewhere ?? []).map((w) => [w, t.name] as const));

  it('covers the names the issue lists', () => {
    const meant = new Map(cases);
    for (const [w, t] of [
      ['integer', 'int'],
      ['boolean', 'bool'],
      ['float', 'number'],
      ['double', 'number'],
      ['decimal', 'number'],
      ['text', 'string'],
      ['timestamp', 'datetime'],
      ['object', 'json'],
    ])
      expect(meant.get(w), w).to.equal(t);
  });

  for (const [written, meant] of cases) {
    const capitalised = written[0].toUpperCase() + written.slice(1);
    it(`'${written}' and '${capitalised}' (also as T[]) are refused with "did you mean '${meant}'?" and its fix`, () => {
      for (const w of [written, capitalised]) {
        for (const array of ['', '[]']) {
          const text = talk(`rating: ${w}${array}`);
          expect(findings(text)).to.deep.equal([
            {
              code: 'unknown-type',
              message: `unknown property type '${w}'; did you mean '${meant}'?`,
              at: w,
              suggestion: meant,
            },
          ]);
          expect(fixed(text)).to.equal(talk(`rating: ${meant}${array}`));
        }
      }
    });
  }

  it('a resource of that name is a relation, not a mistake', () => {
    const text = `${talk('body: Text')}\nresource Text { properties { id: int } }\n`;
    expect(findings(text)).to.deep.equal([]);
  });
});

describe('checker hints: enum written as a type', () => {
  for (const [written, meant] of [
    ['status: enum { "draft", "published" }', 'status: string { enum: ["draft", "published"] }'],
    ['status: enum ["draft", "published"]', 'status: string { enum: ["draft", "published"] }'],
    ['status: enum { "draft" }', 'status: string { enum: ["draft"] }'],
    ['level: enum [1, 2, 3]', 'level: int { enum: [1, 2, 3] }'],
    ['level: number [1.5, 2]', 'level: number { enum: [1.5, 2] }'],
    ["status: enum ['draft', 'published']", 'status: string { enum: ["draft", "published"] }'],
  ]) {
    it(`${written} → ${meant}`, () => {
      const text = talk(written);
      const all = findings(text).filter((d) => d.code !== 'invalid-character');
      expect(all, JSON.stringify(all)).to.have.length(1);
      const base = meant.slice(meant.indexOf(':') + 2);
      expect(all[0]).to.include({
        code: 'enum-list',
        message: `an enumeration is a ${base.split(' ')[0]} with the enum constraint: write ${base}`,
      });
      expect(fixed(text)).to.equal(talk(meant));
    });
  }

  it('with options after the list: the fix moves the values into them as enum', () => {
    const text = talk('status: enum ["a", "b"] { required: true }\n    level: enum [1, 2] {}\n    title: string');
    const all = findings(text);
    expect(all.map((d) => [d.code, d.at, d.suggestion])).to.deep.equal([
      ['enum-list', 'enum ["a", "b"]', undefined],
      ['enum-list', 'enum [1, 2]', undefined],
    ]);
    const [d] = check(text).all;
    expect(fixesFor(text, check(text), d).map((f) => f.title)).to.deep.equal([
      'Write string and move the values into its enum',
    ]);
    expect(fixed(text)).to.equal(
      talk('status: string { enum: ["a", "b"], required: true }\n    level: int { enum: [1, 2] }\n    title: string'),
    );
  });

  it('`enum` alone says there is no enum type', () => {
    expect(findings(talk('status: enum'))).to.deep.equal([
      {
        code: 'unknown-type',
        message:
          'there is no enum type: an enumeration is a string (or int) with the enum constraint, string { enum: ["a", "b"] }',
        at: 'enum',
        suggestion: undefined,
      },
    ]);
  });

  it('the properties after a mistaken enum are still read (one error, not a cascade)', () => {
    const text = talk('status: enum { "a", "b" }\n    rating: integer\n    title: string { maxLength: "x" }');
    expect(findings(text).map((d) => d.code)).to.deep.equal(['enum-list', 'unknown-type', 'invalid-value']);
  });
});
