/**
 * The option catalogue: tables and lookups. See types.ts for the shapes.
 */
import { FILTER_KINDS } from './filters.js';
import { OPTIONS } from './options.js';
import { CONSTRAINTS, LIST, PROPERTY_TYPES, RELATION, TO_MANY } from './properties.js';
import { SETTINGS } from './settings.js';
import { TEXT_FORMATS } from './text-formats.js';
import type { ConstraintSpec, FilterKindSpec, OptionSpec, PropertyTypeSpec, SettingSpec, ValueType } from './types.js';

export * from './types.js';
export {
  OPTIONS,
  type DefaultedOptionName,
  type EffectiveOptionValue,
  type GlobalOptionName,
  type OptionName,
  type OptionValue,
} from './options.js';
export { SETTINGS } from './settings.js';
export { TEXT_FORMATS, graphQlNamedType, intervalSeconds, ipRange } from './text-formats.js';
export {
  DEFAULT_GRAPHQL_OPERATIONS,
  GRAPHQL_KIND_SPECS,
  GRAPHQL_SCALARS,
  GUARD_EXPRESSIONS,
  GUARD_MESSAGES,
  graphQlTwinKinds,
  type GraphQlKindSpec,
} from './graphql.js';
export {
  PROPERTY_TYPES,
  CONSTRAINTS,
  LIST,
  ON_DELETE_ACTIONS,
  RELATION,
  STRING_FORMATS,
  TO_MANY,
  VALIDATION_FORM,
} from './properties.js';
export {
  DATE_OPERATORS,
  FILTER_KINDS,
  RANGE_OPERATORS,
  type DateOperator,
  type FilterKindName,
  type RangeOperator,
} from './filters.js';

// Lookups by name, built once: the checker asks for every option, constraint and type on each analysis.
const OPTIONS_BY_NAME = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.name, o]));
const SETTINGS_BY_PATH = new Map(SETTINGS.map((s) => [s.path, s]));
const PROPERTY_TYPES_BY_NAME = new Map(PROPERTY_TYPES.map((t) => [t.name, t]));
const CONSTRAINTS_BY_NAME = new Map(CONSTRAINTS.map((c) => [c.name, c]));
const FILTER_KINDS_BY_NAME = new Map(FILTER_KINDS.map((k) => [k.name, k]));

export function optionByName(name: string): OptionSpec | undefined {
  return OPTIONS_BY_NAME.get(name);
}

/** A leaf setting by its dotted path (`collection.pagination.page_parameter_name`). */
export function settingByPath(path: string): SettingSpec | undefined {
  return SETTINGS_BY_PATH.get(path);
}

export function propertyType(name: string): PropertyTypeSpec | undefined {
  return PROPERTY_TYPES_BY_NAME.get(name);
}

/** The built-in type a name from another language means (`integer` → int, `Boolean` → bool), if any. */
export function typeWrittenElsewhere(name: string): PropertyTypeSpec | undefined {
  const lower = name.toLowerCase();
  return PROPERTY_TYPES.find((t) => t.writtenElsewhere?.includes(lower));
}

export function constraintByName(name: string): ConstraintSpec | undefined {
  return CONSTRAINTS_BY_NAME.get(name);
}

/**
 * Whether a constraint may be written on a property of `type` (a built-in type name, or a resource name when
 * `relation`), a list of them when `array`; an unknown type accepts every constraint (the type is reported instead).
 * A list constraint (LIST) applies to every list; the others apply to a list's elements, by their type.
 */
export function constraintApplies(
  spec: ConstraintSpec,
  type: string | undefined,
  relation: boolean,
  array = false,
): boolean {
  if (!spec.appliesTo || type === undefined) return true;
  if (spec.appliesTo.includes(LIST)) return array;
  if (spec.appliesTo.includes(TO_MANY)) return relation && array;
  return relation ? spec.appliesTo.includes(RELATION) : !propertyType(type) || spec.appliesTo.includes(type);
}

/** The types a constraint applies to, in words: `int, number`, `relations (Resource, Resource[])` or `lists (T[])`. */
export function appliesToText(types: readonly string[], quote: (t: string) => string = (t) => t): string {
  return types
    .map((t) => {
      if (t === RELATION) return `relations (${quote('Resource')}, ${quote('Resource[]')})`;
      if (t === TO_MANY) return `to-many relations (${quote('Resource[]')})`;
      return t === LIST ? `lists (${quote('T[]')}, ${quote('Resource[]')})` : quote(t);
    })
    .join(', ');
}

export function filterKind(name: string): FilterKindSpec | undefined {
  return FILTER_KINDS_BY_NAME.get(name);
}

/**
 * Names allowed directly under a config block path ('' for `config` itself), sorted.
 * A name is a leaf setting when `settingByPath(prefix + '.' + name)` finds it, else a nested block.
 */
export function settingChildren(prefix: string): string[] {
  const start = prefix === '' ? '' : `${prefix}.`;
  const names = new Set<string>();
  for (const s of SETTINGS) {
    if (s.path.startsWith(start)) names.add(s.path.slice(start.length).split('.')[0]!);
  }
  return [...names].sort();
}

function range(t: { min?: number; max?: number }): string {
  if (t.min !== undefined && t.max !== undefined) return ` (${t.min} to ${t.max})`;
  if (t.min !== undefined) return ` (${t.min} or more)`;
  if (t.max !== undefined) return ` (${t.max} or less)`;
  return '';
}

function recordText(fields: Record<string, { required?: boolean }>, open?: boolean): string {
  const names = Object.entries(fields).map(([k, f]) => (f.required ? k : `${k}?`));
  if (open) names.push('…');
  return `{ ${names.join(', ')} }`;
}

/** Plural noun phrase for the items of a list or the values of a map. */
function plural(t: ValueType): string {
  switch (t.kind) {
    case 'string':
      return t.format ? TEXT_FORMATS[t.format].plural : 'strings';
    case 'int':
      return `ints${range(t)}`;
    case 'number':
      return `numbers${range(t)}`;
    case 'bool':
      return 'bools';
    case 'list':
      return `lists of ${plural(t.of)}`;
    case 'map':
      return `maps of ${plural(t.of)}`;
    case 'phpArray':
      return 'lists or objects';
    case 'record':
      return `objects ${recordText(t.fields, t.open)}`;
    case 'expression':
      return 'security expressions';
    case 'codeRef':
      return 'code references';
    case 'filterRef':
      return 'filter names';
    case 'resourceRef':
      return 'resource names';
    case 'httpMethod':
      return 'HTTP methods';
    case 'uriTemplate':
      return 'URI templates';
    case 'any':
      return 'any values';
    default:
      return `(${describeType(t)})`;
  }
}

/** Human text for a type, used in error messages and docs: `int (0 or more)`, `"page" | "cursor"`. */
export function describeType(t: ValueType): string {
  switch (t.kind) {
    case 'string':
      return t.format ? TEXT_FORMATS[t.format].describe : 'string';
    case 'int':
      return `int${range(t)}`;
    case 'number':
      return `number${range(t)}`;
    case 'bool':
      return 'bool';
    case 'enum':
      return t.values.map((v) => JSON.stringify(v)).join(' | ');
    case 'list':
      return `list of ${plural(t.of)}`;
    case 'map':
      return `map of ${plural(t.of)}`;
    case 'phpArray':
      return 'list or object';
    case 'record':
      return `object ${recordText(t.fields, t.open)}${t.emptyList ? ' or []' : ''}`;
    case 'false':
      return 'false';
    case 'oneOf':
      return t.of.map(describeType).join(' or ');
    case 'expression':
      return 'security expression';
    case 'codeRef':
      return t.builtins && t.builtins.length > 0
        ? `"<file>#<export>" or ${t.builtins.map((b) => JSON.stringify(b)).join(' or ')}`
        : '"<file>#<export>"';
    case 'filterRef':
      return 'filter name';
    case 'resourceRef':
      return 'resource name';
    case 'httpMethod':
      return 'HTTP method';
    case 'uriTemplate':
      return 'URI template';
    case 'any':
      return 'any value';
  }
}

/** A default value as written in a `.api` file: `30`, `"page"`, `["a"]`, `{ jsonld: […] }`; `none` when undefined. */
export function formatDefault(v: unknown): string {
  if (v === undefined) return 'none';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(formatDefault).join(', ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    const key = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : JSON.stringify(k));
    return `{ ${entries.map(([k, x]) => `${key(k)}: ${formatDefault(x)}`).join(', ')} }`;
  }
  return JSON.stringify(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function inRange(n: number, t: { min?: number; max?: number }): boolean {
  return (t.min === undefined || n >= t.min) && (t.max === undefined || n <= t.max);
}

/**
 * Does a plain JavaScript value (as JSON would give it) have type `t`? Names (filters, resources)
 * are only checked to be strings; whether they are declared is the checker's business.
 */
export function valueConforms(v: unknown, t: ValueType): boolean {
  switch (t.kind) {
    case 'string':
      return typeof v === 'string' && (!t.format || TEXT_FORMATS[t.format].conforms(v));
    case 'expression':
    case 'filterRef':
    case 'resourceRef':
      return typeof v === 'string';
    case 'int':
      return Number.isInteger(v) && inRange(v as number, t);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) && inRange(v, t);
    case 'bool':
      return typeof v === 'boolean';
    case 'enum':
      return (
        typeof v === 'string' &&
        t.values.some((x) => (t.caseInsensitive ? x.toLowerCase() === v.toLowerCase() : x === v))
      );
    case 'list':
      return Array.isArray(v) && v.every((x) => valueConforms(x, t.of));
    case 'map':
      return isPlainObject(v) && Object.values(v).every((x) => valueConforms(x, t.of));
    case 'phpArray':
      return Array.isArray(v) || isPlainObject(v);
    case 'record':
      if (t.emptyList && Array.isArray(v) && v.length === 0) return true;
      return (
        isPlainObject(v) &&
        Object.entries(t.fields).every(([k, f]) => (k in v ? valueConforms(v[k], f.type) : !f.required)) &&
        (t.open === true || Object.keys(v).every((k) => k in t.fields))
      );
    case 'false':
      return v === false;
    case 'oneOf':
      return t.of.some((x) => valueConforms(v, x));
    case 'codeRef':
      return typeof v === 'string' && ((t.builtins ?? []).includes(v) || /^[^#]+#[^#]+$/.test(v));
    case 'httpMethod':
      return typeof v === 'string' && /^[A-Za-z]+$/.test(v);
    case 'uriTemplate':
      return typeof v === 'string' && v.startsWith('/');
    case 'any':
      return v !== undefined;
  }
}
