/**
 * Unique values in the checker: `unique: true` is a constraint of scalar and to-one relation properties (not of
 * lists nor json), and the resource option `unique` names properties of the resource that a unique index can
 * hold; an unknown name is an error at that name with the closest property suggested.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (properties: string, options = ''): string => `resource Shop {
  properties { id: int { identifier: true } }
  operations { Get }
}
resource Product {
  ${options}
  properties {
    id: int { identifier: true }
    shop: Shop
    sku: string
    tags: string[]
    meta: json
    ${properties}
  }
  operations { Get, Post }
}
`;

describe('checker: unique values', () => {
  it('accepts unique: true on scalars and relations, and a composite list of such properties', () => {
    for (const p of [
      'a: string { unique: true }',
      'a: int { unique: true, required: true }',
      'a: Shop { unique: true }',
      'a: date { unique: false }',
    ])
      expect(findings(api(p)), p).to.deep.equal([]);
    expect(findings(api('', 'unique: [["shop", "sku"], ["sku"]]'))).to.deep.equal([]);
  });

  it('finds the unique option where uniqueItems was suggested before, and suggests it for a near miss', () => {
    const [typo] = findings(api('a: string { uniqe: true }'));
    expect(typo).to.include({ code: 'unknown-option', at: 'uniqe', suggestion: 'unique' });
  });

  it('refuses unique on a list or a json property', () => {
    expect(findings(api('a: string[] { unique: true }'))).to.deep.equal([
      {
        code: 'option-not-allowed',
        severity: 'error',
        message: `'unique' does not apply to the list 'a' (uniqueItems checks its elements)`,
        at: 'unique',
        suggestion: undefined,
      },
    ]);
    const [json] = findings(api('a: json { unique: true }'));
    expect(json).to.include({ code: 'option-not-allowed', at: 'unique' });
    expect(json!.message).to.match(/^'unique' applies to .* properties, not to 'a' of type json$/);
  });

  it('reports an unknown property of a composite list at its name, with the closest one', () => {
    expect(findings(api('', 'unique: [["shop", "skuu"]]'))).to.deep.equal([
      {
        code: 'unknown-property',
        severity: 'error',
        message: `unknown property of 'Product' 'skuu'; did you mean 'sku'?`,
        at: '"skuu"',
        suggestion: 'sku',
      },
    ]);
  });

  it('refuses a list or json property, and an empty list, in a composite list', () => {
    const found = findings(api('', 'unique: [["shop", "tags"], ["meta"], []]'));
    expect(found.map((f) => [f.code, f.at, f.message])).to.deep.equal([
      ['option-not-allowed', '"tags"', `'tags' cannot be part of a unique list: it is a list`],
      ['option-not-allowed', '"meta"', `'meta' cannot be part of a unique list: it is of type json`],
      ['invalid-value', '[]', 'a unique list names at least one property'],
    ]);
  });

  it('refuses a composite list that is not a list of lists of names', () => {
    const [found] = findings(api('', 'unique: ["shop", "sku"]'));
    expect(found).to.include({ code: 'invalid-value' });
  });
});
