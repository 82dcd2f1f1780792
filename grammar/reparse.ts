/**
 * Incremental parsing: after an edit, only the top-level declarations the edit touches are lexed and
 * parsed again; the declarations before them are reused as they are, those after them moved by the
 * edit's length difference (in place: the previous result is superseded). The result is exactly `parse(text)` (test/grammar/reparse.test.ts checks it
 * over random edits); whenever that cannot be guaranteed cheaply (see split-points.ts, and the checks
 * below), `reparse` answers undefined and the caller parses the whole text.
 */
import type { TokenType } from '#chevrotain';
import type * as A from './ast.js';
import { buildParts, type ParseResult } from './parse.js';
import type { Diagnostic } from './diagnostics.js';
import * as T from './lexer.js';
import { isRealToken, parseRaw, type RawParse } from './parser.js';
import { LineIndex } from './positions.js';
import { splitPoints } from './split-points.js';

const KEYWORD = { api: T.Api, config: T.Config, filter: T.Filter, resource: T.Resource, mutator: T.Mutator } as const;

/** The single edit that turns `before` into `after`: `before[start, end)` became `after[start, end + delta)`. */
function editBetween(before: string, after: string): { start: number; end: number; delta: number } {
  const max = Math.min(before.length, after.length);
  const CHUNK = 1024; // whole chunks first: comparing slices is much faster than comparing characters
  let start = 0;
  while (start + CHUNK <= max && before.slice(start, start + CHUNK) === after.slice(start, start + CHUNK))
    start += CHUNK;
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let same = 0;
  while (
    same + CHUNK <= max - start &&
    before.slice(before.length - same - CHUNK, before.length - same) ===
      after.slice(after.length - same - CHUNK, after.length - same)
  )
    same += CHUNK;
  while (
    same < max - start &&
    before.charCodeAt(before.length - 1 - same) === after.charCodeAt(after.length - 1 - same)
  )
    same++;
  return { start, end: before.length - same, delta: after.length - before.length };
}

/** Re-parses `text`, an edited version of `previous.text`; undefined when only a full parse is exact. */
export function reparse(previous: ParseResult, text: string): ParseResult | undefined {
  if (!previous.splits.reusable) return undefined;
  if (previous.text === text) return previous;
  const edit = editBetween(previous.text, text);
  const decls = previous.document.declarations;
  const cuts = previous.splits.before;
  // The region: from the last cut strictly before the edit (the prefix's last token and the region's first
  // character are untouched) to the first cut strictly after it (the line break before it is untouched).
  let first = 0;
  for (let k = decls.length - 1; k > 0; k--) {
    if (cuts[k] && decls[k]!.range.start < edit.start) {
      first = k;
      break;
    }
  }
  let next = decls.length;
  for (let k = first + 1; k < decls.length; k++) {
    if (cuts[k] && decls[k]!.range.start > edit.end) {
      next = k;
      break;
    }
  }
  const start = first === 0 ? 0 : decls[first]!.range.start;
  const hasSuffix = next < decls.length;
  const stop = hasSuffix ? decls[next]!.range.start + edit.delta : text.length;
  // The declaration after the region is lexed and parsed too, for the parser to look ahead at as it would.
  const end = next + 1 < decls.length ? decls[next + 1]!.range.start + edit.delta : text.length;
  const lines = new LineIndex(text);
  const raw = parseRaw(text, lines, { start, stop, end });
  if (!regionStandsAlone(raw, start, stop, hasSuffix, first === 0 ? undefined : KEYWORD[decls[first]!.kind]))
    return undefined;
  const region = buildParts(
    {
      ...raw,
      comments: raw.comments.filter((c) => c.startOffset < stop),
      lexErrors: raw.lexErrors.filter((e) => e.offset < stop),
    },
    lines,
  );
  if (region.diagnostics.some((d) => d.range.start < start || d.range.start >= stop)) return undefined;

  const suffixStart = hasSuffix ? decls[next]!.range.start : previous.text.length;
  const before = <N extends { range: A.Range }>(n: N): boolean => n.range.start < start;
  const after = <N extends { range: A.Range }>(n: N): boolean => n.range.start >= suffixStart;
  const suffix = {
    declarations: decls.slice(next),
    comments: previous.document.comments.filter(after),
    diagnostics: previous.diagnostics.filter(after),
  };
  // Moved in place: `previous` is superseded by the result (its declarations are shared, not copied).
  if (edit.delta !== 0) shiftRanges(suffix, edit.delta, new Set());
  const declarations = [...decls.slice(0, first), ...region.document.declarations, ...suffix.declarations];
  const comments = [...previous.document.comments.filter(before), ...region.document.comments, ...suffix.comments];
  const diagnostics: Diagnostic[] = [
    ...previous.diagnostics.filter(before),
    ...region.diagnostics,
    ...suffix.diagnostics,
  ];
  const regionCuts = splitPoints(raw, region.document.declarations, text).before;
  return {
    document: { declarations, comments, range: { start: 0, end: text.length } },
    diagnostics,
    lines,
    text,
    splits: { before: [...cuts.slice(0, first), ...regionCuts, ...cuts.slice(next)], reusable: true },
  };
}

/**
 * Whether the region parsed on its own as it would inside the whole text: it starts with the same keyword
 * (so the declaration before it decided the same), the parser stopped at the top level exactly at the
 * suffix, no bracket or comment is left open across the cut, and nothing was read or placed against the
 * end of the file.
 */
function regionStandsAlone(
  raw: RawParse & { stopped: boolean },
  start: number,
  stop: number,
  hasSuffix: boolean,
  keyword: TokenType | undefined,
): boolean {
  if (keyword && (raw.tokens[0]?.startOffset !== start || raw.tokens[0].tokenType !== keyword)) return false;
  if (raw.stopped !== hasSuffix) return false;
  if (raw.diagnostics.some((d) => d.code === 'nested-too-deeply')) return false;
  if (raw.parseErrors.some((e) => !isRealToken(e.token) || e.token.startOffset >= stop)) return false;
  if (raw.diagnostics.some((d) => d.range.start >= stop)) return false;
  if (!hasSuffix) return true;
  if (raw.comments.some((c) => c.tokenType === T.UnterminatedComment && c.startOffset < stop)) return false;
  let depth = 0;
  for (const t of raw.tokens) {
    if (t.startOffset >= stop) break;
    if (t.tokenType === T.LCurly || t.tokenType === T.LBracket) depth++;
    else if ((t.tokenType === T.RCurly || t.tokenType === T.RBracket) && depth > 0) depth--;
  }
  return depth === 0;
}

/**
 * Moves every range under `node` (AST nodes, comments, diagnostics) by `delta`, each range object once:
 * a diagnostic may hold the very range of the node it is about.
 */
function shiftRanges(node: unknown, delta: number, moved: Set<A.Range>): void {
  if (Array.isArray(node)) {
    for (const n of node) if (typeof n === 'object' && n !== null) shiftRanges(n, delta, moved);
    return;
  }
  const record = node as Record<string, unknown>;
  for (const key in record) {
    const value = record[key];
    if (typeof value !== 'object' || value === null) continue;
    if (key === 'range' || key === 'nameRange') {
      const r = value as A.Range;
      if (moved.has(r)) continue;
      moved.add(r);
      r.start += delta;
      r.end += delta;
    } else shiftRanges(value, delta, moved);
  }
}
