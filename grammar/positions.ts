/**
 * Offsets ↔ line/character positions. Offsets and characters count UTF-16 code units, as
 * JavaScript strings and the Language Server Protocol do, so an emoji counts as two.
 */
export interface Position {
  /** 0-based line. */
  line: number;
  /** 0-based column in UTF-16 code units. */
  character: number;
}

export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.lineStarts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.lineStarts.push(i + 1);
      }
    }
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** The position of an offset, clamped into the text. */
  position(offset: number): Position {
    const o = Math.max(0, Math.min(Number.isFinite(offset) ? offset : this.text.length, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.lineStarts[lo] };
  }

  offset(position: Position): number {
    const line = Math.max(0, Math.min(position.line, this.lineStarts.length - 1));
    const start = this.lineStarts[line];
    const end = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1] : this.text.length;
    return Math.min(start + Math.max(0, position.character), end);
  }

  lineStart(line: number): number {
    return this.lineStarts[Math.max(0, Math.min(line, this.lineStarts.length - 1))];
  }

  /** The text of a line without its line break. */
  lineText(line: number): string {
    const start = this.lineStart(line);
    const end = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1] : this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$|\r$/, '');
  }
}
