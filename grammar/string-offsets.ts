/**
 * Offsets inside a string literal's value ↔ offsets in the `.api` text. A value's character i
 * comes from one or more characters of the literal as written (`\"`, `\u00e9`), so diagnostics
 * and editor features inside a string (security expressions) go through this map to land on the
 * exact column.
 */
import type { Range } from './ast.js';

export class StringOffsets {
  /** textOffset[i]: where the value's i-th character starts in the text; one more entry for the end. */
  private readonly textOffset: number[] = [];

  /** `text` is the whole file; `range` the literal's range, quotes included. */
  constructor(text: string, range: Range) {
    const bodyStart = range.start + 1;
    const bodyEnd = text[range.end - 1] === '"' && range.end - 1 > range.start ? range.end - 1 : range.end;
    let i = bodyStart;
    while (i < bodyEnd) {
      this.textOffset.push(i);
      if (text[i] !== '\\') i++;
      else if (text[i + 1] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
      else i += 2;
    }
    this.textOffset.push(Math.min(i, bodyEnd));
  }

  /** The text offset of a value offset (clamped to the literal). */
  toText(valueOffset: number): number {
    const last = this.textOffset.length - 1;
    return this.textOffset[Math.max(0, Math.min(valueOffset, last))];
  }

  /** The value offset of a text offset inside the literal (the character it belongs to). */
  toValue(textOffset: number): number {
    let lo = 0;
    let hi = this.textOffset.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.textOffset[mid] <= textOffset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  rangeInText(start: number, end: number): Range {
    return { start: this.toText(start), end: this.toText(Math.max(end, start)) };
  }
}
