/**
 * The common validation constraints in the checker: `format` takes a known format on strings only, the list
 * constraints (`minItems`, `maxItems`, `uniqueItems`) lists only, `multipleOf` and the exclusive bounds numbers
 * only; bounds no value satisfies are errors; an e-mail `pattern` gets the `use-format-email` hint and its fix.
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';
import { applyEdits, automaticFixes, fixesFor } from '../../../grammar/fixes.js';
import { STRING_FORMATS } from '../../../grammar/catalogue/index.js';
import { findings } from '../../support/findings.js';

const api = (property: string): string => `resource Author {
  properties { id: int { identifier: true } }
}
resource Contact {
  properties {
    id: int { identifier: true }
    ${property}
  }
}
`;

describe('checker: format, list, step and exclusive-bound constraints', () => {
  it('accepts each constraint where it applies, in short and object form', () => {
    const fine = [
      ...STRING_FORMATS.map((f) => `a: string { format: "${f}" }`),
      'a: string[] { format: email }',
      'a: string { format: { value: "email", groups: ["create"], message: "A mail address." } }',
      'a: int[] { minItems: 1, maxItems: 3, uniqueItems: true }',
      'a: Author[] { minItems: 0, maxItems: { value: 2, message: "Two at most." } }',
      'a: json[] { uniqueItems: { value: true, groups: ["create"] } }',
      'a: number { multipleOf: 0.25, exclusiveMinimum: 0, exclusiveMaximum: 1 }',
      'a: int { exclusiveMinimum: { value: 0, message: "Positive." }, minimum: 1, maximum: 1 }',
    ];
    for (const p of fine) expect(findings(api(p)), p).to.deep.equal([]);
  });

  it('format on another type than string, and list constraints on a single value, are errors', () => {
    const cases: [string, string, string][] = [
      ['a: int { format: "email" }', 'format', `'format' applies to string properties, not to 'a' of type int`],
      [
        'a: datetime { format: "date-time" }',
        'format',
        `'format' applies to string properties, not to 'a' of type datetime`,
      ],
      ['a: Author { format: "url" }', 'format', `'format' applies to string properties, not to 'a' of type Author`],
      [
        'a: string { minItems: 1 }',
        'minItems',
        `'minItems' applies to list (T[], Resource[]) properties, not to 'a' of type string`,
      ],
      [
        'a: Author { maxItems: 1 }',
        'maxItems',
        `'maxItems' applies to list (T[], Resource[]) properties, not to 'a' of type Author`,
      ],
      [
        'a: json { uniqueItems: true }',
        'uniqueItems',
        `'uniqueItems' applies to list (T[], Resource[]) properties, not to 'a' of type json`,
      ],
      [
        'a: string { multipleOf: 2 }',
        'multipleOf',
        `'multipleOf' applies to int or number properties, not to 'a' of type string`,
      ],
      [
        'a: bool { exclusiveMinimum: 0 }',
        'exclusiveMinimum',
        `'exclusiveMinimum' applies to int or number properties, not to 'a' of type bool`,
      ],
    ];
    for (const [p, at, message] of cases)
      expect(findings(api(p)), p).to.deep.equal([
        { code: 'option-not-allowed', severity: 'error', message, at, suggestion: undefined },
      ]);
  });

  it('an unknown format lists the allowed ones and proposes the closest', () => {
    const [f, ...rest] = findings(api('a: string { format: "e-mail" }'));
    expect(rest).to.deep.equal([]);
    expect(f).to.deep.equal({
      code: 'invalid-value',
      severity: 'error',
      message: `constraint 'format' must be "email" | "url" | "uuid" | "ipv4" | "ipv6" | "hostname" | "date-time", not 'e-mail'; did you mean 'email'?`,
      at: '"e-mail"',
      suggestion: 'email',
    });
  });

  it('multipleOf must be positive; minItems and maxItems are counts', () => {
    expect(findings(api('a: number { multipleOf: 0 }')).map((f) => [f.message, f.at])).to.deep.equal([
      ['multipleOf must be greater than 0, not 0', '0'],
    ]);
    expect(findings(api('a: number { multipleOf: { value: -2, groups: ["x"] } }')).map((f) => f.message)).to.deep.equal(
      ['multipleOf must be greater than 0, not -2'],
    );
    expect(findings(api('a: int[] { minItems: -1 }')).map((f) => f.code)).to.deep.equal(['invalid-value']);
    expect(findings(api('a: int[] { uniqueItems: "yes" }')).map((f) => f.code)).to.deep.equal(['invalid-value']);
  });

  it('bounds that leave no value allowed are errors, at the upper bound', () => {
    const cases: [string, string][] = [
      ['a: int[] { minItems: 3, maxItems: 2 }', 'maxItems (2) is less than minItems (3)'],
      ['a: number { minimum: 5, exclusiveMaximum: 5 }', 'exclusiveMaximum (5) equals minimum (5): no value is allowed'],
      ['a: number { minimum: 6, exclusiveMaximum: 5 }', 'exclusiveMaximum (5) is less than minimum (6)'],
      ['a: number { exclusiveMinimum: 5, maximum: 5 }', 'maximum (5) equals exclusiveMinimum (5): no value is allowed'],
      [
        'a: number { exclusiveMinimum: 1, exclusiveMaximum: { value: 1 } }',
        'exclusiveMaximum (1) equals exclusiveMinimum (1): no value is allowed',
      ],
    ];
    for (const [p, message] of cases)
      expect(
        findings(api(p)).map((f) => [f.code, f.message]),
        p,
      ).to.deep.equal([['invalid-value', message]]);
    expect(findings(api('a: int[] { minItems: 2, maxItems: 2 }'))).to.deep.equal([]);
    expect(findings(api('a: number { minimum: 5, maximum: 5 }'))).to.deep.equal([]);
  });

  it('an e-mail pattern gets the use-format-email hint; the editor fix writes format: "email", --fix does not', () => {
    for (const pattern of [
      '^[^@\\\\s]+@[^@\\\\s]+\\\\.[^@\\\\s]+$',
      '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\\\.[a-zA-Z]{2,}$',
      '^\\\\w+@\\\\w+\\\\.com$',
    ]) {
      const text = api(`mail: string { pattern: "${pattern}", maxLength: 80 }`);
      const result = check(text);
      const hints = result.all.filter((d) => d.code === 'use-format-email');
      expect(hints, pattern).to.have.length(1);
      expect(hints[0].severity).to.equal('hint');
      expect(text.slice(hints[0].range.start, hints[0].range.end)).to.equal(`"${pattern}"`);
      const [fix] = fixesFor(text, result, hints[0]);
      expect(fix.title).to.equal('Use format: "email" instead of the pattern');
      const fixed = applyEdits(text, fix.edits);
      expect(fixed).to.contain('mail: string { format: "email", maxLength: 80 }');
      expect(check(fixed).all).to.deep.equal([]);
      expect(automaticFixes(text, result)).to.deep.equal([]);
    }
  });

  it('the fix keeps the object form: its message and groups stay', () => {
    const text = api('mail: string { pattern: { value: "^[^@]+@[^@]+$", message: "A mail address." } }');
    const result = check(text);
    const hint = result.all.find((d) => d.code === 'use-format-email')!;
    const fixed = applyEdits(text, fixesFor(text, result, hint)[0].edits);
    expect(fixed).to.contain('mail: string { format: { value: "email", message: "A mail address." } }');
  });

  it('no hint for a pattern that is no e-mail check, or beside a format', () => {
    for (const p of [
      'a: string { pattern: "^@[a-z]+$" }',
      'a: string { pattern: "^[a-z]+$" }',
      'a: string { pattern: "^[^@]+@[^@]+$", format: "email" }',
    ])
      expect(
        check(api(p)).all.map((d) => d.code),
        p,
      ).to.deep.equal([]);
  });
});
