/**
 * `owned` (docs/behaviour.md, "Owned items"): a boolean on a to-many relation only. A to-one relation, a list of
 * values or a plain property is refused with a diagnostic naming what it applies to; a value other than a boolean too.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (property: string): string => `resource OrderLine {
  properties { id: int { identifier: true }, quantity: int }
  operations {}
}
resource Order {
  properties {
    id: int { identifier: true }
    ${property}
  }
  operations { Get }
}
`;

describe('checker: owned', () => {
  it('accepts true and false on a to-many relation, the owned resource without operations', () => {
    for (const value of ['true', 'false'])
      expect(findings(api(`lines: OrderLine[] { owned: ${value} }`)), value).to.deep.equal([]);
  });

  it('refuses it on a to-one relation, a list of values and a plain property, naming what it applies to', () => {
    for (const [type, shown] of [
      ['OrderLine', 'OrderLine'],
      ['string[]', 'string[]'],
      ['int', 'int'],
    ]) {
      const found = findings(api(`lines: ${type} { owned: true }`));
      expect(found, type).to.have.length(1);
      expect(found[0], type).to.include({ code: 'option-not-allowed', severity: 'error', at: 'owned' });
      expect(found[0].message, type).to.equal(
        `'owned' applies to to-many relation (Resource[]) properties, not to 'lines' of type ${shown}`,
      );
    }
  });

  it('refuses a value that is not a boolean', () => {
    const found = findings(api('lines: OrderLine[] { owned: "yes" }'));
    expect(found.map((f) => f.code)).to.deep.equal(['invalid-value']);
  });
});
