/**
 * AST ranges (UTF-16 offsets into the text) to LSP ranges and back, through the LSP text
 * document, so positions stay right after multibyte text. Any offset is clamped into the
 * text first: a published range is always valid.
 */
import type { Position, Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';

const clamp = (doc: TextDocument, offset: number): number => {
  const length = doc.getText().length;
  return Number.isFinite(offset) ? Math.max(0, Math.min(Math.trunc(offset), length)) : length;
};

export function toRange(doc: TextDocument, range: A.Range): Range {
  const start = clamp(doc, range.start);
  const end = Math.max(start, clamp(doc, range.end));
  return { start: doc.positionAt(start), end: doc.positionAt(end) };
}

export function toOffset(doc: TextDocument, position: Position): number {
  return doc.offsetAt(position);
}

/** Does `inner` lie within `outer` (both LSP ranges)? */
export function within(inner: Range, outer: Range): boolean {
  const before = (a: Position, b: Position): boolean =>
    a.line < b.line || (a.line === b.line && a.character <= b.character);
  return before(outer.start, inner.start) && before(inner.end, outer.end);
}
