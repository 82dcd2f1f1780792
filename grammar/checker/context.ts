/**
 * What every checker rule works with: the model, the environment (for code references) and
 * the diagnostics list, plus the value-against-type check they all share.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type * as A from '../ast.js';
import { describeType, type ValueType } from '../catalogue/index.js';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.js';
import { wordOf, type ApiModel } from '../model.js';
import { closest, didYouMean } from '../suggest.js';

export interface CheckEnv {
  /** Directory of the .api file; code references are resolved against it. Undefined: not checked. */
  baseDir?: string;
  fileExists?: (path: string) => boolean;
}

export class CheckContext {
  readonly diagnostics: Diagnostic[] = [];
  /**
   * Security expressions met while checking values, with what to call them in messages. The
   * security rule (run last) checks each one, with the URI variables in scope where it knows them.
   */
  readonly expressions = new Map<A.StringValue, string>();

  constructor(
    readonly model: ApiModel,
    readonly env: CheckEnv,
    /** The file's text, to place diagnostics inside string literals. */
    readonly text = '',
  ) {}

  report(code: DiagnosticCode, range: A.Range, message: string, suggestion?: string): void {
    this.diagnostics.push(diagnostic(code, range, message, suggestion));
  }

  /** Reports a name not among `candidates`, proposing the closest one (else adding `hint`). */
  unknown(code: DiagnosticCode, name: A.Name, what: string, candidates: Iterable<string>, hint = ''): void {
    const suggestion = closest(name.text, candidates);
    this.report(
      code,
      name.range,
      `unknown ${what} '${name.text}'${suggestion ? didYouMean(suggestion) : hint}`,
      suggestion,
    );
  }

  /** Reports the second and later entries of a block that repeat a key. */
  duplicateKeys(entries: A.Entry[], what: string): void {
    const seen = new Set<string>();
    for (const e of entries) {
      if (seen.has(e.key.text))
        this.report('duplicate-key', e.key.range, `${what} '${e.key.text}' is given twice in this block`);
      seen.add(e.key.text);
    }
  }

  /** Checks a value against a catalogue type; `null` is accepted everywhere (the option is unset). */
  value(value: A.Value | undefined, type: ValueType, where: string): void {
    if (!value || value.kind === 'null') return;
    const mismatch = (): void =>
      this.report('invalid-value', value.range, `${where} expects ${describeType(type)}, not ${describeValue(value)}`);
    switch (type.kind) {
      case 'any':
        return;
      case 'string':
      case 'uriTemplate':
        if (value.kind !== 'string' && value.kind !== 'ident') return mismatch();
        if (type.kind === 'uriTemplate') this.uriTemplate(value, where);
        return;
      case 'int':
      case 'number': {
        if (value.kind !== 'number' || (type.kind === 'int' && !Number.isInteger(value.value))) return mismatch();
        if ((type.min !== undefined && value.value < type.min) || (type.max !== undefined && value.value > type.max)) {
          let bounds = `from ${type.min} to ${type.max}`;
          if (type.max === undefined) bounds = `${type.min} or more`;
          else if (type.min === undefined) bounds = `${type.max} or less`;
          this.report('invalid-value', value.range, `${where} must be ${bounds}, not ${value.raw}`);
        }
        return;
      }
      case 'bool':
        if (value.kind !== 'bool') mismatch();
        return;
      case 'false':
        if (value.kind !== 'bool' || value.value) mismatch();
        return;
      case 'enum': {
        const word = wordOf(value);
        if (word === undefined) return mismatch();
        const ok = type.values.some((v) =>
          type.caseInsensitive ? v.toLowerCase() === word.toLowerCase() : v === word,
        );
        if (!ok) {
          const suggestion = closest(word, type.values);
          this.report(
            'invalid-value',
            value.range,
            `${where} must be ${describeType(type)}, not '${word}'${didYouMean(suggestion)}`,
            suggestion,
          );
        }
        return;
      }
      case 'list':
        if (value.kind !== 'array') return mismatch();
        for (const item of value.items) this.value(item, type.of, `an item of ${where}`);
        return;
      case 'map':
        if (value.kind !== 'object') return mismatch();
        this.duplicateKeys(value.entries, 'key');
        for (const e of value.entries) this.value(e.value, type.of, `'${e.key.text}' of ${where}`);
        return;
      case 'phpArray':
        if (value.kind !== 'array' && value.kind !== 'object') return mismatch();
        if (value.kind === 'object') this.duplicateKeys(value.entries, 'key');
        return;
      case 'record': {
        if (value.kind !== 'object') return mismatch();
        this.duplicateKeys(value.entries, 'field');
        for (const e of value.entries) {
          const field = type.fields[e.key.text];
          if (field?.unsupported?.refuse) {
            this.report(
              'unsupported-guard',
              e.key.range,
              `'${e.key.text}' of ${where} is not supported yet, and a guard that is not enforced would leave the route open: write the expression in the operation's \`security\` (it sees URI variables by name)`,
            );
          } else if (field?.unsupported) {
            this.report(
              'not-supported',
              e.key.range,
              `'${e.key.text}' of ${where} is not supported yet: it has no effect in apidsl`,
            );
          }
          if (field) this.value(e.value, field.type, `'${e.key.text}'`);
          else if (!type.open)
            this.unknown(
              'unknown-option',
              e.key,
              `field of ${where}`,
              Object.keys(type.fields),
              `; expected ${Object.keys(type.fields).join(', ')}`,
            );
        }
        for (const [name, field] of Object.entries(type.fields)) {
          if (field.required && !value.entries.some((e) => e.key.text === name)) {
            this.report('invalid-value', value.range, `${where} needs '${name}'`);
          }
        }
        return;
      }
      case 'oneOf': {
        if (type.of.some((t) => valueMatchesShape(value, t))) {
          this.value(
            value,
            type.of.find((t) => valueMatchesShape(value, t))!,
            where,
          );
        } else mismatch();
        return;
      }
      case 'expression': {
        if (value.kind !== 'string') return mismatch();
        this.expressions.set(value, where);
        return;
      }
      case 'codeRef':
        if (value.kind !== 'string' && value.kind !== 'ident') return mismatch();
        this.codeRef(value.kind === 'string' ? value.value : value.name, value.range, where, type.builtins ?? []);
        return;
      case 'filterRef': {
        const name = wordOf(value);
        if (name === undefined) return mismatch();
        if (!this.model.filters.has(name))
          this.unknown('unknown-filter', { text: name, range: value.range }, 'filter', this.model.filters.keys());
        return;
      }
      case 'resourceRef': {
        const name = wordOf(value);
        if (name === undefined) return mismatch();
        if (!this.model.resources.has(name))
          this.unknown('unknown-resource', { text: name, range: value.range }, 'resource', this.model.resources.keys());
        return;
      }
      case 'httpMethod': {
        const word = wordOf(value);
        if (word === undefined || !/^[A-Za-z]+$/.test(word)) mismatch();
        return;
      }
    }
  }

  /** `"./file.mjs#export"` (or a built-in name); the file must exist when the base dir is known. */
  codeRef(ref: string, range: A.Range, where: string, builtins: readonly string[]): void {
    if (builtins.includes(ref)) return;
    const m = /^(.+)#([A-Za-z_$][\w$]*)$/.exec(ref);
    if (!m) {
      const extra = builtins.length ? ` or ${builtins.map((b) => `"${b}"`).join(', ')}` : '';
      this.report(
        'invalid-code-reference',
        range,
        `${where} must be "<file relative to the .api file>#<export>"${extra}, not "${ref}"`,
      );
      return;
    }
    if (this.env.baseDir === undefined) return;
    const file = isAbsolute(m[1]) ? m[1] : resolve(this.env.baseDir, m[1]);
    if (!(this.env.fileExists ?? existsSync)(file))
      this.report(
        'invalid-code-reference',
        range,
        `${where}: module file '${m[1]}' does not exist (looked for ${file})`,
      );
  }

  uriTemplate(value: A.StringValue | A.IdentValue, where: string): void {
    const t = value.kind === 'string' ? value.value : value.name; // a bare word is no template either
    if (!t.startsWith('/')) this.report('invalid-uri-template', value.range, `${where} must start with '/': "${t}"`);
    else if (!/^(?:[^{}]|\{[A-Za-z_][A-Za-z0-9_]*\})*$/.test(t)) {
      this.report(
        'invalid-uri-template',
        value.range,
        `${where} has a malformed placeholder: write {name} with a name of letters, digits and _`,
      );
    }
  }
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
    case 'record':
      return value.kind === 'object';
    case 'phpArray':
      return value.kind === 'array' || value.kind === 'object';
    case 'oneOf':
      return type.of.some((t) => valueMatchesShape(value, t));
    case 'any':
      return true;
  }
}

export function describeValue(value: A.Value): string {
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
