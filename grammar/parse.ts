/**
 * `parse(text)`: the AST (built by the parser's actions) and every syntax-level diagnostic,
 * with lexing and parsing errors placed where the defect is. Tokens inserted by Chevrotain's
 * recovery have no position; they are never used for a range.
 */
import type { IToken } from '#chevrotain';
import type * as A from './ast.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { UnterminatedComment } from './lexer.js';
import { isRealToken as isReal, parseRaw, type RawParse } from './parser.js';
import { LineIndex } from './positions.js';
import { splitPoints, type SplitPoints } from './split-points.js';

export interface ParseResult {
  document: A.Document;
  diagnostics: Diagnostic[];
  lines: LineIndex;
  text: string;
  /** Where the text may be cut to re-parse only part of it after an edit (see reparse.ts). */
  splits: SplitPoints;
}

const tokenRange = (t: IToken): A.Range => ({ start: t.startOffset, end: t.startOffset + t.image.length });

class Builder {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly raw: RawParse,
    private readonly lines: LineIndex,
  ) {}

  private line(offset: number): number {
    return this.lines.position(offset).line;
  }

  document(): A.Document {
    const comments: A.Comment[] = this.raw.comments.map((t) => {
      if (t.tokenType === UnterminatedComment) {
        this.diagnostics.push(
          diagnostic(
            'unterminated-comment',
            { start: t.startOffset, end: t.startOffset + 2 },
            "'/*' comment is never closed with '*/'",
          ),
        );
      }
      return { text: t.image, range: tokenRange(t), block: t.image.startsWith('/*') };
    });
    return { declarations: this.raw.declarations, comments, range: { start: 0, end: this.lines.text.length } };
  }

  /** Lexing and parsing errors, one per line (later ones on a line are cascades). */
  syntaxErrors(): void {
    const text = this.lines.text;
    for (const e of this.raw.lexErrors) {
      const ch = String.fromCodePoint(text.codePointAt(e.offset) ?? 0);
      this.diagnostics.push(
        diagnostic('invalid-character', { start: e.offset, end: e.offset + ch.length }, `unexpected character '${ch}'`),
      );
    }
    for (const e of this.raw.parseErrors) {
      const placed = this.placeParseError(e.token, e.previousToken, e.message);
      this.diagnostics.push(diagnostic('syntax-error', placed.range, placed.message));
    }
  }

  /**
   * Where a parsing error is reported. A token found on a later line than the one before it
   * means something is missing at the end of that earlier line: report it there. At the end
   * of the file, an unclosed bracket is reported at the bracket.
   */
  private placeParseError(
    found: IToken,
    previous: IToken | undefined,
    message: string,
  ): { range: A.Range; message: string } {
    if (!isReal(found)) {
      const unclosed = this.unclosedBracket();
      if (unclosed) return { range: tokenRange(unclosed), message: `'${unclosed.image}' is never closed` };
      const last = isReal(previous) ? previous : this.raw.tokens.findLast(isReal);
      return { range: last ? tokenRange(last) : { start: 0, end: 0 }, message };
    }
    const closer = /^expected '([}\]])'/.exec(message)?.[1];
    if (closer) {
      const open = this.openBracketBefore(found.startOffset);
      if (open) return { range: tokenRange(open), message: `'${open.image}' is never closed: ${message}` };
    }
    if (
      isReal(previous) &&
      message.startsWith('expected') &&
      this.line(found.startOffset) > this.line(previous.startOffset + previous.image.length - 1)
    ) {
      return {
        range: tokenRange(previous),
        message: `${message.replace(/ but found .*$/, '')} after '${previous.image}'`,
      };
    }
    return { range: tokenRange(found), message };
  }

  /** The innermost bracket still open just before an offset. */
  private openBracketBefore(offset: number): IToken | undefined {
    const { starts, innermost } = (this.brackets ??= this.bracketIndex());
    // The first token at or after the offset: the stack as it stands before it.
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! < offset) low = mid + 1;
      else high = mid;
    }
    return innermost[low];
  }

  /** Made once per parse (parsing errors ask for it one by one, so a scan each time would be quadratic). */
  private brackets: { starts: number[]; innermost: (IToken | undefined)[] } | undefined;

  /** For each real token, its offset and the innermost bracket open before it (then the one open at the end). */
  private bracketIndex(): { starts: number[]; innermost: (IToken | undefined)[] } {
    const stack: IToken[] = [];
    const starts: number[] = [];
    const innermost: (IToken | undefined)[] = [];
    for (const t of this.raw.tokens) {
      if (!isReal(t)) continue;
      starts.push(t.startOffset);
      innermost.push(stack[stack.length - 1]);
      if (t.image === '{' || t.image === '[') stack.push(t);
      else if (t.image === '}' || t.image === ']') stack.pop();
    }
    innermost.push(stack[stack.length - 1]);
    return { starts, innermost };
  }

  /**
   * The bracket left open at the end of the file. Indentation points at it: when a closing
   * bracket sits on its own line at another indentation than its opener's line, that opener
   * is the one whose own closer is missing.
   */
  private unclosedBracket(): IToken | undefined {
    const stack: IToken[] = [];
    const suspects: IToken[] = [];
    const indent = (offset: number): number => {
      const l = this.lines.lineText(this.line(offset));
      return l.length - l.trimStart().length;
    };
    for (const t of this.raw.tokens) {
      if (!isReal(t)) continue;
      if (t.image === '{' || t.image === '[') stack.push(t);
      else if (t.image === '}' || t.image === ']') {
        const open = stack.pop();
        const ownLine = this.lines.lineText(this.line(t.startOffset)).trim().startsWith(t.image);
        if (
          open &&
          ownLine &&
          this.line(open.startOffset) !== this.line(t.startOffset) &&
          indent(open.startOffset) !== indent(t.startOffset)
        ) {
          suspects.push(open);
        }
      }
    }
    if (stack.length === 0) return undefined;
    return suspects[0] ?? stack[stack.length - 1];
  }
}

/**
 * Keeps the first syntax-level diagnostic of each line: later ones are cascades of it. Nesting too deep is
 * always kept: it says why the rest of the line was not read.
 */
function firstPerLine(diagnostics: Diagnostic[], lines: LineIndex): Diagnostic[] {
  const seen = new Set<number>();
  const sorted = [...diagnostics].sort((a, b) => a.range.start - b.range.start);
  return sorted.filter((d) => {
    if (d.code === 'nested-too-deeply') return true;
    const line = lines.position(d.range.start).line;
    if (seen.has(line)) return false;
    seen.add(line);
    return true;
  });
}

/** The AST's parts and the syntax diagnostics of a raw parse (of a whole text, or of a region of it: see reparse.ts). */
export function buildParts(raw: RawParse, lines: LineIndex): { document: A.Document; diagnostics: Diagnostic[] } {
  const builder = new Builder(raw, lines);
  const document = builder.document();
  builder.syntaxErrors();
  return { document, diagnostics: firstPerLine([...raw.diagnostics, ...builder.diagnostics], lines) };
}

/** Parses a `.api` text into an AST and its syntax diagnostics. Never throws. */
export function parse(text: string): ParseResult {
  const lines = new LineIndex(text);
  const raw = parseRaw(text, lines);
  const { document, diagnostics } = buildParts(raw, lines);
  return { document, diagnostics, lines, text, splits: splitPoints(raw, document.declarations, text) };
}
