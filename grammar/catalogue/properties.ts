/**
 * Property types and constraints of `properties { name: type { constraint: value } }`.
 * Array types (`T[]`) and relations (a resource name) are recognised by the checker, not listed here; in
 * `appliesTo` they are named by LIST and RELATION.
 */
import type { ConstraintSpec, PropertyTypeSpec } from './types.js';

export const PROPERTY_TYPES: readonly PropertyTypeSpec[] = [
  {
    name: 'int',
    jsonType: 'integer',
    identifier: true,
    doc: 'Integer; as the identifier it is assigned by the store (1, 2, 3, …) unless the request carries one.',
    writtenElsewhere: ['integer', 'long', 'short', 'bigint', 'smallint', 'int32', 'int64'],
  },
  {
    name: 'number',
    jsonType: 'number',
    identifier: false,
    doc: 'Any JSON number.',
    writtenElsewhere: ['float', 'double', 'decimal', 'real', 'numeric', 'float64'],
  },
  {
    name: 'string',
    jsonType: 'string',
    identifier: true,
    doc: 'Text; as the identifier a time-ordered UUID is generated unless supplied.',
    writtenElsewhere: ['text', 'str', 'varchar', 'char', 'uuid'],
  },
  { name: 'bool', jsonType: 'boolean', identifier: false, doc: '`true` or `false`.', writtenElsewhere: ['boolean'] },
  {
    name: 'datetime',
    jsonType: 'string',
    format: 'date-time',
    identifier: false,
    doc: 'Date and time, RFC 3339 string (`2024-01-03T12:00:00+00:00`).',
    writtenElsewhere: ['timestamp', 'timestamptz', 'date_time', 'instant', 'time'],
  },
  { name: 'date', jsonType: 'string', format: 'date', identifier: false, doc: 'Calendar date, `YYYY-MM-DD`.' },
  {
    name: 'json',
    jsonType: 'any',
    identifier: false,
    doc: 'Any JSON value, stored as given.',
    writtenElsewhere: ['object', 'map', 'dict', 'any', 'jsonb', 'mixed', 'array'],
  },
];

const NUMERIC = ['int', 'number'];
/** Said of every validation constraint in the docs: the object form and its groups. */
export const VALIDATION_FORM =
  'Also `{ value: …, groups: ["create"], message: "…" }`: checked only when `validationContext.groups` ' +
  '(default `["Default"]`) names one of its groups (the short form is in `Default`); `message` replaces the violation message.';
const TEXT = ['string'];
/**
 * In `appliesTo`: a relation, i.e. a property typed with a resource name (`Talk`) or an array of them (`Talk[]`).
 * Not a type name of its own: no built-in type is called so, and the checker asks whether the type is a resource.
 */
export const RELATION = 'Resource';
/** In `appliesTo`: any list property (`T[]`, `Resource[]`); the constraint is about the list, not its items. */
export const LIST = 'T[]';
/** In `appliesTo`: a to-many relation only (`Talk[]`), never a to-one relation nor a list of values. */
export const TO_MANY = 'Resource[]';
/**
 * Values of the `format` constraint: JSON Schema formats, each checked as the Symfony constraint of the same
 * meaning (Email, Url, Uuid, Ip, Hostname, DateTime) and shown as is in the OpenAPI schema (`url` as `uri`).
 */
export const STRING_FORMATS = ['email', 'url', 'uuid', 'ipv4', 'ipv6', 'hostname', 'date-time'] as const;
/** A validation constraint on numbers whose value is a number. */
const numberBound = (name: string, doc: string): ConstraintSpec => ({
  name,
  validation: true,
  type: { kind: 'number' },
  appliesTo: NUMERIC,
  doc,
});
/** A validation constraint on a list itself (its size, its repeats). */
const listConstraint = (name: string, type: ConstraintSpec['type'], doc: string): ConstraintSpec => ({
  name,
  validation: true,
  type,
  appliesTo: [LIST],
  doc,
});
/** One `assert` (Symfony's Expression constraint): its expression, message and validation groups. */
const ASSERTION = {
  kind: 'record',
  fields: {
    expression: {
      type: { kind: 'string' },
      required: true,
      doc: "An expression (the security expressions' language) that must be true; sees `value`, `object`, `previous_object`, `user`.",
    },
    message: { type: { kind: 'string' }, doc: 'The violation message (default "This value is not valid.").' },
    groups: {
      type: { kind: 'list', of: { kind: 'string' } },
      doc: 'Validation groups it belongs to (default `Default`).',
    },
  },
} as const satisfies ConstraintSpec['type'];
/** `assert`: one assertion or a list of them. */
export const ASSERTIONS = {
  kind: 'oneOf',
  of: [ASSERTION, { kind: 'list', of: ASSERTION }],
} as const satisfies ConstraintSpec['type'];

/** Referential actions of `onDelete` (Prisma's and Doctrine's), the first the default. */
export const ON_DELETE_ACTIONS = ['restrict', 'cascade', 'setNull'] as const;

export const CONSTRAINTS: readonly ConstraintSpec[] = [
  {
    name: 'identifier',
    type: { kind: 'bool' },
    appliesTo: ['int', 'string'],
    doc: 'This property is the identifier (`{id}` of the item path); default: the property named `id`.',
  },
  {
    name: 'required',
    validation: true,
    type: { kind: 'bool' },
    doc: 'Present and not null; for strings, not empty (NotBlank).',
  },
  { name: 'nullable', type: { kind: 'bool' }, doc: '`false` rejects an explicit null on an optional property.' },
  {
    name: 'readOnly',
    type: { kind: 'bool' },
    doc:
      'Output only: ignored in request bodies. An `int` identifier is read-only unless it says `readOnly: false` ' +
      '(the store assigns it; with `false` a POST body may choose it, a positive integer up to 2^53 - 1).',
  },
  { name: 'writeOnly', type: { kind: 'bool' }, doc: 'Input only: never written in responses.' },
  {
    name: 'default',
    type: { kind: 'any' },
    doc:
      'Value stored when a created item omits the property; must conform to the property type. Values the server sets ' +
      '(docs/behaviour.md, "Values the server sets"): `now` on a datetime or date (the time of the create), or ' +
      '`{ expression: "user.identifier" }`, evaluated as a security expression that sees `user` only; such a property ' +
      'is read-only unless it says `readOnly: false`.',
  },
  {
    name: 'onUpdate',
    type: { kind: 'enum', values: ['now'] },
    appliesTo: ['datetime', 'date'],
    doc: '`now`: the time of every write that stores the item (create, replace, patch), whatever the body says; read-only unless `readOnly: false`.',
  },
  {
    name: 'minimum',
    validation: true,
    type: { kind: 'number' },
    appliesTo: NUMERIC,
    doc: 'Smallest allowed value (inclusive).',
  },
  {
    name: 'maximum',
    validation: true,
    type: { kind: 'number' },
    appliesTo: NUMERIC,
    doc: 'Largest allowed value (inclusive).',
  },
  numberBound('exclusiveMinimum', 'The value must be greater than this (GreaterThan).'),
  numberBound('exclusiveMaximum', 'The value must be less than this (LessThan).'),
  numberBound('multipleOf', 'The value must be a multiple of this positive number (DivisibleBy).'),
  {
    name: 'minLength',
    validation: true,
    type: { kind: 'int', min: 0 },
    appliesTo: TEXT,
    doc: 'Fewest characters allowed.',
  },
  {
    name: 'maxLength',
    validation: true,
    type: { kind: 'int', min: 0 },
    appliesTo: TEXT,
    doc: 'Most characters allowed.',
  },
  {
    name: 'pattern',
    validation: true,
    type: { kind: 'string' },
    appliesTo: TEXT,
    doc: 'Regular expression (ECMAScript syntax) the value must match.',
  },
  {
    name: 'format',
    validation: true,
    type: { kind: 'enum', values: STRING_FORMATS },
    appliesTo: TEXT,
    doc:
      'The shape of the text, checked as Symfony checks it: `email` (Email, html5 mode: a dot in the domain), ' +
      '`url` (Url: an absolute http or https URL), `uuid` (Uuid: RFC 4122 hyphenated, versions 1 to 8), `ipv4`, ' +
      '`ipv6` (Ip), `hostname` (Hostname: with a top-level domain, not a reserved one), `date-time` (DateTime, RFC 3339).',
  },
  {
    name: 'enum',
    validation: true,
    type: { kind: 'list', of: { kind: 'any' } },
    appliesTo: ['int', 'number', 'string'],
    doc: 'The allowed values; each must conform to the property type.',
  },
  listConstraint('minItems', { kind: 'int', min: 0 }, 'Fewest elements the list may hold (Count).'),
  listConstraint('maxItems', { kind: 'int', min: 0 }, 'Most elements the list may hold (Count).'),
  {
    name: 'unique',
    type: { kind: 'bool' },
    appliesTo: ['int', 'number', 'string', 'bool', 'datetime', 'date', RELATION],
    doc:
      '`true`: no two items may hold the same value, as Doctrine\'s UniqueEntity (422 "This value is already used."). ' +
      'A unique index of the store, so concurrent writes cannot both win; nulls may repeat. Not on lists. ' +
      'Several properties together: the resource option `unique`. See docs/behaviour.md "Unique values".',
  },
  {
    name: 'assert',
    type: ASSERTIONS,
    doc:
      'A rule that answers 422 (Symfony\'s Expression constraint): `{ expression: "value > 0 or object.free", message: "…", ' +
      'groups: ["create"] }`, or a list of them. The expression sees `value` (this property\'s value), `object` (the item ' +
      'written), `previous_object` (the stored item, null on a create) and `user`; false, or an error, is a violation on ' +
      'this property (code 6b3befbc-…, "This value is not valid." unless `message`). See docs/behaviour.md "Assertions".',
  },
  listConstraint('uniqueItems', { kind: 'bool' }, '`true`: no element may appear twice in the list (Unique).'),
  {
    name: 'groups',
    type: { kind: 'list', of: { kind: 'string' } },
    doc: 'Serialization groups of the property, matched by `groups` in normalizationContext/denormalizationContext.',
  },
  { name: 'description', type: { kind: 'string' }, doc: 'Shown in the Hydra and OpenAPI documentation.' },
  {
    name: 'security',
    type: { kind: 'expression' },
    doc: 'Access expression (`object` is the item): when it denies, the property is left out of the output and of the schemas that user sees.',
  },
  {
    name: 'securityPostDenormalize',
    type: { kind: 'expression' },
    doc: 'Access expression checked on a write (`object`: the changed item, `previous_object`: the stored one); denied: the stored value is kept.',
  },
  {
    name: 'onDelete',
    type: { kind: 'enum', values: ON_DELETE_ACTIONS },
    appliesTo: [RELATION],
    doc:
      'What deleting the referenced item does to the items that reference it through this relation (docs/behaviour.md, ' +
      '"Deleting a referenced item"): `restrict` (default) refuses the delete with 409 while any reference remains; ' +
      '`cascade` deletes the referencing items too (their own relations applying in turn); `setNull` removes the ' +
      'reference (a to-one relation becomes null, a to-many one loses the IRI). Not `setNull` on a `required` relation.',
  },
  {
    name: 'owned',
    type: { kind: 'bool' },
    appliesTo: [TO_MANY],
    doc:
      'Doctrine\'s orphanRemoval (docs/behaviour.md, "Owned items"): `true` makes the listed items belong to the item ' +
      'that lists them. An IRI or `@id` of an item another item owns is refused as an unknown IRI is (400); an item ' +
      'removed from the list by a PUT or PATCH is deleted, and so are all of them when the owner is deleted. The ' +
      'owned resource needs no operation of its own (`operations {}`).',
  },
  {
    name: 'maxDepth',
    type: { kind: 'int', min: 1 },
    appliesTo: [RELATION],
    doc:
      "Symfony's #[MaxDepth]: with `enable_max_depth: true` in the operation's normalizationContext, an embedded " +
      'relation is shown this many levels deep along a path, then left out (docs/behaviour.md, "Embedded relations").',
  },
  {
    name: 'throwOnAccessDenied',
    type: { kind: 'bool' },
    doc: 'A write to this property that `securityPostDenormalize` denies answers 403 instead of keeping the stored value.',
  },
  {
    name: 'renamedFrom',
    type: { kind: 'string' },
    doc:
      'The name this property had in the previous version of the file: `apidsl diff` reports a rename (and the ' +
      'migration that moves the stored values) instead of a removal and an addition (docs/diff.md).',
  },
];
