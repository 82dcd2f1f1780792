/**
 * The defects fuzzing looks for in the front end, for one text: the checker or the formatter throwing, a diagnostic
 * whose range is not inside the text (as offsets, and as the language server publishes it: lines and characters),
 * a formatted text that formatting changes again, and formatting that changes a comment. Shared by the fuzz test
 * (test/grammar/fuzz.test.ts) and the long run (`npm run fuzz`, test/fuzz/run.ts).
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import { check } from '../../grammar/checker/index.js';
import { format } from '../../grammar/format.js';
import { parse } from '../../grammar/parse.js';
import { toLspDiagnostic } from '../../lsp/diagnostics.js';

export type DefectKind = 'check-throws' | 'range' | 'published-range' | 'format-throws' | 'unstable' | 'comment';

export interface Defect {
  kind: DefectKind;
  detail: string;
}

/** Comment texts as a sorted multiset (the formatter trims the trailing blanks of line comments, nothing else). */
export const commentTexts = (text: string): string[] =>
  parse(text)
    .document.comments.map((c) => (c.block ? c.text : c.text.trimEnd()))
    .sort();

function rangeDefects(text: string): Defect[] {
  const defects: Defect[] = [];
  const result = check(text);
  const doc = TextDocument.create('file:///fuzz.api', 'apidsl', 1, text);
  const lines = text.split(/\r\n|\r|\n/);
  for (const d of result.all) {
    const { start, end } = d.range;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > text.length)
      defects.push({ kind: 'range', detail: `${d.code} ${JSON.stringify(d.range)} in a text of ${text.length}` });
    const published = toLspDiagnostic(doc, d).range;
    for (const p of [published.start, published.end])
      if (p.line < 0 || p.line >= lines.length || p.character < 0 || p.character > lines[p.line].length)
        defects.push({ kind: 'published-range', detail: `${d.code} ${JSON.stringify(published)}` });
  }
  return defects;
}

function formatDefects(text: string): Defect[] {
  const once = format(text);
  if (!once.ok) return [];
  const defects: Defect[] = [];
  const twice = format(once.text);
  if (!twice.ok || twice.text !== once.text) defects.push({ kind: 'unstable', detail: JSON.stringify(once.text) });
  const before = commentTexts(text);
  const after = commentTexts(once.text);
  if (JSON.stringify(after) !== JSON.stringify(before))
    defects.push({ kind: 'comment', detail: `${JSON.stringify(before)} became ${JSON.stringify(after)}` });
  return defects;
}

/** What is wrong with how the front end handles `text`: nothing, for a text without defects. */
export function frontEndDefects(text: string): Defect[] {
  const defects: Defect[] = [];
  try {
    defects.push(...rangeDefects(text));
  } catch (e) {
    defects.push({ kind: 'check-throws', detail: (e as Error).message });
  }
  try {
    defects.push(...formatDefects(text));
  } catch (e) {
    defects.push({ kind: 'format-throws', detail: (e as Error).message });
  }
  return defects;
}
