/**
 * Where the cursor stands, for completion, found by a small scan of the tokens around it
 * rather than from the parser: it must work on the broken text an editor holds while the
 * user types (a half-typed key, a missing colon, an unterminated string, a block not closed
 * yet). The scan tracks bracket nesting and the member that opened each block
 * (`resource Book {`, `GetCollection {`, `paginationViaCursor: [`), resolves that chain of
 * blocks into a scope with the catalogue, and splits the member under the cursor into key
 * and value.
 */
import type { IToken } from '#chevrotain';
import {
  constraintByName,
  filterKind,
  optionByName,
  settingByPath,
  settingChildren,
  type ValueType,
} from '../../grammar/catalogue/index.js';
import {
  apiLexer,
  NumberLiteral,
  StringLiteral,
  UnterminatedComment,
  UnterminatedString,
} from '../../grammar/lexer.js';

export interface Tok {
  kind: 'word' | 'string' | 'number' | 'punct' | 'block';
  /** As written. */
  text: string;
  /** A word, or a string's content. */
  value: string;
  start: number;
  end: number;
}

interface Frame {
  bracket: '{' | '[' | 'file';
  /** The tokens of the member that opened the block, in its parent: `resource Book`, `title: string`. */
  opener: Tok[];
  /** Indentation of the line of the opening bracket. */
  openerIndent: number;
  /** Whether the block has content on the opening bracket's line (`{ identifier: true`). */
  inlineContent: boolean;
  /** Indentation of the block's first line of content, when it has one. */
  contentIndent: number | undefined;
  seenToken: boolean;
  /** Tokens of the member being read. */
  member: Tok[];
  /** First word of each member read so far (keys, or items of a list). */
  keys: string[];
}

/** What surrounds the cursor: block-level context shared by every scope. */
export interface ScopeBase {
  resource?: string;
  opKind?: string;
  filterName?: string;
  filterKind?: string;
  /** In a resource's `graphql` block (its kinds, and the options of GraphQL operations). */
  graphql?: boolean;
}

export type Scope =
  | ({ kind: 'top' } & ScopeBase)
  | ({ kind: 'api' } & ScopeBase)
  | ({ kind: 'config'; prefix: string } & ScopeBase)
  | ({ kind: 'filter' } & ScopeBase)
  | ({ kind: 'resource' } & ScopeBase)
  | ({ kind: 'properties' } & ScopeBase)
  /** `propertyArray`: the type is written `T[]`. */
  | ({ kind: 'constraints'; propertyType: string | undefined; propertyArray: boolean } & ScopeBase)
  | ({ kind: 'operations' } & ScopeBase)
  | ({ kind: 'operation' } & ScopeBase)
  /** Inside `{` of a typed value; `path` is the chain of keys from the option (`*` a map key, `[]` a list item). */
  | ({ kind: 'object'; type: ValueType; path: string[] } & ScopeBase)
  /** Inside `[` of a typed value; `type` is the items' type. */
  | ({ kind: 'array'; type: ValueType; path: string[] } & ScopeBase)
  | ({ kind: 'unknown' } & ScopeBase);

export interface CompletionContext {
  scope: Scope;
  /** Tokens of the member under the cursor, before the token being typed. */
  member: Tok[];
  /** The word or string being typed, if the cursor is in one. */
  current: Tok | undefined;
  /** The offsets a completion replaces: the token being typed, or the empty range at the cursor. */
  replace: { start: number; end: number };
  /** Keys (or list items) of the enclosing block other than the member under the cursor. */
  present: Set<string>;
  /** Whether a `:` already follows the token being typed (then a key is inserted alone). */
  colonAfter: boolean;
  /** The character just before the replaced range. */
  charBefore: string;
  /** The top-level declaration scanned (see declarationWindow). */
  window: { start: number; end: number };
}

const isComma = (t: Tok): boolean => t.kind === 'punct' && t.text === ',';
const isOpen = (t: Tok): boolean => t.kind === 'punct' && (t.text === '{' || t.text === '[');
const isClose = (t: Tok): boolean => t.kind === 'punct' && (t.text === '}' || t.text === ']');

function toTok(t: IToken): Tok {
  const start = t.startOffset;
  const end = start + t.image.length;
  if (t.tokenType === StringLiteral || t.tokenType === UnterminatedString) {
    const closed = t.tokenType === StringLiteral && t.image.length >= 2;
    return { kind: 'string', text: t.image, value: t.image.slice(1, closed ? -1 : undefined), start, end };
  }
  if (t.tokenType === NumberLiteral) return { kind: 'number', text: t.image, value: t.image, start, end };
  if (/^[A-Za-z_]/.test(t.image)) return { kind: 'word', text: t.image, value: t.image, start, end };
  return { kind: 'punct', text: t.image, value: t.image, start, end };
}

const LINE_BREAK = /[\r\n]/;

class Scanner {
  constructor(private readonly text: string) {}

  /** Indentation of the line of an offset, when only blanks precede it there (else Infinity). */
  indentAt(offset: number): number {
    let i = offset;
    while (i > 0 && this.text[i - 1] !== '\n' && this.text[i - 1] !== '\r') i--;
    const before = this.text.slice(i, offset);
    return /^[ \t]*$/.test(before) ? before.replace(/\t/g, '  ').length : Infinity;
  }

  /** Indentation of the line holding an offset (its leading blanks). */
  lineIndent(offset: number): number {
    let i = offset;
    while (i > 0 && this.text[i - 1] !== '\n' && this.text[i - 1] !== '\r') i--;
    return (/^[ \t]*/.exec(this.text.slice(i))?.[0] ?? '').replace(/\t/g, '  ').length;
  }

  lineBreakBetween(from: number, to: number): boolean {
    return LINE_BREAK.test(this.text.slice(from, to));
  }
}

const endMember = (f: Frame): void => {
  if (
    f.member.length > 0 &&
    (f.member[0].kind === 'word' || f.member[0].kind === 'string' || f.member[0].kind === 'number')
  )
    f.keys.push(f.member[0].value);
  f.member = [];
};

/**
 * A block whose closing bracket is missing shows in the indentation: a line that starts at
 * or left of the line that opened a block (whose content was indented, or which had content
 * after its bracket) is not inside that block; a closing bracket left of it closes an outer one.
 */
function closesImplicitly(f: Frame, indent: number, closer: boolean): boolean {
  if (f.bracket === 'file' || !Number.isFinite(indent)) return false;
  if (closer) return indent < f.openerIndent;
  return (
    indent <= f.openerIndent && (f.inlineContent || (f.contentIndent !== undefined && f.contentIndent > f.openerIndent))
  );
}

function blockToken(f: Frame, end: number): Tok {
  const text = f.bracket === '[' ? '[]' : '{}';
  return { kind: 'block', text, value: text, start: end, end };
}

/** The frames open at the cursor (the file first) after reading the tokens before it. */
function readFrames(scanner: Scanner, before: Tok[]): { stack: Frame[]; lastEnd: number } {
  const file: Frame = {
    bracket: 'file',
    opener: [],
    openerIndent: -1,
    inlineContent: false,
    contentIndent: undefined,
    seenToken: false,
    member: [],
    keys: [],
  };
  const stack: Frame[] = [file];
  let lastEnd = 0;
  for (const tok of before) {
    const newLine = lastEnd === 0 || scanner.lineBreakBetween(lastEnd, tok.start);
    if (newLine) {
      const indent = scanner.indentAt(tok.start);
      while (stack.length > 1 && closesImplicitly(stack[stack.length - 1], indent, isClose(tok))) {
        const closed = stack.pop()!;
        stack[stack.length - 1].member.push(blockToken(closed, lastEnd));
      }
      endMember(stack[stack.length - 1]);
    }
    const top = stack[stack.length - 1];
    if (!top.seenToken && !isClose(tok)) {
      top.seenToken = true;
      if (newLine) top.contentIndent = scanner.indentAt(tok.start);
      else top.inlineContent = true;
    }
    if (isOpen(tok)) {
      stack.push({
        bracket: tok.text as '{' | '[',
        opener: top.member.slice(),
        openerIndent: scanner.lineIndent(tok.start),
        inlineContent: false,
        contentIndent: undefined,
        seenToken: false,
        member: [],
        keys: [],
      });
    } else if (isClose(tok)) {
      const want = tok.text === '}' ? '{' : '[';
      let at = stack.length - 1;
      while (at > 0 && stack[at].bracket !== want) at--;
      if (at > 0) {
        const closed = stack[at];
        stack.length = at;
        stack[at - 1].member.push(blockToken(closed, tok.end));
      }
    } else if (isComma(tok)) endMember(top);
    else top.member.push(tok);
    lastEnd = tok.end;
  }
  return { stack, lastEnd };
}

/** Keys (first words of members) of the innermost block after the cursor, up to its end. */
function keysAfter(scanner: Scanner, after: Tok[], frame: Frame, from: number): string[] {
  const keys: string[] = [];
  let depth = 0;
  let atMemberStart = false;
  let lastEnd = from;
  for (const tok of after) {
    const newLine = scanner.lineBreakBetween(lastEnd, tok.start);
    lastEnd = tok.end;
    if (depth === 0 && newLine) {
      if (closesImplicitly(frame, scanner.indentAt(tok.start), isClose(tok))) break;
      atMemberStart = true;
    }
    if (isOpen(tok)) {
      depth++;
      atMemberStart = false;
    } else if (isClose(tok)) {
      if (depth === 0) break;
      depth--;
    } else if (isComma(tok)) {
      if (depth === 0) atMemberStart = true;
    } else if (depth === 0 && atMemberStart) {
      keys.push(tok.value);
      atMemberStart = false;
    }
  }
  return keys;
}

/** The value type a bracket opens, given the type expected there. */
function enter(type: ValueType | undefined, bracket: '{' | '[', path: string[], base: ScopeBase): Scope {
  if (!type) return { kind: 'unknown', ...base };
  if (type.kind === 'oneOf') {
    const alt = type.of.find((t) =>
      (bracket === '{' ? ['record', 'map', 'phpArray', 'any'] : ['list', 'phpArray', 'any']).includes(t.kind),
    );
    return enter(alt, bracket, path, base);
  }
  if (bracket === '{') {
    if (type.kind === 'record' || type.kind === 'map') return { kind: 'object', type, path, ...base };
    if (type.kind === 'phpArray' || type.kind === 'any')
      return { kind: 'object', type: { kind: 'any' }, path, ...base };
  } else {
    if (type.kind === 'list') return { kind: 'array', type: type.of, path, ...base };
    if (type.kind === 'phpArray' || type.kind === 'any') return { kind: 'array', type: { kind: 'any' }, path, ...base };
  }
  return { kind: 'unknown', ...base };
}

/** The catalogue type of a key's value in a scope, with the path that leads to it. */
export function keyType(scope: Scope, key: string): { type: ValueType; path: string[] } | undefined {
  switch (scope.kind) {
    case 'resource':
    case 'operation': {
      const spec = optionByName(key);
      return spec && { type: spec.type, path: [key] };
    }
    case 'constraints': {
      const spec = constraintByName(key);
      return spec && { type: spec.type, path: [key] };
    }
    case 'filter': {
      const field = scope.filterKind ? filterKind(scope.filterKind)?.fields[key] : undefined;
      return field && { type: field.type, path: [key] };
    }
    case 'config': {
      const path = scope.prefix ? `${scope.prefix}.${key}` : key;
      const setting = settingByPath(path);
      return setting && { type: setting.type, path: [path] };
    }
    case 'api':
      return ['version', 'description', 'title'].includes(key) ? { type: { kind: 'string' }, path: [key] } : undefined;
    case 'object': {
      const t = scope.type;
      if (t.kind === 'record') return t.fields[key] && { type: t.fields[key].type, path: [...scope.path, key] };
      if (t.kind === 'map') return { type: t.of, path: [...scope.path, '*'] };
      return { type: { kind: 'any' }, path: [...scope.path, key] };
    }
    default:
      return undefined;
  }
}

const valueOfToken = (t: Tok | undefined): string | undefined =>
  t && (t.kind === 'word' || t.kind === 'string') ? t.value : undefined;

/** The scope a block opens, from its parent's scope and the member that opened it. */
function child(scope: Scope, opener: Tok[], bracket: '{' | '['): Scope {
  const ctx: ScopeBase = {
    resource: scope.resource,
    opKind: scope.opKind,
    filterName: scope.filterName,
    filterKind: scope.filterKind,
    graphql: scope.graphql,
  };
  const key = valueOfToken(opener[0]);
  const afterColon = (): string | undefined => {
    const i = opener.findIndex((t) => t.text === ':');
    return i >= 0 ? valueOfToken(opener[i + 1]) : undefined;
  };
  if (scope.kind === 'array') return enter(scope.type, bracket, [...scope.path, '[]'], ctx);
  if (key === undefined) return { kind: 'unknown', ...ctx };
  switch (scope.kind) {
    case 'top':
      if (bracket !== '{') return { kind: 'unknown', ...ctx };
      if (key === 'resource') return { kind: 'resource', resource: valueOfToken(opener[1]) };
      if (key === 'filter') return { kind: 'filter', filterName: valueOfToken(opener[1]), filterKind: afterColon() };
      if (key === 'config') return { kind: 'config', prefix: '' };
      if (key === 'api') return { kind: 'api' };
      return { kind: 'unknown' };
    case 'resource':
      if (bracket === '{' && opener.length === 1 && key === 'properties') return { kind: 'properties', ...ctx };
      if (bracket === '{' && opener.length === 1 && key === 'operations') return { kind: 'operations', ...ctx };
      if (bracket === '{' && opener.length === 1 && key === 'graphql')
        return { kind: 'operations', ...ctx, graphql: true };
      break;
    case 'properties':
      return bracket === '{'
        ? {
            kind: 'constraints',
            propertyType: afterColon(),
            propertyArray: opener.some((t) => t.text === '[]'),
            ...ctx,
          }
        : { kind: 'unknown', ...ctx };
    case 'operations':
      return bracket === '{' ? { kind: 'operation', ...ctx, opKind: key } : { kind: 'unknown', ...ctx };
    case 'config': {
      const path = scope.prefix ? `${scope.prefix}.${key}` : key;
      if (!settingByPath(path) && bracket === '{' && settingChildren(path).length > 0)
        return { kind: 'config', prefix: path, ...ctx };
      break;
    }
    default:
      break;
  }
  const typed = keyType(scope, key);
  return typed ? enter(typed.type, bracket, typed.path, ctx) : { kind: 'unknown', ...ctx };
}

const DECLARATION_LINE = /^(?:api|config|filter|resource|mutator)\b/gm;

/**
 * The top-level declaration around an offset: from the last line before it that starts with a
 * declaration keyword at column 0, to the next such line. Scanning only this window keeps
 * completion fast in large files; blocks left open before it do not leak into it.
 */
export function declarationWindow(text: string, offset: number): { start: number; end: number } {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let start = 0;
  let end = text.length;
  for (const m of text.matchAll(DECLARATION_LINE)) {
    if (m.index <= lineStart) start = m.index;
    else {
      end = m.index;
      break;
    }
  }
  return { start, end };
}

/** The completion context at an offset, or undefined inside a comment. */
export function completionContext(text: string, offset: number): CompletionContext | undefined {
  const window = declarationWindow(text, offset);
  // Only the window is lexed; its tokens are moved back to offsets into the whole text.
  const lexed = apiLexer.tokenize(text.slice(window.start, window.end));
  const shift = (t: IToken): IToken => ({ ...t, startOffset: t.startOffset + window.start });
  lexed.tokens = lexed.tokens.map(shift);
  if (lexed.groups.comments) lexed.groups.comments = lexed.groups.comments.map(shift);
  for (const c of lexed.groups.comments ?? []) {
    const end = c.startOffset + c.image.length;
    const open = c.tokenType === UnterminatedComment || c.image.startsWith('//');
    if (c.startOffset < offset && (offset < end || (open && offset === end))) return undefined;
  }
  const tokens = lexed.tokens.map(toTok);
  const current = tokens.find(
    (t) =>
      t.start < offset &&
      offset <= t.end &&
      (t.kind === 'word' ||
        t.kind === 'number' ||
        (t.kind === 'string' && (offset < t.end || !t.text.endsWith('"') || t.text.length < 2))),
  );
  const before = tokens.filter((t) => t.end <= offset && t !== current);
  const after = tokens.filter((t) => t.start >= offset && t !== current);
  const scanner = new Scanner(text);
  const { stack, lastEnd } = readFrames(scanner, before);
  const cursorStart = current?.start ?? offset;
  if (scanner.lineBreakBetween(lastEnd, cursorStart) && lastEnd > 0) endMember(stack[stack.length - 1]);
  let scope: Scope = { kind: 'top' };
  for (const f of stack.slice(1)) scope = child(scope, f.opener, f.bracket as '{' | '[');
  const frame = stack[stack.length - 1];
  // An unterminated string runs to the end of its line: replace only what is before the cursor.
  const unterminated = current?.kind === 'string' && (current.text.length < 2 || !current.text.endsWith('"'));
  const replace = current
    ? { start: current.start, end: unterminated ? offset : current.end }
    : { start: offset, end: offset };
  const present = new Set([
    ...frame.keys,
    ...(frame.bracket === 'file' ? [] : keysAfter(scanner, skipMember(scanner, after, offset), frame, offset)),
  ]);
  const rest = text.slice(replace.end);
  return {
    scope,
    member: frame.member,
    current,
    replace,
    present,
    colonAfter: /^[ \t]*:/.test(rest),
    charBefore: replace.start > 0 ? text[replace.start - 1] : '',
    window,
  };
}

/** The tokens after the cursor, without the rest of the member under it. */
function skipMember(scanner: Scanner, after: Tok[], offset: number): Tok[] {
  let depth = 0;
  let lastEnd = offset;
  for (let i = 0; i < after.length; i++) {
    const t = after[i];
    if (depth === 0 && (scanner.lineBreakBetween(lastEnd, t.start) || isComma(t) || isClose(t))) return after.slice(i);
    if (isOpen(t)) depth++;
    else if (isClose(t)) depth--;
    lastEnd = t.end;
  }
  return [];
}
