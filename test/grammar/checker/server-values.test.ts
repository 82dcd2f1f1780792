/**
 * Values the server sets (docs/behaviour.md, "Values the server sets"): `default: now` and `onUpdate: now` on
 * datetime and date properties only, `default: { expression: "…" }` checked as a security expression with `user`
 * alone in scope, and literal defaults still checked against the property's type.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (
  property: string,
  config = 'security { jwt { secret_env: "JWT_SECRET" } }',
): string => `config { ${config} }
resource Entry {
  properties {
    id: int { identifier: true }
    ${property}
  }
  operations { Get, Post }
}
`;

describe('checker: values the server sets', () => {
  it('accepts default: now and onUpdate: now on datetime and date, with readOnly either way', () => {
    for (const type of ['datetime', 'date'])
      for (const constraints of ['default: now', 'onUpdate: now', 'default: now, onUpdate: now, readOnly: false'])
        expect(findings(api(`at: ${type} { ${constraints} }`)), `${type} ${constraints}`).to.deep.equal([]);
  });

  it('refuses default: now on any other type, a list of times included, with a clear message', () => {
    for (const type of ['int', 'number', 'string', 'bool', 'json', 'datetime[]']) {
      const found = findings(api(`at: ${type} { default: now }`));
      expect(found, type).to.have.length(1);
      expect(found[0], type).to.include({ code: 'invalid-value', severity: 'error', at: 'now' });
      expect(found[0].message, type).to.equal(
        `default: now (the time of the write) applies to datetime and date properties, not to 'at' of type ${type}`,
      );
    }
  });

  it('refuses onUpdate elsewhere than on a datetime or date, and any value but now', () => {
    const [other] = findings(api('at: string { onUpdate: now }'));
    expect(other).to.include({ code: 'option-not-allowed', at: 'onUpdate' });
    expect(other.message).to.equal("'onUpdate' applies to datetime or date properties, not to 'at' of type string");
    const [list] = findings(api('at: datetime[] { onUpdate: now }'));
    expect(list).to.include({ code: 'invalid-value', at: 'now' });
    const [value] = findings(api('at: datetime { onUpdate: later }'));
    expect(value).to.include({ code: 'invalid-value', at: 'later' });
  });

  it('still checks a literal default against the type (a string "now" is no datetime)', () => {
    expect(findings(api('at: datetime { default: "2024-01-03T12:00:00Z" }'))).to.deep.equal([]);
    const [d] = findings(api('at: datetime { default: "now" }'));
    expect(d).to.include({ code: 'invalid-value', at: '"now"' });
    expect(d.message).to.equal("the default of 'at' does not fit the type datetime");
  });

  it('checks an expression default as a security expression that sees user alone', () => {
    expect(findings(api('owner: string { default: { expression: "user.identifier" } }'))).to.deep.equal([]);
    expect(findings(api('owner: int { default: { expression: "is_granted(\'ROLE_ADMIN\') ? 1 : 2" } }'))).to.deep.equal(
      [],
    );
    const [object] = findings(api('owner: string { default: { expression: "object.owner" } }'));
    expect(object).to.include({ code: 'unknown-variable', at: 'object' });
    expect(object.message).to.equal("the default of 'owner': unknown variable 'object'; known: user");
    const [syntax] = findings(api('owner: string { default: { expression: "user.(" } }'));
    expect(syntax.code).to.equal('invalid-expression');
    const [fn] = findings(api('owner: string { default: { expression: "whoami()" } }'));
    expect(fn.code).to.equal('unknown-function');
    const [notString] = findings(api('owner: string { default: { expression: 5 } }'));
    expect(notString).to.include({ code: 'invalid-value', at: '5' });
    const [key] = findings(api('owner: string { default: { expression: "user.identifier", when: "always" } }'));
    expect(key).to.include({ code: 'unknown-option', at: 'when' });
  });

  it('warns when an expression default reads user and nothing authenticates (every create would be refused)', () => {
    const [warning, ...others] = findings(api('owner: string { default: { expression: "user.identifier" } }', ''));
    expect(others).to.deep.equal([]);
    expect(warning).to.include({ code: 'security-without-authentication', severity: 'warning' });
    expect(warning.message).to.contain('`user` is always null: a create that needs this default is refused');
    expect(findings(api('n: int { default: { expression: "1 + 1" } }', ''))).to.deep.equal([]);
  });
});
