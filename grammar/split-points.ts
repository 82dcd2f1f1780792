/**
 * Where a parsed text may be cut so that an edit re-parses only the top-level declarations it touches
 * (reparse.ts). A cut just before a declaration is safe when the parser was at the top level there and
 * nothing before it looked past it: the declaration starts a line, no bracket is open before it (the
 * placement of later syntax errors depends on the open brackets), and no parsing error occurred at its
 * first token (recovery there peeks at the tokens that follow).
 */
import type * as A from './ast.js';
import * as T from './lexer.js';
import { isRealToken, type RawParse } from './parser.js';

export interface SplitPoints {
  /** One flag per top-level declaration, in order: may the text be cut just before it? */
  before: boolean[];
  /**
   * False when a diagnostic depends on the whole text (a parsing error at the end of the file, whose
   * placement scans every bracket; brackets nested too deeply): then no cut is safe.
   */
  reusable: boolean;
}

const isLineBreak = (c: string | undefined): boolean => c === '\n' || c === '\r';

export function splitPoints(raw: RawParse, declarations: A.Declaration[], text: string): SplitPoints {
  const errorAt = new Set<number>();
  let reusable = !raw.diagnostics.some((d) => d.code === 'nested-too-deeply');
  for (const e of raw.parseErrors) {
    if (isRealToken(e.token)) errorAt.add(e.token.startOffset);
    else reusable = false;
  }
  const before: boolean[] = [];
  let depth = 0;
  let t = 0;
  for (const decl of declarations) {
    const start = decl.range.start;
    for (; t < raw.tokens.length && raw.tokens[t]!.startOffset < start; t++) {
      const type = raw.tokens[t]!.tokenType;
      if (type === T.LCurly || type === T.LBracket) depth++;
      else if ((type === T.RCurly || type === T.RBracket) && depth > 0) depth--;
    }
    before.push(depth === 0 && isLineBreak(text[start - 1]) && !errorAt.has(start));
  }
  return { before, reusable };
}
