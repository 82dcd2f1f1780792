/**
 * The canonical layout of a `.api` file (`apidsl fmt`, and the language server's formatting).
 *
 * The AST is first mapped to a uniform tree: every member (declaration, option, property,
 * operation, array item) is a one-line `head`, optionally followed by a bracketed `body` of
 * more members. The printer lays that tree out and places every comment by its position:
 * - a comment starting on the line where code ends (a member, or a block's opening bracket)
 *   stays at the end of that line;
 * - any other comment between members stands on its own line before the next member, or
 *   before the closing bracket;
 * - a comment inside a member's head (`key: /* c *\/ 1`) moves to its own line just before
 *   the member, as nothing can follow a line comment on its line.
 * A block holding a comment anywhere inside is always laid out one member per line, which
 * keeps every placement stable when the output is formatted again.
 *
 * When a block fits on one line (the same rule for every block: a resource, `properties`,
 * `defaults`, an option's object or list): when it holds no comment, every block inside it fits
 * on one line too, the whole line fits in 100 columns, and its first member starts on the line of
 * its opening bracket in the source. So `properties { id: int, name: string }` stays on one line,
 * and a block written one member per line stays that way (as Prettier does with objects).
 *
 * Trailing comments on consecutive lines are aligned one column after the longest code of the
 * run; a line without a trailing comment (or a blank line) ends the run.
 *
 * Blank lines: one is kept where the source has one or more, none after an opening bracket or
 * before a closing one; between two top-level declarations one is added when either of them
 * spans several lines, so only one-line declarations (filters, mutators) stand together.
 */
import type * as A from './ast.js';
import { parse } from './parse.js';
import type { DiagnosticCode } from './diagnostics.js';
import type { LineIndex } from './positions.js';

export type FormatResult = { ok: true; text: string } | { ok: false; reason: string };

const WIDTH = 100;

const SYNTAX_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  'syntax-error',
  'missing-separator',
  'missing-colon',
  'unterminated-string',
  'unterminated-comment',
  'invalid-escape',
  'invalid-character',
  'enum-list',
  'unknown-declaration',
  'nested-too-deeply', // the text too deep was not read: formatting would lose it
]);

interface Member {
  range: A.Range;
  head: string;
  body?: Block;
}

interface Block {
  /** Offsets of the opening and closing brackets (-1 and the text's length for the file). */
  open: number;
  close: number;
  members: Member[];
  square?: boolean;
}

/** Formats a `.api` text; refuses, naming the line, when it has a syntax error. */
export function format(text: string): FormatResult {
  const { document, diagnostics, lines } = parse(text);
  const error = diagnostics.find((d) => d.severity === 'error' && SYNTAX_CODES.has(d.code));
  if (error) return { ok: false, reason: `line ${lines.position(error.range.start).line + 1}: ${error.message}` };
  return { ok: true, text: new Printer(text, document.comments, lines).print(document) };
}

/**
 * An output line: its code and the trailing comments that follow it. They are kept apart until the
 * comments are aligned, so that nothing a comment holds (any character) can be taken for the code's end.
 */
interface Line {
  code: string;
  trailing: string[];
}

const codeOnly = (code: string): Line => ({ code, trailing: [] });

/** Aligns the trailing comments of each run of consecutive lines that end with one; the text of each line. */
function alignTrailingComments(lines: Line[]): string[] {
  const out = lines.map((l) => l.code);
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j < lines.length && lines[j].trailing.length > 0) j++;
    if (j === i) {
      i++;
      continue;
    }
    const column = Math.max(...lines.slice(i, j).map((l) => l.code.length)) + 2;
    for (let k = i; k < j; k++) out[k] = lines[k].code.padEnd(column) + lines[k].trailing.join('  ');
    i = j;
  }
  return out;
}

const indent = (depth: number): string => '  '.repeat(depth);
const contains = (r: A.Range, offset: number): boolean => r.start <= offset && offset < r.end;
const inBlock = (b: Block, offset: number): boolean => b.open < offset && offset < b.close;
const commentText = (c: A.Comment): string => (c.block ? c.text : c.text.trimEnd());

function leaf(v: Exclude<A.Value, A.ArrayValue | A.ObjectValue>): string {
  switch (v.kind) {
    case 'string':
      return JSON.stringify(v.value);
    case 'number':
      return v.raw;
    case 'bool':
      return String(v.value);
    case 'null':
      return 'null';
    case 'ident':
      return v.name;
  }
}

// The AST is complete here (parts are only missing after a syntax error), hence the `!`s.
class Printer {
  constructor(
    private readonly text: string,
    private readonly comments: A.Comment[],
    private readonly lines: LineIndex,
  ) {}

  print(doc: A.Document): string {
    const file: Block = {
      open: -1,
      close: this.text.length,
      members: doc.declarations.map((d) => this.declaration(d)),
    };
    const out: Line[] = [];
    this.layoutMembers(file, 0, out, true);
    return out.length > 0 ? alignTrailingComments(out).join('\n') + '\n' : '';
  }

  // ---- AST → members

  private declaration(d: A.Declaration): Member {
    switch (d.kind) {
      case 'api':
        return this.withBody(d.range, `api ${JSON.stringify(d.title!.value)}`, d.body && this.object(d.body));
      case 'config':
        return this.withBody(d.range, 'config', this.object(d.body));
      case 'filter':
        return this.withBody(d.range, `filter ${d.name!.text}: ${d.filterKind!.text}`, d.body && this.object(d.body));
      case 'resource': {
        const members = [
          ...d.options.map((e) => this.entry(e)),
          ...d.propertiesBlocks.map((b) =>
            this.section(
              'properties',
              b.range,
              b.properties.map((p) => this.property(p)),
            ),
          ),
          ...[
            ...d.operationsBlocks.map((b) => ['operations', b] as const),
            ...d.graphqlBlocks.map((b) => ['graphql', b] as const),
          ].map(([keyword, b]) =>
            this.section(
              keyword,
              b.range,
              b.operations.map((o) => this.operation(o)),
            ),
          ),
        ].sort((a, b) => a.range.start - b.range.start);
        const open = this.braceAfter(d.name!.range.end);
        return { range: d.range, head: `resource ${d.name!.text} `, body: { open, close: d.range.end - 1, members } };
      }
      case 'mutator':
        return {
          range: d.range,
          head: `mutator ${d.targetKind!.text} ${this.name(d.target!)}: ${JSON.stringify(d.ref!.value)}`,
        };
    }
  }

  private withBody(range: A.Range, head: string, body: Block | undefined): Member {
    return body ? { range, head: `${head} `, body } : { range, head };
  }

  /** A `properties`, `operations` or `graphql` block of a resource. */
  private section(keyword: string, range: A.Range, members: Member[]): Member {
    const open = this.braceAfter(range.start + keyword.length);
    return { range, head: `${keyword} `, body: { open, close: range.end - 1, members } };
  }

  private property(p: A.PropertyDecl): Member {
    const type = `${p.type!.name}${p.type!.array ? '[]' : ''}`;
    return this.withBody(p.range, `${p.name.text}: ${type}`, p.constraints && this.object(p.constraints));
  }

  private operation(o: A.OperationDecl): Member {
    return this.withBody(
      o.range,
      o.name ? `${o.opKind.text} ${o.name.text}` : o.opKind.text,
      o.body && this.object(o.body),
    );
  }

  private entry(e: A.Entry): Member {
    const key = this.name(e.key);
    return this.value(e.value!, e.range, e.block ? `${key} ` : `${key}: `);
  }

  /** A value as a member: a scalar is printed whole in the head, an array or object is the body. */
  private value(v: A.Value, range: A.Range, head: string): Member {
    if (v.kind === 'object') return { range, head, body: this.object(v) };
    if (v.kind === 'array') {
      const members = v.items.map((item) => this.value(item, item.range, ''));
      return { range, head, body: { open: v.range.start, close: v.range.end - 1, members, square: true } };
    }
    return { range, head: head + leaf(v) };
  }

  private object(v: A.ObjectValue): Block {
    return { open: v.range.start, close: v.range.end - 1, members: v.entries.map((e) => this.entry(e)) };
  }

  /** A key or mutator target: a string stays a string. */
  private name(n: A.Name): string {
    return this.text[n.range.start] === '"' ? JSON.stringify(n.text) : n.text;
  }

  /** The offset of the `{` after `from`; only blanks and comments lie between. */
  private braceAfter(from: number): number {
    let i = from;
    while (i < this.text.length && this.text[i] !== '{')
      i = this.comments.find((c) => c.range.start === i)?.range.end ?? i + 1;
    return i;
  }

  // ---- layout

  private line(offset: number): number {
    return this.lines.position(offset).line;
  }

  private flat(b: Block): string {
    const inner = b.members.map((m) => m.head + (m.body ? this.flat(m.body) : '')).join(', ');
    if (b.square) return `[${inner}]`;
    return inner ? `{ ${inner} }` : '{}';
  }

  /** No comment inside, first member on the opening bracket's line, and the same for every block inside. */
  private mayBeFlat(b: Block): boolean {
    if (this.comments.some((c) => inBlock(b, c.range.start))) return false;
    if (b.members.length > 0 && this.line(b.members[0].range.start) !== this.line(b.open)) return false;
    return b.members.every((m) => !m.body || this.mayBeFlat(m.body));
  }

  /** The lines of a member at `depth`, the first starting with its indentation and head. */
  private layout(m: Member, depth: number): Line[] {
    const first = indent(depth) + m.head;
    const b = m.body;
    if (!b) return [codeOnly(first)];
    const flat = first + this.flat(b);
    if (this.mayBeFlat(b) && (b.members.length === 0 || flat.length <= WIDTH)) return [codeOnly(flat)];
    const out = [codeOnly(first + (b.square ? '[' : '{'))];
    this.layoutMembers(b, depth + 1, out, false);
    out.push(codeOnly(indent(depth) + (b.square ? ']' : '}')));
    return out;
  }

  /**
   * Appends the members of a block, with the comments between them, to `out` (whose last
   * line, if any, holds the block's opening bracket). A blank line is kept where the source
   * had one between two items; at the top level, one always follows a declaration.
   */
  private layoutMembers(b: Block, depth: number, out: Line[], topLevel: boolean): void {
    const free = this.comments.filter(
      (c) => inBlock(b, c.range.start) && !b.members.some((m) => contains(m.range, c.range.start)),
    );
    let next = 0;
    let codeLine = b.open < 0 ? -1 : this.line(b.open); // source line of the code ending the last output line
    let prevEnd = 0; // source end of the last item placed
    let placed = false;
    let afterMember = false;
    let afterLongMember = false; // the last item placed is a member of several lines

    const place = (lines: Line[], range: A.Range, member: boolean): void => {
      const gap = this.text.slice(prevEnd, range.start).replace(/\r\n?/g, '\n');
      const apart = topLevel && (afterLongMember || (member && afterMember && lines.length > 1));
      if (placed && (apart || /\n[^\S\n]*\n/.test(gap))) out.push(codeOnly(''));
      out.push(...lines);
      placed = true;
      afterMember = member;
      afterLongMember = member && lines.length > 1;
      prevEnd = range.end;
    };
    const commentsBefore = (offset: number): void => {
      for (; next < free.length && free[next].range.start < offset; next++) {
        const c = free[next];
        if (this.line(c.range.start) === codeLine) {
          out[out.length - 1].trailing.push(commentText(c));
          prevEnd = c.range.end;
        } else {
          place([codeOnly(indent(depth) + commentText(c))], c.range, false);
          codeLine = -1;
        }
      }
    };

    for (const m of b.members) {
      commentsBefore(m.range.start);
      const inHead = this.comments.filter(
        (c) => contains(m.range, c.range.start) && !(m.body && inBlock(m.body, c.range.start)),
      );
      place([...inHead.map((c) => codeOnly(indent(depth) + commentText(c))), ...this.layout(m, depth)], m.range, true);
      codeLine = this.line(m.range.end - 1);
    }
    commentsBefore(b.close);
  }
}
