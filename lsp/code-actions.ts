/**
 * Code actions: the quick fixes of grammar/fixes.ts for the diagnostics in the requested range,
 * as LSP workspace edits.
 */
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type Diagnostic as LspDiagnostic,
  type TextEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import { fixesFor } from '../grammar/fixes.js';
import type { Analysis } from './analysis.js';
import { toLspDiagnostic } from './diagnostics.js';
import { toOffset, toRange } from './ranges.js';

const overlaps = (a: A.Range, b: A.Range): boolean => a.start <= b.end && b.start <= a.end;

const sameDiagnostic = (a: LspDiagnostic, b: LspDiagnostic): boolean =>
  a.code === b.code &&
  a.range.start.line === b.range.start.line &&
  a.range.start.character === b.range.start.character &&
  a.range.end.line === b.range.end.line &&
  a.range.end.character === b.range.end.character;

export function codeActions(doc: TextDocument, analysis: Analysis, params: CodeActionParams): CodeAction[] {
  const only = params.context.only;
  if (
    only &&
    !only.some(
      (k) => k === CodeActionKind.QuickFix || CodeActionKind.QuickFix.startsWith(`${k}.`) || k === CodeActionKind.Empty,
    )
  )
    return [];
  const text = doc.getText();
  const requested = { start: toOffset(doc, params.range.start), end: toOffset(doc, params.range.end) };
  const actions: CodeAction[] = [];
  for (const d of analysis.result.all) {
    if (!overlaps(d.range, requested)) continue;
    const ours = toLspDiagnostic(doc, d);
    const theirs = params.context.diagnostics.find((c) => sameDiagnostic(c, ours)) ?? ours;
    for (const fix of fixesFor(text, analysis.result, d)) {
      const edits: TextEdit[] = fix.edits.map((e) => ({ range: toRange(doc, e.range), newText: e.newText }));
      const action: CodeAction = {
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [theirs],
        edit: { changes: { [doc.uri]: edits } },
      };
      if (fix.preferred) action.isPreferred = true;
      actions.push(action);
    }
  }
  return actions;
}
