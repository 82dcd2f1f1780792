/**
 * `onDelete` (docs/behaviour.md, "Deleting a referenced item"): a relation constraint whose value is a referential
 * action; the checker refuses it on other properties, refuses other values, and refuses `setNull` on a required
 * relation (the referencing items would be left without a value they must have).
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (property: string): string => `resource Author {
  properties { id: int { identifier: true }, name: string }
  operations { Get, Delete }
}
resource Book {
  properties {
    id: int { identifier: true }
    ${property}
  }
  operations { Get }
}
`;

describe('checker: onDelete', () => {
  it('accepts every action on a to-one and a to-many relation, as a string or a bare word', () => {
    for (const action of ['restrict', 'cascade', 'setNull', '"restrict"', '"cascade"', '"setNull"'])
      for (const type of ['Author', 'Author[]'])
        expect(findings(api(`author: ${type} { onDelete: ${action} }`)), `${type} ${action}`).to.deep.equal([]);
  });

  it('is an error on a property that is not a relation, for every built-in type', () => {
    for (const type of ['int', 'number', 'string', 'bool', 'datetime', 'date', 'json', 'string[]']) {
      const found = findings(api(`name2: ${type} { onDelete: cascade }`));
      expect(found, type).to.have.length(1);
      expect(found[0], type).to.include({ code: 'option-not-allowed', severity: 'error', at: 'onDelete' });
      expect(found[0].message, type).to.equal(
        `'onDelete' applies to relation (Resource, Resource[]) properties, not to 'name2' of type ${type}`,
      );
    }
  });

  it('refuses another action, proposing the closest one', () => {
    const [d] = findings(api('author: Author { onDelete: cascde }'));
    expect(d).to.include({ code: 'invalid-value', severity: 'error', at: 'cascde', suggestion: 'cascade' });
    expect(d.message).to.contain('"restrict" | "cascade" | "setNull"');
    expect(findings(api('author: Author { onDelete: "nullify" }')).map((x) => x.code)).to.deep.equal(['invalid-value']);
    expect(findings(api('author: Author { onDelete: true }')).map((x) => x.code)).to.have.length(1);
  });

  it('refuses setNull on a required relation (short and object form), and accepts the other actions there', () => {
    for (const required of ['required: true', 'required: { value: true, groups: ["create"] }']) {
      const found = findings(api(`author: Author { ${required}, onDelete: setNull }`));
      expect(found, required).to.have.length(1);
      expect(found[0], required).to.include({ code: 'invalid-value', severity: 'error', at: 'setNull' });
      expect(found[0].message).to.equal(
        `onDelete: setNull cannot apply to 'author', which is required: the referencing items would be left without it; use "restrict" or "cascade", or make 'author' optional`,
      );
      expect(findings(api(`author: Author { ${required}, onDelete: cascade }`)), required).to.deep.equal([]);
    }
    expect(findings(api('author: Author { required: false, onDelete: setNull }'))).to.deep.equal([]);
  });
});
