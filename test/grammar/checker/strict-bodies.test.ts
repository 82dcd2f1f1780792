/**
 * `denormalizationContext` (docs/behaviour.md, "Strict bodies"): `groups` and `allow_extra_attributes` are typed
 * wherever the context is written (resource, operation, `config { defaults { denormalization_context } }`), so that
 * `allow_extra_attributes: "false"` is no silently lenient body; Symfony's other context keys are taken as written.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (config: string, resource: string, operation: string): string => `api "A" { version: "1" }
config { ${config} }
resource Entry {
  ${resource}
  properties { id: int { identifier: true }, title: string }
  operations { Get, Post { ${operation} } }
}
`;

describe('checker: denormalizationContext', () => {
  it('accepts allow_extra_attributes as a bool on the resource, the operation and config defaults', () => {
    const context = '{ allow_extra_attributes: false, groups: ["write"], skip_null_values: true }';
    expect(findings(api('', `denormalizationContext: ${context}`, ''))).to.deep.equal([]);
    expect(findings(api('', '', `denormalizationContext: ${context}`))).to.deep.equal([]);
    expect(findings(api(`defaults { denormalization_context: ${context} }`, '', ''))).to.deep.equal([]);
    expect(findings(api('', 'denormalizationContext: { groups: "write" }', ''))).to.deep.equal([]);
  });

  it("accepts [] (PHP's empty array) as the empty context, as normalizationContext: [], wherever written", () => {
    expect(findings(api('', 'denormalizationContext: []', 'normalizationContext: []'))).to.deep.equal([]);
    expect(findings(api('', '', 'denormalizationContext: []'))).to.deep.equal([]);
    expect(findings(api('defaults { denormalization_context: [] }', '', ''))).to.deep.equal([]);
  });

  it('refuses allow_extra_attributes that is not a bool, and a context that is not an object, wherever written', () => {
    for (const [config, resource, operation] of [
      ['', 'denormalizationContext: { allow_extra_attributes: "false" }', ''],
      ['', '', 'denormalizationContext: { allow_extra_attributes: 0 }'],
      ['defaults { denormalization_context: { allow_extra_attributes: "no" } }', '', ''],
      ['', 'denormalizationContext: ["write"]', ''],
    ]) {
      const found = findings(api(config, resource, operation));
      expect(
        found.map((f) => f.code),
        `${config}${resource}${operation}`,
      ).to.deep.equal(['invalid-value']);
    }
  });
});
