/**
 * Property-based fuzzing: the parser and checker never throw and never produce an invalid
 * range, whatever mutation a valid file goes through (the editor's everyday broken text).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { check } from '../../grammar/checker/index.js';
import { fromRoot } from '../support/paths.js';

const seed = readFileSync(fromRoot('examples/bookstore.api'), 'utf8');
const pieces = ['{', '}', '[', ']', ':', ',', '"', '/*', '*/', '//', '\n', ' ', 'resource', 'Get', 'x', '-1', '📚', 'é', '\\', 'null', 'properties', 'operations {'];

type Mutation = { at: number; del: number; insert: string };

const mutation = fc.record({
  at: fc.nat(),
  del: fc.nat({ max: 12 }),
  insert: fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 }), fc.constant('')),
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
    expect(Number.isInteger(d.range.start) && Number.isInteger(d.range.end), `${d.code} ${JSON.stringify(d.range)}`).to.equal(true);
    expect(d.range.start).to.be.within(0, text.length);
    expect(d.range.end).to.be.within(d.range.start, text.length);
    expect(d.message).to.be.a('string').and.not.empty;
  }
}

describe('fuzzing the front end', () => {
  it('never throws or yields an invalid range on mutated files', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 8 }), (mutations) => assertValid(apply(seed, mutations))),
      { numRuns: 400 },
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (text) => assertValid(text)), { numRuns: 300 });
  });

  it('never throws on token soup', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => assertValid(parts.join(' '))),
      { numRuns: 300 },
    );
  });
});
