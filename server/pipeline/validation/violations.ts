/**
 * Symfony constraint violations as API Platform reports them: the constraints' messages and codes, the 422
 * HttpError that carries violations, and the ConstraintViolation error document (docs/behaviour.md, "The request pipeline": validate).
 */
import { HttpError } from '../../protocol/errors.js';
import type { Violation } from '../../protocol/errors.js';

/** Symfony's plural form `a|b` of a message: `{s}` is left out of `a` (for a limit of 1) and is "s" in `b`. */
const pluralForms = (text: string): string => `${text.replace('{s}', '')}|${text.replace('{s}', 's')}`;

/**
 * Symfony's code and English message per constraint. `a|b` is Symfony's plural form: `a` when the
 * `{{ limit }}` parameter is 1, `b` otherwise.
 */
const CONSTRAINTS = {
  NotBlank: ['c1051bb4-d103-4f74-8988-acbcafc7fdc3', 'This value should not be blank.'],
  NotNull: ['ad32d13f-c3d4-423b-909a-857b961eb720', 'This value should not be null.'],
  Type: ['ba785a8c-82cb-4283-967c-3cf342181b40', 'This value should be of type {{ type }}.'],
  TooLong: [
    'd94b19cc-114f-4f44-9cc4-4138e80a87b9',
    pluralForms('This value is too long. It should have {{ limit }} character{s} or less.'),
  ],
  TooShort: [
    '9ff3fdc4-b214-49db-8718-39c315e33d45',
    pluralForms('This value is too short. It should have {{ limit }} character{s} or more.'),
  ],
  GreaterThanOrEqual: [
    'ea4e51d1-3342-48bd-87f1-9e672cd90cad',
    'This value should be greater than or equal to {{ compared_value }}.',
  ],
  LessThanOrEqual: [
    '30fbb013-d015-4232-8b3b-8f3be97a7e14',
    'This value should be less than or equal to {{ compared_value }}.',
  ],
  Regex: ['de1e3db3-5ed4-4941-aae4-59f3667cc3a3', 'This value is not valid.'],
  Choice: ['8e179f1b-97aa-4560-a02f-2a8b42e49df7', 'The value you selected is not a valid choice.'],
  DateTime: ['1a9da513-2640-4f84-9b6a-4d99dcddc628', 'This value is not a valid datetime.'],
  Date: ['69819696-02ac-4a99-9ff0-14e127c4d1bc', 'This value is not a valid date.'],
  Email: ['bd79c0ab-ddba-46cc-a703-a7a4b08de310', 'This value is not a valid email address.'],
  Url: ['57c2f299-1154-4870-89bb-ef3b1f768ad8', 'This value is not a valid URL.'],
  // Symfony's wording for Uuid still begins "This is", unlike Ip's since Symfony 6.3.
  Uuid: ['51120b12-a2bc-41bf-aa53-cd73daf330d0', 'This is not a valid UUID.'],
  Ip: ['b1b427ae-9f6f-41b0-aa9b-84511fbb3c5b', 'This value is not a valid IP address.'],
  Hostname: ['7057ffdb-0af4-4f7e-bd5e-e9acfa6d7a2d', 'This value is not a valid hostname.'],
  TooFew: [
    'bef8e338-6ae5-4caf-b8e2-50e7b0579e69',
    pluralForms('This collection should contain {{ limit }} element{s} or more.'),
  ],
  TooMany: [
    '756b1212-697c-468d-a9ad-50dd783bb169',
    pluralForms('This collection should contain {{ limit }} element{s} or less.'),
  ],
  NotEqualCount: [
    '9fe5d43f-3784-4ece-a0e1-473fc02dadbc',
    pluralForms('This collection should contain exactly {{ limit }} element{s}.'),
  ],
  Unique: ['7911c98d-b845-4da0-94b7-a8dac36bc55a', 'This collection should contain only unique elements.'],
  DivisibleBy: ['6d99d6c3-1464-4ccf-bdc7-14d083cf455c', 'This value should be a multiple of {{ compared_value }}.'],
  GreaterThan: ['778b7ae0-84d3-481a-9dec-35fdb64b1d78', 'This value should be greater than {{ compared_value }}.'],
  LessThan: ['079d7420-2d13-460c-8756-de810eeb37d2', 'This value should be less than {{ compared_value }}.'],
  // Doctrine's UniqueEntity (symfony/doctrine-bridge), as API Platform answers a repeated unique value.
  UniqueEntity: ['23bd9dbf-6b9b-41cd-a99e-4844bcf3077f', 'This value is already used.'],
  // Symfony's Expression constraint: an `assert`.
  Expression: ['6b3befbc-2f01-4ddf-be21-b57898905284', 'This value is not valid.'],
} as const satisfies Record<string, readonly [string, string]>;

export type Constraint = keyof typeof CONSTRAINTS;

/** A violation of `constraint` at `propertyPath`; `parameters` fill the `{{ name }}` placeholders. */
export function violation(
  propertyPath: string,
  constraint: Constraint,
  parameters: Record<string, string | number> = {},
): Violation {
  const [code, forms] = CONSTRAINTS[constraint];
  const [singular, plural = singular] = forms.split('|');
  const message = (parameters.limit === 1 ? singular : plural).replace(/\{\{ (\w+) \}\}/g, (placeholder, name) =>
    Object.hasOwn(parameters, name) ? String(parameters[name]) : placeholder,
  );
  return { propertyPath, message, code };
}

/** `detail` of a violation list: `<propertyPath>: <message>` lines (no prefix for an empty path). */
export function violationsDetail(violations: readonly Violation[]): string {
  return violations.map((v) => (v.propertyPath === '' ? v.message : `${v.propertyPath}: ${v.message}`)).join('\n');
}

/** The one error type for validation failures: 422 carrying its violations. */
export function validationFailed(violations: Violation[]): HttpError {
  return new HttpError(422, violationsDetail(violations), { violations });
}

/** `/validation_errors/<code>`, or `/validation_errors/0=<code1>;1=<code2>` for several violations. */
function validationErrorIri(violations: readonly Violation[]): string {
  const id = violations.length === 1 ? violations[0].code : violations.map((v, i) => `${i}=${v.code}`).join(';');
  return `/validation_errors/${id}`;
}

/** The exact 422 body: Hydra ConstraintViolation (jsonld) or plain problem JSON. */
export function constraintViolationDocument(
  violations: Violation[],
  opts: { hydraPrefix: boolean; jsonld: boolean },
): Record<string, unknown> {
  const type = validationErrorIri(violations);
  const detail = violationsDetail(violations);
  const list = violations.map(({ propertyPath, message, code, hint }) => ({
    propertyPath,
    message,
    code,
    ...(hint ? { hint } : {}),
  }));
  if (!opts.jsonld) return { status: 422, violations: list, detail, type, title: 'An error occurred' };
  const prefix = opts.hydraPrefix ? 'hydra:' : '';
  return {
    '@context': '/contexts/ConstraintViolation',
    '@id': type,
    '@type': 'ConstraintViolation',
    status: 422,
    violations: list,
    detail,
    [`${prefix}title`]: 'An error occurred',
    [`${prefix}description`]: detail,
    type,
  };
}
