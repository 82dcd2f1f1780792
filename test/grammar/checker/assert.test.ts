/**
 * The `assert` constraint in the checker: its expression is checked at check time with the variables it sees
 * (`value`, `object`, `previous_object`, `user`), an unknown name reported at that name with the closest one,
 * on a property and on the resource, alone or in a list; its shape (an object with `expression`) is checked.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (property: string, options = ''): string => `resource Order {
  ${options}
  properties {
    id: int { identifier: true }
    status: string
    ${property}
  }
  operations { Get, Post }
}
`;

describe('checker: assert', () => {
  it('accepts an assert reading value, object, previous_object and user, alone or in a list, with message and groups', () => {
    const fine = [
      api('a: int { assert: { expression: "value > 0" } }'),
      api(
        'a: int { assert: [{ expression: "value > 0", message: "Positive." }, { expression: "user != null", groups: ["create"] }] }',
      ),
      api(
        'a: string { assert: { expression: "previous_object == null or value in {draft: [\'placed\']}[previous_object.status]" } }',
      ),
      api('', "assert: { expression: \"object.status != 'x' and value.status != 'y'\" }"),
    ];
    for (const text of fine) expect(findings(text), text).to.deep.equal([]);
  });

  it('reports an unknown variable at its place in the expression, with the closest known one', () => {
    expect(findings(api('a: int { assert: { expression: "valeu > 0" } }'))).to.deep.equal([
      {
        code: 'unknown-variable',
        severity: 'error',
        message: `'a' assert: unknown variable 'valeu'; known: value, object, previous_object, user; did you mean 'value'?`,
        at: 'valeu',
        suggestion: 'value',
      },
    ]);
    // request is a security expression's variable, not an assert's.
    const [request] = findings(
      api('', 'assert: [{ expression: "value != null" }, { expression: "request.method == \'GET\'" }]'),
    );
    expect(request).to.include({ code: 'unknown-variable', at: 'request' });
    expect(request!.message).to.match(/^'Order' assert: unknown variable 'request'/);
  });

  it('reports a syntax error and an unknown function in the expression', () => {
    const [syntax] = findings(api('a: int { assert: { expression: "value >" } }'));
    expect(syntax).to.include({ code: 'invalid-expression' });
    const [fn] = findings(api('a: int { assert: { expression: "is_grantd(\'ROLE_X\')" } }'));
    expect(fn).to.include({ code: 'unknown-function', at: 'is_grantd', suggestion: 'is_granted' });
  });

  it('needs an expression, and knows only expression, message and groups', () => {
    expect(findings(api('a: int { assert: { message: "x" } }'))[0]).to.include({
      code: 'invalid-value',
      message: `constraint 'assert' needs 'expression'`,
    });
    expect(findings(api('a: int { assert: { expression: "value > 0", mesage: "x" } }'))[0]).to.include({
      code: 'unknown-option',
      at: 'mesage',
      suggestion: 'message',
    });
  });
});
