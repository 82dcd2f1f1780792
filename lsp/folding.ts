/**
 * Folding ranges from the tokens, so they work on broken text too: every bracket pair and
 * block comment spanning lines, and runs of line comments.
 */
import { FoldingRangeKind, type FoldingRange } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { apiLexer } from '../grammar/lexer.js';

export function foldingRanges(doc: TextDocument): FoldingRange[] {
  const text = doc.getText();
  const lexed = apiLexer.tokenize(text);
  const line = (offset: number): number => doc.positionAt(offset).line;
  const out: FoldingRange[] = [];
  const stack: { image: string; line: number }[] = [];
  for (const t of lexed.tokens) {
    if (t.image === '{' || t.image === '[') stack.push({ image: t.image, line: line(t.startOffset) });
    else if (t.image === '}' || t.image === ']') {
      const opener = t.image === '}' ? '{' : '[';
      const at = stack.map((s) => s.image).lastIndexOf(opener);
      if (at < 0) continue;
      const open = stack[at];
      stack.length = at;
      const end = line(t.startOffset) - 1;
      if (end > open.line) out.push({ startLine: open.line, endLine: end });
    }
  }
  let run: { start: number; end: number } | undefined;
  const flush = (): void => {
    if (run && run.end > run.start)
      out.push({ startLine: run.start, endLine: run.end, kind: FoldingRangeKind.Comment });
    run = undefined;
  };
  for (const c of lexed.groups.comments ?? []) {
    const start = line(c.startOffset);
    const end = line(c.startOffset + c.image.length);
    if (c.image.startsWith('/*')) {
      flush();
      if (end > start) out.push({ startLine: start, endLine: end, kind: FoldingRangeKind.Comment });
      continue;
    }
    const lineStart = doc.offsetAt({ line: start, character: 0 });
    if (text.slice(lineStart, c.startOffset).trim() !== '') {
      flush();
      continue;
    }
    if (run && start === run.end + 1) run.end = start;
    else {
      flush();
      run = { start, end: start };
    }
  }
  flush();
  return out.sort((a, b) => a.startLine - b.startLine);
}
