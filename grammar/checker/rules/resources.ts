/** Resources: their options, their properties (types, constraints, identifier) and their blocks. */
import { toPlain } from '../../ast.js';
import type * as A from '../../ast.js';
import {
  CONSTRAINTS,
  LIST,
  OPTIONS,
  PROPERTY_TYPES,
  RELATION,
  TO_MANY,
  constraintApplies,
  constraintByName,
  optionByName,
  propertyType,
  typeWrittenElsewhere,
} from '../../catalogue/index.js';
import { wordOf, type ModelProperty, type ModelResource } from '../../model.js';
import { closest, didYouMean } from '../../suggest.js';
import type { CheckContext } from '../check-context.js';
import { checkValue } from '../value-types.js';
import { reportEffect } from './effects.js';
import { checkAssertExpression, checkValueExpression } from './security.js';

const RESOURCE_OPTIONS = OPTIONS.filter((o) => o.placement.resource).map((o) => o.name);

export function checkResources(ctx: CheckContext): void {
  for (const resource of ctx.model.resources.values()) {
    checkResourceOptions(ctx, resource.decl.options);
    checkResourceRename(ctx, resource);
    for (const [blocks, what] of [
      [resource.decl.propertiesBlocks, 'properties'],
      [resource.decl.operationsBlocks, 'operations'],
      [resource.decl.graphqlBlocks, 'graphql'],
    ] as const) {
      for (const b of blocks.slice(1))
        ctx.report(
          'duplicate-block',
          b.range,
          `resource '${resource.name}' has a second '${what}' block; merge them into one`,
        );
    }
    checkProperties(ctx, resource);
    checkUniqueLists(ctx, resource);
    const asserts = resource.decl.options.find((e) => e.key.text === 'assert');
    if (asserts?.value) checkAssertions(ctx, asserts.value, `'${resource.name}' assert`);
  }
}

/** The expressions of an `assert` (one object or a list of them); their shape is checked by checkValue. */
function checkAssertions(ctx: CheckContext, value: A.Value, where: string): void {
  const assertions = value.kind === 'array' ? value.items : [value];
  for (const assertion of assertions) {
    if (assertion.kind !== 'object') continue;
    const expression = assertion.entries.find((e) => e.key.text === 'expression')?.value;
    if (expression?.kind === 'string') checkAssertExpression(ctx, expression, where);
  }
}

/** Property types a unique index holds: scalars and to-one relations (not lists, not json). */
const UNIQUE_TYPES = new Set(['int', 'number', 'string', 'bool', 'datetime', 'date']);

/** The resource option `unique`: each name is a property of the resource that a unique index can hold. */
function checkUniqueLists(ctx: CheckContext, resource: ModelResource): void {
  const option = resource.decl.options.find((e) => e.key.text === 'unique');
  if (option?.value?.kind !== 'array') return;
  for (const list of option.value.items) {
    if (list.kind !== 'array') continue; // its type error is reported by checkValue
    if (list.items.length === 0) ctx.report('invalid-value', list.range, 'a unique list names at least one property');
    for (const item of list.items) {
      if (item.kind !== 'string') continue;
      const p = resource.properties.get(item.value);
      if (!p) {
        const name = { text: item.value, range: item.range };
        ctx.unknown('unknown-property', name, `property of '${resource.name}'`, resource.properties.keys());
      } else if (!uniqueFits(ctx, p))
        ctx.report(
          'option-not-allowed',
          item.range,
          `'${item.value}' cannot be part of a unique list: it is ${p.array ? 'a list' : `of type ${p.type ?? 'json'}`}`,
        );
    }
  }
}

const uniqueFits = (ctx: CheckContext, p: ModelProperty): boolean =>
  !p.array && p.type !== undefined && (UNIQUE_TYPES.has(p.type) || ctx.model.resources.has(p.type));

function checkResourceOptions(ctx: CheckContext, entries: A.Entry[]): void {
  ctx.duplicateKeys(entries, 'option');
  for (const e of entries) {
    const spec = optionByName(e.key.text);
    if (!spec) {
      ctx.unknown('unknown-option', e.key, 'resource option', [
        ...RESOURCE_OPTIONS,
        'properties',
        'operations',
        'graphql',
      ]);
      continue;
    }
    if (!spec.placement.resource) {
      const block = spec.placement.operations.length === 0 && spec.placement.graphql ? 'graphql' : 'operations';
      ctx.report(
        'option-not-allowed',
        e.key.range,
        `'${e.key.text}' is set per operation, not on the resource: move it into an operation of the '${block}' block`,
      );
      continue;
    }
    reportEffect(ctx, spec, e.key, false);
    checkValue(ctx, e.value, spec.type, `'${e.key.text}'`);
  }
}

function checkProperties(ctx: CheckContext, resource: ModelResource): void {
  const seen = new Set<string>();
  const identifiers: ModelProperty[] = [];
  for (const block of resource.decl.propertiesBlocks) {
    for (const decl of block.properties) {
      if (seen.has(decl.name.text))
        ctx.report(
          'duplicate-property',
          decl.name.range,
          `property '${decl.name.text}' is declared twice in '${resource.name}'`,
        );
      seen.add(decl.name.text);
    }
  }
  for (const p of resource.properties.values()) {
    const typeName = p.decl.type?.name;
    const known = !typeName || propertyType(typeName) || ctx.model.resources.has(typeName);
    const elsewhere = known ? undefined : typeWrittenElsewhere(typeName);
    if (!known && typeName === 'enum') {
      // With a list of values after it, the parser reported it (enum-list) with its fix.
      if (!p.decl.values)
        ctx.report(
          'unknown-type',
          p.decl.type!.nameRange,
          'there is no enum type: an enumeration is a string (or int) with the enum constraint, string { enum: ["a", "b"] }',
        );
    } else if (elsewhere) {
      ctx.report(
        'unknown-type',
        p.decl.type!.nameRange,
        `unknown property type '${typeName}'${didYouMean(elsewhere.name)}`,
        elsewhere.name,
      );
    } else if (!known) {
      const candidates = [...PROPERTY_TYPES.map((t) => t.name), ...ctx.model.resources.keys()];
      ctx.unknown(
        'unknown-type',
        { text: typeName, range: p.decl.type!.nameRange },
        'property type',
        candidates,
        '; use int, number, string, bool, datetime, date, json, a resource name, or T[]',
      );
    }
    if (p.decl.constraints) checkConstraints(ctx, p, p.decl.constraints);
    const flag = p.constraints.get('identifier')?.value;
    if (flag?.kind === 'bool' && flag.value) identifiers.push(p);
  }
  for (const extra of identifiers.slice(1)) {
    ctx.report(
      'identifier-issue',
      extra.constraints.get('identifier')!.key.range,
      `resource '${resource.name}' already has the identifier '${identifiers[0].name}'; only one property may be the identifier`,
    );
  }
  checkPropertyRenames(ctx, resource);
  const id = resource.identifier;
  if (id && (id.array || (id.type !== 'int' && id.type !== 'string'))) {
    ctx.report(
      'identifier-issue',
      id.decl.type?.range ?? id.decl.name.range,
      `the identifier '${id.name}' must be of type int or string`,
    );
  }
}

/**
 * `renamedFrom` names the previous name of a property (or resource): a name the file still declares, or one that two
 * of them claim, would make `apidsl diff` pair the wrong things.
 */
function checkPropertyRenames(ctx: CheckContext, resource: ModelResource): void {
  const claimed = new Set<string>();
  for (const p of resource.properties.values()) {
    const value = p.constraints.get('renamedFrom')?.value;
    if (value?.kind !== 'string') continue;
    if (resource.properties.has(value.value))
      ctx.report('invalid-value', value.range, `renamedFrom: '${resource.name}' still has a property '${value.value}'`);
    else if (claimed.has(value.value))
      ctx.report(
        'invalid-value',
        value.range,
        `renamedFrom: another property was already renamed from '${value.value}'`,
      );
    claimed.add(value.value);
  }
}

function checkResourceRename(ctx: CheckContext, resource: ModelResource): void {
  const value = resource.decl.options.find((e) => e.key.text === 'renamedFrom')?.value;
  if (value?.kind === 'string' && ctx.model.resources.has(value.value))
    ctx.report('invalid-value', value.range, `renamedFrom: the file still declares a resource '${value.value}'`);
}

function checkConstraints(ctx: CheckContext, p: ModelProperty, body: A.ObjectValue): void {
  ctx.duplicateKeys(body.entries, 'constraint');
  for (let e of body.entries) {
    const spec = constraintByName(e.key.text);
    if (!spec) {
      ctx.unknown(
        'unknown-option',
        e.key,
        'constraint',
        CONSTRAINTS.map((c) => c.name),
      );
      continue;
    }
    const relation = p.type !== undefined && ctx.model.resources.has(p.type);
    if (spec.appliesTo && !constraintApplies(spec, p.type, relation, p.array)) {
      const kinds = spec.appliesTo.map((t) => {
        if (t === RELATION) return 'relation (Resource, Resource[])';
        if (t === TO_MANY) return 'to-many relation (Resource[])';
        return t === LIST ? 'list (T[], Resource[])' : t;
      });
      ctx.report(
        'option-not-allowed',
        e.key.range,
        `'${e.key.text}' applies to ${kinds.join(' or ')} properties, not to '${p.name}' of type ${p.type}${p.array ? '[]' : ''}`,
      );
      continue;
    }
    const value = spec.validation ? validationValue(ctx, e) : e.value;
    if (value !== e.value) {
      if (!value) continue;
      e = { ...e, value };
    }
    checkValue(ctx, e.value, spec.type, `constraint '${e.key.text}'`);
    if (e.key.text === 'unique' && p.array)
      ctx.report(
        'option-not-allowed',
        e.key.range,
        `'unique' does not apply to the list '${p.name}' (uniqueItems checks its elements)`,
      );
    if (e.key.text === 'default' && e.value) checkDefault(ctx, p, e.value);
    if (e.key.text === 'assert' && e.value) checkAssertions(ctx, e.value, `'${p.name}' assert`);
    if (e.key.text === 'onUpdate' && e.value) checkTimeStamp(ctx, p, e.value, 'onUpdate: now');
    if (e.key.text === 'enum' && e.value?.kind === 'array')
      for (const item of e.value.items) checkPropertyValue(ctx, p, item, `a value of the enum of '${p.name}'`, false);
    if (e.key.text === 'pattern' && e.value?.kind === 'string') {
      try {
        new RegExp(e.value.value, 'u');
      } catch (err) {
        ctx.report(
          'invalid-value',
          e.value.range,
          `pattern is not a valid regular expression: ${(err as Error).message}`,
        );
      }
      if (EMAIL_LIKE.test(e.value.value) && !p.constraints.has('format'))
        ctx.report(
          'use-format-email',
          e.value.range,
          `this pattern looks like an e-mail address check: format: "email" checks it as Symfony's Email constraint does (and says so in the OpenAPI schema)`,
        );
    }
    if (e.key.text === 'multipleOf' && e.value?.kind === 'number' && e.value.value <= 0)
      ctx.report('invalid-value', e.value.range, `multipleOf must be greater than 0, not ${e.value.raw}`);
  }
  checkDefaultInEnum(ctx, p);
  checkSetNullRequired(ctx, p);
  checkBounds(ctx, p);
  checkMaxDepthEnabled(ctx, p);
}

/** `pattern` values that check an e-mail address: `@` between two character classes (`[^@\s]+@[^@\s]+`, `\w+@\w+`). */
const EMAIL_LIKE = /(?:\]|\\[wS])(?:[+*]|\{\d+(?:,\d*)?\})@(?:\[|\\[wS])/;

/** Pairs of bounds no value satisfies: `strict` when equal bounds already leave nothing (one is exclusive). */
const BOUND_PAIRS = [
  ['minimum', 'maximum', false],
  ['minLength', 'maxLength', false],
  ['minItems', 'maxItems', false],
  ['minimum', 'exclusiveMaximum', true],
  ['exclusiveMinimum', 'maximum', true],
  ['exclusiveMinimum', 'exclusiveMaximum', true],
] as const;

function checkBounds(ctx: CheckContext, p: ModelProperty): void {
  for (const [lo, hi, strict] of BOUND_PAIRS) {
    const a = constraintValue(p.constraints.get(lo)?.value);
    const b = constraintValue(p.constraints.get(hi)?.value);
    if (a?.kind !== 'number' || b?.kind !== 'number') continue;
    if (a.value > b.value) ctx.report('invalid-value', b.range, `${hi} (${b.raw}) is less than ${lo} (${a.raw})`);
    else if (strict && a.value === b.value)
      ctx.report('invalid-value', b.range, `${hi} (${b.raw}) equals ${lo} (${a.raw}): no value is allowed`);
  }
}

/**
 * A default: a literal of the property's type, `now` (datetime and date) or `{ expression: "…" }`, an
 * expression that sees `user` only (the item does not exist yet), checked as security expressions are.
 */
function checkDefault(ctx: CheckContext, p: ModelProperty, value: A.Value): void {
  if (value.kind === 'ident' && value.name === 'now') return checkTimeStamp(ctx, p, value, 'default: now');
  const expression = defaultExpression(value);
  if (!expression) return checkPropertyValue(ctx, p, value, `the default of '${p.name}'`, p.array);
  if (value.kind !== 'object') return;
  ctx.duplicateKeys(value.entries, 'key');
  for (const x of value.entries)
    if (x.key.text !== 'expression')
      ctx.unknown('unknown-option', x.key, "key of the default's expression form", ['expression']);
  if (expression.kind !== 'string')
    ctx.report('invalid-value', expression.range, `the expression of the default of '${p.name}' must be a string`);
  else checkValueExpression(ctx, expression, `the default of '${p.name}'`);
}

/** `{ expression: … }`'s expression: the one object form of a default that the server computes. */
function defaultExpression(value: A.Value): A.Value | undefined {
  if (value.kind !== 'object') return undefined;
  return value.entries.find((x) => x.key.text === 'expression')?.value;
}

/** `now` is a time: only a datetime or date property (not a list of them) can hold it. */
function checkTimeStamp(ctx: CheckContext, p: ModelProperty, value: A.Value, what: string): void {
  if ((p.type === 'datetime' || p.type === 'date') && !p.array) return;
  const type = `${p.type ?? 'json'}${p.array ? '[]' : ''}`;
  ctx.report(
    'invalid-value',
    value.range,
    `${what} (the time of the write) applies to datetime and date properties, not to '${p.name}' of type ${type}`,
  );
}

/** `setNull` would write null into a property every write must fill (Prisma refuses it on a required relation too). */
function checkSetNullRequired(ctx: CheckContext, p: ModelProperty): void {
  const action = p.constraints.get('onDelete')?.value;
  const required = constraintValue(p.constraints.get('required')?.value);
  if (!action || wordOf(action) !== 'setNull' || required?.kind !== 'bool' || !required.value) return;
  ctx.report(
    'invalid-value',
    action.range,
    `onDelete: setNull cannot apply to '${p.name}', which is required: the referencing items would be left without it; use "restrict" or "cascade", or make '${p.name}' optional`,
  );
}

/** `maxDepth` counts only where a normalizationContext says `enable_max_depth: true` (Symfony's rule). */
function checkMaxDepthEnabled(ctx: CheckContext, p: ModelProperty): void {
  const entry = p.constraints.get('maxDepth');
  if (!entry) return;
  const enables = (context: A.Entry | undefined): boolean =>
    context?.value?.kind === 'object' &&
    context.value.entries.some((e) => e.key.text === 'enable_max_depth' && e.value?.kind === 'bool' && e.value.value);
  const enabled = [...ctx.model.resources.values()].some(
    (r) =>
      enables(r.options.get('normalizationContext')) ||
      r.operations.some((o) => enables(o.options.get('normalizationContext'))),
  );
  if (!enabled)
    ctx.report(
      'option-ineffective',
      entry.key.range,
      "maxDepth has no effect: no operation's normalizationContext says enable_max_depth: true",
    );
}

/** A default outside the enum would be written on every create that omits it, then refused (422). */
function checkDefaultInEnum(ctx: CheckContext, p: ModelProperty): void {
  const values = p.constraints.get('enum')?.value;
  const def = p.constraints.get('default')?.value;
  if (values?.kind !== 'array' || !def || def.kind === 'null' || defaultExpression(def)) return;
  const allowed = values.items.map((i) => JSON.stringify(toPlain(i)));
  const given = def.kind === 'array' && p.array ? def.items : [def];
  for (const v of given) {
    const text = JSON.stringify(toPlain(v));
    if (allowed.includes(text)) continue;
    const suggestion =
      v.kind === 'string'
        ? closest(
            v.value,
            values.items.flatMap((i) => (i.kind === 'string' ? [i.value] : [])),
          )
        : undefined;
    const hint = didYouMean(suggestion);
    ctx.report(
      'default-not-in-enum',
      v.range,
      `the default of '${p.name}' (${text}) is not one of its enum values (${allowed.join(', ')}): every write that omits '${p.name}' would answer 422${hint}`,
      suggestion,
    );
  }
}

const VALIDATION_FIELDS = ['value', 'groups', 'message'];

/** The value of a validation constraint written in object form (`{ value, groups, message }`), else the value itself. */
function constraintValue(value: A.Value | undefined): A.Value | undefined {
  if (value?.kind !== 'object' || !value.entries.some((x) => x.key.text === 'value')) return value;
  return value.entries.find((x) => x.key.text === 'value')?.value;
}

/** Checks the object form's `groups` and `message`; its `value`, or undefined when it has none. */
function validationValue(ctx: CheckContext, e: A.Entry): A.Value | undefined {
  const form = e.value;
  if (form?.kind !== 'object' || !form.entries.some((x) => x.key.text === 'value')) return form;
  ctx.duplicateKeys(form.entries, 'key');
  for (const x of form.entries) {
    if (x.key.text === 'groups')
      checkValue(ctx, x.value, { kind: 'list', of: { kind: 'string' } }, `'groups' of '${e.key.text}'`);
    else if (x.key.text === 'message') checkValue(ctx, x.value, { kind: 'string' }, `'message' of '${e.key.text}'`);
    else if (x.key.text !== 'value')
      ctx.unknown('unknown-option', x.key, `key of the constraint '${e.key.text}'`, VALIDATION_FIELDS);
  }
  return constraintValue(form);
}

/** Does a literal fit the property's type (for `default` and `enum`)? */
/** Whether a literal fits a property type (JSON and untyped properties take anything). */
function fitsType(t: string | undefined, value: A.Value): boolean {
  switch (t) {
    case 'int':
      return value.kind === 'number' && Number.isInteger(value.value);
    case 'number':
      return value.kind === 'number';
    case 'bool':
      return value.kind === 'bool';
    case 'datetime':
      return value.kind === 'string' && !Number.isNaN(Date.parse(value.value));
    case 'date':
      return value.kind === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value.value);
    case 'json':
    case undefined:
      return true;
    default:
      return value.kind === 'string';
  }
}

function checkPropertyValue(ctx: CheckContext, p: ModelProperty, value: A.Value, where: string, array: boolean): void {
  if (value.kind === 'null') return;
  if (array) {
    if (value.kind !== 'array')
      ctx.report('invalid-value', value.range, `${where} must be a list (the property is ${p.type}[])`);
    else for (const item of value.items) checkPropertyValue(ctx, p, item, where, false);
    return;
  }
  const t = p.type;
  const ok = fitsType(t, value);
  if (!ok) ctx.report('invalid-value', value.range, `${where} does not fit the type ${t}`);
}
