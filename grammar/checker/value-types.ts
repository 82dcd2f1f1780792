/**
 * A written value checked against a catalogue value type (`ValueType`, grammar/catalogue/types.ts): the
 * shape each kind takes, its bounds or allowed words, a record's fields, and what a reference names (a
 * declared filter or resource, a code file). Every rule that reads an option, a setting, a constraint or a
 * filter's block checks its values here. Security expressions are only collected on the context: the
 * security rule checks them last, with the URI variables in scope.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type * as A from '../ast.js';
import { describeType, TEXT_FORMATS, type TextFormat, type ValueType } from '../catalogue/index.js';
import type { DiagnosticCode } from '../diagnostics.js';
import { wordOf } from '../model.js';
import { closest, didYouMean } from '../suggest.js';
import type { CheckContext } from './check-context.js';

/** The type of one kind, e.g. `TypeOf<'record'>` with its `fields`. */
type TypeOf<K extends ValueType['kind']> = Extract<ValueType, { kind: K }>;

/** The check of each kind of type, given a value that is not `null`. */
type Check<K extends ValueType['kind']> = (ctx: CheckContext, value: A.Value, type: TypeOf<K>, where: string) => void;

const CHECKS: { [K in ValueType['kind']]: Check<K> } = {
  any: () => {},
  string: checkText,
  uriTemplate: checkText,
  int: checkNumber,
  number: checkNumber,
  bool: (ctx, value, type, where) => {
    if (value.kind !== 'bool') reportMismatch(ctx, value, type, where);
  },
  false: (ctx, value, type, where) => {
    if (value.kind !== 'bool' || value.value) reportMismatch(ctx, value, type, where);
  },
  enum: checkEnum,
  list: checkList,
  map: checkMap,
  phpArray: checkPhpArray,
  record: checkRecord,
  oneOf: checkOneOf,
  expression: checkExpression,
  codeRef: (ctx, value, type, where) => {
    if (value.kind !== 'string' && value.kind !== 'ident') return reportMismatch(ctx, value, type, where);
    checkCodeRef(ctx, value.kind === 'string' ? value.value : value.name, value.range, where, type.builtins ?? []);
  },
  filterRef: (ctx, value, type, where) =>
    checkReference(ctx, value, type, where, 'unknown-filter', 'filter', ctx.model.filters),
  resourceRef: (ctx, value, type, where) =>
    checkReference(ctx, value, type, where, 'unknown-resource', 'resource', ctx.model.resources),
  httpMethod: (ctx, value, type, where) => {
    const word = wordOf(value);
    if (word === undefined || !/^[A-Za-z]+$/.test(word)) reportMismatch(ctx, value, type, where);
  },
};

/** Checks a value against a catalogue type; `null` is accepted everywhere (the option is unset). */
export function checkValue(ctx: CheckContext, value: A.Value | undefined, type: ValueType, where: string): void {
  if (!value || value.kind === 'null') return;
  // The table pairs each kind with its check; TypeScript cannot follow the pairing through the lookup.
  (CHECKS[type.kind] as Check<ValueType['kind']>)(ctx, value, type, where);
}

function reportMismatch(ctx: CheckContext, value: A.Value, type: ValueType, where: string): void {
  ctx.report('invalid-value', value.range, `${where} expects ${describeType(type)}, not ${describeValue(value)}`);
}

/** A string or a bare word; a route template must also be well formed. */
function checkText(ctx: CheckContext, value: A.Value, type: TypeOf<'string' | 'uriTemplate'>, where: string): void {
  if (value.kind !== 'string' && value.kind !== 'ident') return reportMismatch(ctx, value, type, where);
  if (type.kind === 'uriTemplate') checkUriTemplate(ctx, value, where);
  else if (type.format) checkFormat(ctx, value, type.format, where);
}

/** A string of a fixed shape (an interval, an IP range). */
function checkFormat(ctx: CheckContext, value: A.StringValue | A.IdentValue, format: TextFormat, where: string): void {
  const text = value.kind === 'string' ? value.value : value.name;
  if (TEXT_FORMATS[format].conforms(text)) return;
  ctx.report('invalid-value', value.range, `${where} must be ${TEXT_FORMATS[format].describe}, not "${text}"`);
}

function checkUriTemplate(ctx: CheckContext, value: A.StringValue | A.IdentValue, where: string): void {
  const t = value.kind === 'string' ? value.value : value.name; // a bare word is no template either
  if (!t.startsWith('/')) ctx.report('invalid-uri-template', value.range, `${where} must start with '/': "${t}"`);
  else if (!/^(?:[^{}]|\{[A-Za-z_][A-Za-z0-9_]*\})*$/.test(t)) {
    ctx.report(
      'invalid-uri-template',
      value.range,
      `${where} has a malformed placeholder: write {name} with a name of letters, digits and _`,
    );
  }
}

function checkNumber(ctx: CheckContext, value: A.Value, type: TypeOf<'int' | 'number'>, where: string): void {
  if (value.kind !== 'number' || (type.kind === 'int' && !Number.isInteger(value.value)))
    return reportMismatch(ctx, value, type, where);
  if ((type.min !== undefined && value.value < type.min) || (type.max !== undefined && value.value > type.max)) {
    let bounds = `from ${type.min} to ${type.max}`;
    if (type.max === undefined) bounds = `${type.min} or more`;
    else if (type.min === undefined) bounds = `${type.max} or less`;
    ctx.report('invalid-value', value.range, `${where} must be ${bounds}, not ${value.raw}`);
  }
}

function checkEnum(ctx: CheckContext, value: A.Value, type: TypeOf<'enum'>, where: string): void {
  const word = wordOf(value);
  if (word === undefined) return reportMismatch(ctx, value, type, where);
  const ok = type.values.some((v) => (type.caseInsensitive ? v.toLowerCase() === word.toLowerCase() : v === word));
  if (ok) return;
  const suggestion = closest(word, type.values);
  ctx.report(
    'invalid-value',
    value.range,
    `${where} must be ${describeType(type)}, not '${word}'${didYouMean(suggestion)}`,
    suggestion,
  );
}

function checkList(ctx: CheckContext, value: A.Value, type: TypeOf<'list'>, where: string): void {
  if (value.kind !== 'array') return reportMismatch(ctx, value, type, where);
  for (const item of value.items) checkValue(ctx, item, type.of, `an item of ${where}`);
}

function checkMap(ctx: CheckContext, value: A.Value, type: TypeOf<'map'>, where: string): void {
  if (value.kind !== 'object') return reportMismatch(ctx, value, type, where);
  ctx.duplicateKeys(value.entries, 'key');
  for (const e of value.entries) checkValue(ctx, e.value, type.of, `'${e.key.text}' of ${where}`);
}

/** A list or an object with any content; only an object's keys are checked (once each). */
function checkPhpArray(ctx: CheckContext, value: A.Value, type: TypeOf<'phpArray'>, where: string): void {
  if (value.kind !== 'array' && value.kind !== 'object') return reportMismatch(ctx, value, type, where);
  if (value.kind === 'object') ctx.duplicateKeys(value.entries, 'key');
}

function checkRecord(ctx: CheckContext, value: A.Value, type: TypeOf<'record'>, where: string): void {
  if (isEmptyList(value, type)) return;
  if (value.kind !== 'object') return reportMismatch(ctx, value, type, where);
  ctx.duplicateKeys(value.entries, 'field');
  for (const e of value.entries) checkRecordField(ctx, e, type, where);
  for (const [name, field] of Object.entries(type.fields)) {
    if (field.required && !value.entries.some((e) => e.key.text === name)) {
      ctx.report('invalid-value', value.range, `${where} needs '${name}'`);
    }
  }
}

/** `[]` where the record takes PHP's empty array as the empty object (`emptyList`). */
const isEmptyList = (value: A.Value, type: TypeOf<'record'>): boolean =>
  type.emptyList === true && value.kind === 'array' && value.items.length === 0;

/** One field of a record: known (and supported) unless the record is open, and of its type. */
function checkRecordField(ctx: CheckContext, e: A.Entry, type: TypeOf<'record'>, where: string): void {
  const field = type.fields[e.key.text];
  if (field?.unsupported?.refuse) {
    ctx.report(
      'unsupported-guard',
      e.key.range,
      `'${e.key.text}' of ${where} is not supported yet, and a guard that is not enforced would leave the route open: write the expression in the operation's \`security\` (it sees URI variables by name)`,
    );
  } else if (field?.unsupported) {
    ctx.report(
      'not-supported',
      e.key.range,
      `'${e.key.text}' of ${where} is not supported yet: it has no effect in apidsl`,
    );
  }
  if (field) checkValue(ctx, e.value, field.type, `'${e.key.text}'`);
  else if (!type.open)
    ctx.unknown(
      'unknown-option',
      e.key,
      `field of ${where}`,
      Object.keys(type.fields),
      `; expected ${Object.keys(type.fields).join(', ')}`,
    );
}

/** Checked against the first alternative whose shape the value has. */
function checkOneOf(ctx: CheckContext, value: A.Value, type: TypeOf<'oneOf'>, where: string): void {
  const alternative = type.of.find((t) => valueMatchesShape(value, t));
  if (alternative) checkValue(ctx, value, alternative, where);
  else reportMismatch(ctx, value, type, where);
}

/** A string, remembered for the security rule (run last), which parses and checks it. */
function checkExpression(ctx: CheckContext, value: A.Value, type: TypeOf<'expression'>, where: string): void {
  if (value.kind !== 'string') return reportMismatch(ctx, value, type, where);
  ctx.expressions.set(value, where);
}

/** The name of something the file declares (a filter, a resource). */
function checkReference(
  ctx: CheckContext,
  value: A.Value,
  type: TypeOf<'filterRef' | 'resourceRef'>,
  where: string,
  code: DiagnosticCode,
  what: string,
  declared: ReadonlyMap<string, unknown>,
): void {
  const name = wordOf(value);
  if (name === undefined) return reportMismatch(ctx, value, type, where);
  if (!declared.has(name)) ctx.unknown(code, { text: name, range: value.range }, what, declared.keys());
}

/** `"./file.mjs#export"` (or a built-in name); the file must exist when the base dir is known. */
export function checkCodeRef(
  ctx: CheckContext,
  ref: string,
  range: A.Range,
  where: string,
  builtins: readonly string[],
): void {
  if (builtins.includes(ref)) return;
  const m = /^(.+)#([A-Za-z_$][\w$]*)$/.exec(ref);
  if (!m) {
    const extra = builtins.length ? ` or ${builtins.map((b) => `"${b}"`).join(', ')}` : '';
    ctx.report(
      'invalid-code-reference',
      range,
      `${where} must be "<file relative to the .api file>#<export>"${extra}, not "${ref}"`,
    );
    return;
  }
  if (ctx.env.baseDir === undefined) return;
  const file = isAbsolute(m[1]) ? m[1] : resolve(ctx.env.baseDir, m[1]);
  if (!(ctx.env.fileExists ?? existsSync)(file))
    ctx.report('invalid-code-reference', range, `${where}: module file '${m[1]}' does not exist (looked for ${file})`);
}

/** Does a value have the JSON shape of a type (for choosing among oneOf alternatives)? */
export function valueMatchesShape(value: A.Value, type: ValueType): boolean {
  switch (type.kind) {
    case 'string':
    case 'codeRef':
    case 'expression':
    case 'uriTemplate':
    case 'filterRef':
    case 'resourceRef':
    case 'httpMethod':
      return value.kind === 'string' || value.kind === 'ident';
    case 'enum':
      return value.kind === 'string' || value.kind === 'ident';
    case 'int':
    case 'number':
      return value.kind === 'number';
    case 'bool':
      return value.kind === 'bool';
    case 'false':
      return value.kind === 'bool' && !value.value;
    case 'list':
      return value.kind === 'array';
    case 'map':
      return value.kind === 'object';
    case 'record':
      return value.kind === 'object' || isEmptyList(value, type);
    case 'phpArray':
      return value.kind === 'array' || value.kind === 'object';
    case 'oneOf':
      return type.of.some((t) => valueMatchesShape(value, t));
    case 'any':
      return true;
  }
}

function describeValue(value: A.Value): string {
  switch (value.kind) {
    case 'string':
      return `the string ${JSON.stringify(value.value)}`;
    case 'number':
      return `the number ${value.raw}`;
    case 'bool':
      return String(value.value);
    case 'null':
      return 'null';
    case 'ident':
      return `the name ${value.name}`;
    case 'array':
      return 'a list';
    case 'object':
      return 'an object';
  }
}
