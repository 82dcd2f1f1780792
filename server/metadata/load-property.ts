/**
 * A property's runtime metadata: its constraints (object forms unwrapped into `validation`), values the server sets,
 * its relation, its guards and assertions compiled; and what the store records of it.
 */
import { CONSTRAINTS, ON_DELETE_ACTIONS } from '../../grammar/catalogue/index.js';
import type { ApiModel, ModelProperty } from '../../grammar/model.js';
import { compileAssertion, compileDefaultValue, compileGuard } from '../expression/guard.js';
import type { FieldRules, FieldType } from '../store/types.js';
import type { Assertion, PropertyMetadata } from './types.js';
import { plainEntries, type Plain } from './written-options.js';

/** The catalogue's validation constraints (written in object form or not); with `nullable`, what makes a property constrained. */
const VALIDATED = CONSTRAINTS.filter((c) => c.validation).map((c) => c.name);
const VALIDATION_CONSTRAINTS = [...VALIDATED, 'nullable'];

/** Unwraps validation constraints written `{ value, groups, message }`; their groups and messages go to `validation`. */
function unwrapValidation(c: Plain): PropertyMetadata['validation'] {
  let out: PropertyMetadata['validation'];
  for (const name of VALIDATION_CONSTRAINTS) {
    const form = c[name];
    if (typeof form !== 'object' || form === null || Array.isArray(form) || !('value' in form)) continue;
    const { value, groups, message } = form as Plain;
    c[name] = value;
    out ??= {};
    out[name] = {
      groups: Array.isArray(groups) ? groups.map(String) : ['Default'],
      ...(typeof message === 'string' ? { message } : {}),
    };
  }
  return out;
}

export function loadProperty(
  p: ModelProperty,
  resources: ApiModel['resources'],
  isIdentifier: boolean,
): PropertyMetadata {
  const c = plainEntries([...p.constraints.values()]);
  const validation = unwrapValidation(c);
  const type = p.type ?? 'json';
  const serverDefault = serverDefaultOf(c.default, type);
  if (serverDefault !== undefined) delete c.default;
  const onUpdate = c.onUpdate === 'now' && (type === 'datetime' || type === 'date');
  const serverSet = serverDefault !== undefined || onUpdate;
  const meta: PropertyMetadata = {
    name: p.name,
    type,
    array: p.array,
    identifier: isIdentifier,
    required: c.required === true,
    nullable: c.nullable !== false,
    // An int identifier is the store's to assign (as API Platform's generated ids): read-only unless the file
    // says `readOnly: false`. A string identifier is the client's to choose (else a UUID v7 is assigned).
    // A value the server sets is read-only too, unless `readOnly: false` lets a client give it.
    readOnly: c.readOnly === true || ((serverSet || (isIdentifier && type === 'int')) && c.readOnly !== false),
    writeOnly: c.writeOnly === true,
    constrained: VALIDATION_CONSTRAINTS.some((k) => k in c),
    throwOnAccessDenied: c.throwOnAccessDenied === true,
  };
  if (serverDefault !== undefined) meta.serverDefault = serverDefault;
  if (onUpdate) meta.onUpdate = 'now';
  if (typeof c.security === 'string') meta.security = compileGuard(c.security);
  if (typeof c.securityPostDenormalize === 'string')
    meta.securityPostDenormalize = compileGuard(c.securityPostDenormalize);
  if (resources.has(type)) {
    meta.relation = type;
    meta.onDelete = ON_DELETE_ACTIONS.find((a) => a === c.onDelete) ?? 'restrict';
    if (typeof c.maxDepth === 'number') meta.maxDepth = c.maxDepth;
    if (c.owned === true && meta.array) meta.owned = true;
  }
  if (validation) meta.validation = validation;
  if (c.unique === true) meta.unique = true;
  const asserts = assertionsOf(c.assert);
  if (asserts) meta.asserts = asserts;
  for (const key of [
    'default',
    ...VALIDATED.filter((name) => name !== 'required'),
    'groups',
    'description',
    'renamedFrom',
  ]) {
    if (c[key] !== undefined && c[key] !== null) (meta as unknown as Plain)[key] = c[key];
  }
  return meta;
}

/**
 * A `default` the server computes: the bare word `now` (the checker allows it on datetime and date only, where a
 * string "now" is no valid literal) or `{ expression: "…" }`; undefined for a literal default.
 */
function serverDefaultOf(value: unknown, type: string): PropertyMetadata['serverDefault'] {
  if (value === 'now' && (type === 'datetime' || type === 'date')) return 'now';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const source = (value as Plain).expression;
  return keys.length === 1 && typeof source === 'string' ? compileDefaultValue(source) : undefined;
}

export function fieldType(p: PropertyMetadata): FieldType {
  if (p.array) return 'array';
  if (p.relation) return 'iri';
  return (['int', 'number', 'string', 'bool', 'datetime', 'date'].includes(p.type) ? p.type : 'json') as FieldType;
}

/** The `assert` constraints written (one object or a list), compiled; undefined when there are none. */
export function assertionsOf(written: unknown): Assertion[] | undefined {
  if (written === undefined || written === null) return undefined;
  const list = (Array.isArray(written) ? written : [written]) as Plain[];
  return list.map((a) => ({
    expression: compileAssertion(String(a.expression)),
    ...(typeof a.message === 'string' ? { message: a.message } : {}),
    groups: Array.isArray(a.groups) ? a.groups.map(String) : ['Default'],
  }));
}

/** What the store records of a property's rules, to compare a later file with (store/layout.ts). */
export function fieldRules(p: PropertyMetadata): FieldRules {
  const rules: FieldRules = {};
  if (p.required) rules.required = true;
  for (const key of ['default', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'] as const) {
    if (p[key] !== undefined) (rules as Record<string, unknown>)[key] = p[key];
  }
  return rules;
}
