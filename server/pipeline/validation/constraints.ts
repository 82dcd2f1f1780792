/**
 * Validation of an item against its resource's constraints: Ajv runs the input schema of schema.ts, and its
 * errors are told as the Symfony violations API Platform answers with (messages, codes, property paths).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { DefinedError, ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Violation } from '../../protocol/errors.js';
import { CONSTRAINTS } from '../../../grammar/catalogue/index.js';
import type { PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { STRING_FORMAT_CHECKS } from './formats.js';
import { resourceSchema } from './schema.js';
import { violation } from './violations.js';

// strictTypes off: a constraint keyword that does not apply to a value's type is simply ignored, as in JSON Schema.
// multipleOfPrecision: 0.3 is a multiple of 0.1 despite binary floating point, as for Symfony's DivisibleBy.
// verbose: an error carries its schema, where minItems meets its maxItems (Count's "exactly" message).
const ajv = new Ajv2020({
  allErrors: true,
  allowUnionTypes: true,
  strictTypes: false,
  multipleOfPrecision: 9,
  verbose: true,
});
addFormats.default(ajv, ['date-time', 'date']);
for (const [name, { check }] of Object.entries(STRING_FORMAT_CHECKS)) ajv.addFormat(name, check);
// Relation values are checked against the routes by denormalize(); for Ajv the format is an annotation.
ajv.addFormat('iri-reference', true);

interface CompiledResource {
  validate: ValidateFunction;
  /** The schema's `required` list: NotBlank is checked here, as it also rejects empty strings. */
  required: string[];
  /** Declaration index per property name: violations are reported in that order. */
  order: Map<string, number>;
}

const compiled = new WeakMap<ResourceMetadata, Map<string, CompiledResource>>();

/** The JSON Schema keyword, or `required`, that each validation constraint of the catalogue becomes. */
const GROUPED_CONSTRAINTS = CONSTRAINTS.filter((c) => c.validation).map((c) => c.name as keyof PropertyMetadata);

/**
 * The resource as the active validation groups see it: a constraint whose groups share none of them is
 * left out (the short form is in `Default`).
 */
function inGroups(resource: ResourceMetadata, groups: readonly string[]): ResourceMetadata {
  if (!resource.properties.some((p) => p.validation))
    return groups.includes('Default') ? resource : withoutConstraints(resource, () => true);
  return withoutConstraints(
    resource,
    (p, name) => !(p.validation?.[name]?.groups ?? ['Default']).some((g) => groups.includes(g)),
  );
}

function withoutConstraints(
  resource: ResourceMetadata,
  drop: (p: PropertyMetadata, name: string) => boolean,
): ResourceMetadata {
  const properties = resource.properties.map((p) => {
    const copy: PropertyMetadata = { ...p };
    for (const name of GROUPED_CONSTRAINTS) {
      if (!drop(p, name)) continue;
      if (name === 'required') copy.required = false;
      else delete copy[name];
    }
    return copy;
  });
  return { ...resource, properties };
}

function compile(resource: ResourceMetadata, groups: readonly string[]): CompiledResource {
  let byGroups = compiled.get(resource);
  if (byGroups === undefined) compiled.set(resource, (byGroups = new Map()));
  // One group (the usual case, `Default`) needs no sorted copy; a JSON key starts with '[', so the two never meet.
  const key = groups.length === 1 ? `1:${groups[0]}` : JSON.stringify([...groups].sort());
  let entry = byGroups.get(key);
  if (entry === undefined) {
    const schema = resourceSchema(inGroups(resource, groups), 'input');
    entry = {
      validate: ajv.compile(schema),
      required: (schema.required as string[] | undefined) ?? [],
      order: new Map(resource.properties.map((p, i) => [p.name, i])),
    };
    byGroups.set(key, entry);
  }
  return entry;
}

/**
 * The violations of an item under the validation groups (default `Default`), ordered by property
 * declaration, with the custom messages of constraints written in object form; empty when valid.
 */
export function validateItem(
  resource: ResourceMetadata,
  item: Item,
  groups: readonly string[] = ['Default'],
): Violation[] {
  const { validate, required, order } = compile(resource, groups);
  // A null is an absent property (denormalize() already drops them; custom code may not).
  const present = Object.values(item).includes(null)
    ? Object.fromEntries(Object.entries(item).filter(([, value]) => value !== null))
    : item; // no copy for the usual item
  const violations = required
    .filter((name) => !Object.hasOwn(present, name) || present[name] === '')
    .map((name) => withMessage(resource, violation(name, 'NotBlank'), 'required'));
  if (!validate(present)) {
    for (const error of validate.errors as DefinedError[]) {
      if (error.keyword !== 'required') violations.push(withMessage(resource, toViolation(error), error.keyword));
    }
  }
  const rank = (v: Violation) => order.get(v.propertyPath.split(/[[.]/)[0]) ?? -1;
  return violations.sort((a, b) => rank(a) - rank(b));
}

/** The violation with the custom message of its constraint, when the `.api` file gives one. */
function withMessage(resource: ResourceMetadata, v: Violation, constraint: string): Violation {
  const name = v.propertyPath.split(/[[.]/)[0];
  const message = resource.properties.find((p) => p.name === name)?.validation?.[constraint]?.message;
  return message === undefined ? v : { ...v, message };
}

/** PHP's names for JSON Schema types, as Symfony's Type constraint names them. */
const PHP_TYPES: Record<string, string> = {
  string: 'string',
  integer: 'int',
  number: 'float',
  boolean: 'bool',
  array: 'array',
  object: 'array',
};

function toViolation(error: DefinedError): Violation {
  const path = propertyPath(error.instancePath);
  switch (error.keyword) {
    case 'type': {
      const types = ([] as string[]).concat(error.params.type).filter((t) => t !== 'null');
      return violation(path, 'Type', { type: types.map((t) => PHP_TYPES[t] ?? t).join('|') });
    }
    case 'maxLength':
      return violation(path, 'TooLong', { limit: error.params.limit });
    case 'minLength':
      return violation(path, 'TooShort', { limit: error.params.limit });
    case 'minimum':
      return violation(path, 'GreaterThanOrEqual', { compared_value: error.params.limit });
    case 'maximum':
      return violation(path, 'LessThanOrEqual', { compared_value: error.params.limit });
    case 'pattern':
      return violation(path, 'Regex');
    case 'enum':
      return violation(path, 'Choice');
    case 'exclusiveMinimum':
      return violation(path, 'GreaterThan', { compared_value: error.params.limit });
    case 'exclusiveMaximum':
      return violation(path, 'LessThan', { compared_value: error.params.limit });
    case 'multipleOf':
      return violation(path, 'DivisibleBy', { compared_value: error.params.multipleOf });
    case 'minItems':
    case 'maxItems': {
      const { minItems, maxItems } = error.parentSchema as { minItems?: number; maxItems?: number };
      if (minItems === maxItems) return violation(path, 'NotEqualCount', { limit: error.params.limit });
      return violation(path, error.keyword === 'minItems' ? 'TooFew' : 'TooMany', { limit: error.params.limit });
    }
    case 'uniqueItems':
      return violation(path, 'Unique');
    case 'format': {
      if (error.params.format === 'date-time') return violation(path, 'DateTime');
      if (error.params.format === 'date') return violation(path, 'Date');
      const format = STRING_FORMAT_CHECKS[error.params.format];
      if (format) return violation(path, format.violation);
    }
  }
  // schema.ts emits no other validating keyword: reaching this is a bug in the schema generator.
  throw new Error(`No violation for the JSON Schema keyword "${error.keyword}" (${error.schemaPath})`);
}

/** JSON Pointer `/tags/1` → Symfony property path `tags[1]`. */
function propertyPath(pointer: string): string {
  let path = '';
  for (const segment of pointer.split('/').slice(1)) {
    const name = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (path === '') path = name;
    else path = /^\d+$/.test(name) ? `${path}[${name}]` : `${path}.${name}`;
  }
  return path;
}
