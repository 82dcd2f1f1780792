/** Resources: their options, their properties (types, constraints, identifier) and their blocks. */
import { toPlain } from '../../ast.js';
import type * as A from '../../ast.js';
import {
  CONSTRAINTS,
  OPTIONS,
  PROPERTY_TYPES,
  RELATION,
  constraintApplies,
  constraintByName,
  optionByName,
  propertyType,
  typeWrittenElsewhere,
} from '../../catalogue/index.js';
import { wordOf, type ModelProperty, type ModelResource } from '../../model.js';
import { closest, didYouMean } from '../../suggest.js';
import type { CheckContext } from '../context.js';
import { checkValue } from '../value-types.js';
import { reportEffect } from './effects.js';

const RESOURCE_OPTIONS = OPTIONS.filter((o) => o.placement.resource).map((o) => o.name);

export function checkResources(ctx: CheckContext): void {
  for (const resource of ctx.model.resources.values()) {
    checkResourceOptions(ctx, resource.decl.options);
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
  }
}

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
  const id = resource.identifier;
  if (id && (id.array || (id.type !== 'int' && id.type !== 'string'))) {
    ctx.report(
      'identifier-issue',
      id.decl.type?.range ?? id.decl.name.range,
      `the identifier '${id.name}' must be of type int or string`,
    );
  }
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
    if (spec.appliesTo && !constraintApplies(spec, p.type, relation)) {
      const kinds = spec.appliesTo.map((t) => (t === RELATION ? 'relation (Resource, Resource[])' : t));
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
    if (e.key.text === 'default' && e.value) checkPropertyValue(ctx, p, e.value, `the default of '${p.name}'`, p.array);
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
    }
  }
  checkDefaultInEnum(ctx, p);
  checkSetNullRequired(ctx, p);
  checkMaxDepthEnabled(ctx, p);
  for (const [lo, hi] of [
    ['minimum', 'maximum'],
    ['minLength', 'maxLength'],
  ]) {
    const a = constraintValue(p.constraints.get(lo)?.value);
    const b = constraintValue(p.constraints.get(hi)?.value);
    if (a?.kind === 'number' && b?.kind === 'number' && a.value > b.value)
      ctx.report('invalid-value', b.range, `${hi} (${b.raw}) is less than ${lo} (${a.raw})`);
  }
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
  if (values?.kind !== 'array' || !def || def.kind === 'null') return;
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
