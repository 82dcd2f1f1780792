/**
 * Checker findings that would otherwise surface as confusing run-time behaviour: a default
 * outside the enum, a range filter on text, misspelt
 * operation kinds and single-quoted strings, and CORS origin patterns.
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';
import { findings } from '../../support/findings.js';

const book = (props: string, ops = 'GetCollection\n    Post', filters = ''): string =>
  `${filters}\nresource Book {\n  properties {\n    id: int { identifier: true }\n    ${props}\n  }\n  operations {\n    ${ops}\n  }\n}\n`;

describe('checker: a default outside the enum', () => {
  it('is an error naming both, saying what a write would get, and proposing the closest value', () => {
    const [d] = findings(book('status: string { enum: ["draft", "published"], default: "drafted" }'));
    expect(d).to.include({ code: 'default-not-in-enum', severity: 'error', at: '"drafted"', suggestion: 'draft' });
    expect(d.message).to.equal(
      `the default of 'status' ("drafted") is not one of its enum values ("draft", "published"): every write that omits 'status' would answer 422; did you mean 'draft'?`,
    );
  });

  it('checks numbers and each item of a list default', () => {
    expect(findings(book('level: int { enum: [1, 2, 3], default: 4 }')).map((d) => [d.code, d.at])).to.deep.equal([
      ['default-not-in-enum', '4'],
    ]);
    expect(
      findings(book('tags: string[] { enum: ["a", "b"], default: ["a", "c"] }')).map((d) => [d.code, d.at]),
    ).to.deep.equal([['default-not-in-enum', '"c"']]);
  });

  it('accepts a default among the enum values, a null default, and a default without an enum', () => {
    expect(findings(book('status: string { enum: ["draft", "published"], default: "draft" }'))).to.deep.equal([]);
    expect(findings(book('tags: string[] { enum: ["a", "b"], default: ["b", "a"] }'))).to.deep.equal([]);
    expect(findings(book('status: string { enum: ["draft"], default: null, nullable: true }'))).to.deep.equal([]);
    expect(findings(book('status: string { default: "anything" }'))).to.deep.equal([]);
  });
});

describe('checker: a range filter on a property it cannot compare', () => {
  it('is an error on a string property, pointing at search and order filters', () => {
    const [d] = findings(
      book('title: string', 'GetCollection { filters: ["r"] }', 'filter r: range { properties: ["title"] }'),
    );
    expect(d).to.include({ code: 'filter-property-type', severity: 'error', at: '"title"' });
    expect(d.message).to.equal(
      `range filter 'r' applies to int, number, datetime, date, but 'title' of 'Book' is string: use a search filter to match text, or an order filter to sort it`,
    );
  });

  it('is an error on bool and list properties too', () => {
    const text = book(
      'done: bool\n    scores: int[]',
      'GetCollection { filters: ["r"] }',
      'filter r: range { properties: ["done", "scores"] }',
    );
    expect(findings(text).map((d) => [d.code, d.at])).to.deep.equal([
      ['filter-property-type', '"done"'],
      ['filter-property-type', '"scores"'],
    ]);
  });

  it('accepts int, number, datetime and date properties', () => {
    const text = book(
      'n: int\n    x: number\n    at: datetime\n    on: date',
      'GetCollection { filters: ["r"] }',
      'filter r: range { properties: ["id", "n", "x", "at", "on"] }',
    );
    expect(findings(text)).to.deep.equal([]);
  });
});

describe("checker: an order filter's nulls_comparison", () => {
  it('is a not-supported warning where it is written (nulls always sort as the smallest values)', () => {
    const text = book(
      'n: int',
      'GetCollection { filters: ["o"] }',
      'filter o: order { properties: ["n"], nulls_comparison: "nulls_largest" }',
    );
    expect(check(text).all.map((d) => [d.code, d.severity, text.slice(d.range.start, d.range.end)])).to.deep.equal([
      ['not-supported', 'warning', 'nulls_comparison'],
    ]);
  });
});

describe('checker: closest-name and quoting help', () => {
  for (const [typo, meant] of [
    ['Pots', 'Post'],
    ['Gte', 'Get'],
    ['GetColletion', 'GetCollection'],
    ['Dleete', 'Delete'],
    ['post', 'Post'],
  ]) {
    it(`operation kind '${typo}' gets "did you mean '${meant}'?"`, () => {
      const [d] = findings(book('name: string', typo));
      expect(d).to.include({ code: 'unknown-operation-kind', at: typo, suggestion: meant });
      expect(d.message).to.equal(`unknown operation kind '${typo}'; did you mean '${meant}'?`);
    });
  }

  it('a single-quoted string is one error saying to use double quotes, with the fixed string', () => {
    const text = 'api \'Books\' { version: "1" }\n';
    const all = findings(text);
    expect(all).to.have.length(1);
    expect(all[0]).to.include({ code: 'invalid-character', at: "'Books'", suggestion: '"Books"' });
    expect(all[0].message).to.equal(`strings use double quotes: write "Books" instead of 'Books'`);
  });

  it('keeps escaped quotes and double quotes inside a single-quoted string', () => {
    const [d] = findings(book(`title: string { default: 'it\\'s "new"' }`));
    expect(d.suggestion).to.equal('"it\'s \\"new\\""');
  });
});

describe('checker: CORS origins', () => {
  it('accepts exact origins, "*" and patterns; rejects a pattern that does not compile', () => {
    const ok = 'config {\n  cors { allow_origin: ["https://a.example", "*", "^https://(x|y)\\\\.example$"] }\n}\n';
    expect(findings(ok)).to.deep.equal([]);
    const [d] = findings('config {\n  cors { allow_origin: ["^https://(x"] }\n}\n');
    expect(d).to.include({ code: 'invalid-value', at: '"^https://(x"' });
    expect(d.message).to.include('regular expression');
  });
});
