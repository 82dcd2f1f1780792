/**
 * What every checker rule works with: the model, the environment (for code references) and
 * the diagnostics list, with the reports they share (an unknown name, a repeated key). Values
 * are checked against their catalogue type by value-types.ts.
 */
import type * as A from '../ast.js';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.js';
import type { ApiModel } from '../model.js';
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

  /** Reports an operation kind not among `kinds` (REST or GraphQL ones), naming them all when none is close. */
  unknownKind(kind: A.Name, what: string, kinds: readonly string[]): void {
    this.unknown('unknown-operation-kind', kind, what, kinds, `; kinds are ${kinds.join(', ')}`);
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
}
