/**
 * The checker on `maxDepth` (docs/behaviour.md, "Embedded relations"): on relations only, a positive integer, and
 * a warning when no normalizationContext enables max depth (it would then have no effect).
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

const codes = (text: string): [string, string][] => check(text).all.map((d) => [d.code, d.severity]);

const api = (context: string, constraint = 'maxDepth: 1'): string => `resource Person {
  ${context}
  properties { id: int, mentor: Person { groups: ["read"], ${constraint} } }
}`;

describe('checker: maxDepth', () => {
  it('accepts maxDepth on a relation where a normalizationContext enables max depth', () => {
    expect(codes(api('normalizationContext: { groups: ["read"], enable_max_depth: true }'))).to.deep.equal([]);
    const onOperation = `resource Person {
  properties { id: int, mentor: Person { maxDepth: 2 } }
  operations { Get { normalizationContext: { groups: ["read"], enable_max_depth: true } } }
}`;
    expect(codes(onOperation)).to.deep.equal([]);
  });

  it('warns that maxDepth has no effect when no context enables max depth', () => {
    expect(codes(api('normalizationContext: { groups: ["read"] }'))).to.deep.equal([['option-ineffective', 'warning']]);
    expect(codes(api('normalizationContext: { enable_max_depth: false }'))).to.deep.equal([
      ['option-ineffective', 'warning'],
    ]);
  });

  it('refuses maxDepth on a property that is no relation, and a depth below 1', () => {
    const scalar = `resource Person {
  normalizationContext: { enable_max_depth: true }
  properties { id: int, name: string { maxDepth: 1 } }
}`;
    expect(codes(scalar).map(([code]) => code)).to.deep.equal(['option-not-allowed']);
    expect(codes(api('normalizationContext: { enable_max_depth: true }', 'maxDepth: 0'))).to.have.length(1);
  });
});
