/** Document formatting: the canonical layout of grammar/format.ts, as one edit (none when the text has a syntax error). */
import type { TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { format } from '../grammar/format.js';
import { toRange } from './ranges.js';

export function formatting(doc: TextDocument): TextEdit[] {
  const text = doc.getText();
  const result = format(text);
  if (!result.ok || result.text === text) return [];
  return [{ range: toRange(doc, { start: 0, end: text.length }), newText: result.text }];
}
