/**
 * Security expressions (`security`, `securityPostDenormalize`, `securityPostValidation`) in the
 * syntax of Symfony's ExpressionLanguage: `is_granted('ROLE_ADMIN') and object.owner == user.identifier`.
 * A hand-written tokenizer and a precedence-climbing parser produce a tree whose every node carries
 * its start/end offsets in the expression text; `analyzeExpression` then names the problems the
 * checker reports and the server refuses (unknown functions and variables, argument counts, patterns).
 * docs/security-expressions.md describes the language.
 */
import { closest } from './suggest.js';
import { compilePattern } from './expression-pattern.js';

/** Longest accepted expression, in characters. */
export const MAX_EXPRESSION_LENGTH = 8192;
/** Deepest accepted tree (and parser recursion): a clear error instead of a stack overflow. */
export const MAX_EXPRESSION_DEPTH = 128;

export interface Span {
  start: number;
  end: number;
}

export type ExprNode = Span &
  (
    | { kind: 'constant'; value: null | boolean | number | string }
    | { kind: 'name'; name: string }
    | { kind: 'array'; elements: ExprNode[] }
    | { kind: 'hash'; entries: { key: ExprNode; value: ExprNode }[] }
    | { kind: 'unary'; op: UnaryOperator; operand: ExprNode }
    | { kind: 'binary'; op: BinaryOperator; left: ExprNode; right: ExprNode; opStart: number }
    /** `a ? b : c`; `a ?: b` has no `consequent` (the test's value is the result); `a ? b` has a null `alternate`. */
    | { kind: 'conditional'; test: ExprNode; consequent: ExprNode | null; alternate: ExprNode | null }
    | { kind: 'coalesce'; left: ExprNode; right: ExprNode }
    /** `a.b` / `a?.b` (`property` is the name, `nameStart` its offset). */
    | { kind: 'member'; object: ExprNode; property: string; nameStart: number; nullSafe: boolean }
    /** `a[b]`. */
    | { kind: 'index'; object: ExprNode; index: ExprNode }
    | { kind: 'call'; name: string; nameEnd: number; args: ExprNode[] }
  );

export type UnaryOperator = 'not' | '!' | '-' | '+';
export type BinaryOperator =
  | 'or'
  | '||'
  | 'and'
  | '&&'
  | '=='
  | '==='
  | '!='
  | '!=='
  | '<'
  | '>'
  | '<='
  | '>='
  | 'in'
  | 'not in'
  | 'matches'
  | 'contains'
  | 'starts with'
  | 'ends with'
  | '..'
  | '+'
  | '-'
  | '~'
  | '*'
  | '/'
  | '%'
  | '**';

/** Symfony's precedences: a higher number binds tighter. `**` is the only right-associative one. */
const BINARY: Record<BinaryOperator, number> = {
  or: 10,
  '||': 10,
  and: 15,
  '&&': 15,
  '==': 20,
  '===': 20,
  '!=': 20,
  '!==': 20,
  '<': 20,
  '>': 20,
  '<=': 20,
  '>=': 20,
  in: 20,
  'not in': 20,
  matches: 20,
  contains: 20,
  'starts with': 20,
  'ends with': 20,
  '..': 25,
  '+': 30,
  '-': 30,
  '~': 40,
  '*': 60,
  '/': 60,
  '%': 60,
  '**': 200,
};
/** As in Symfony, `not`/`!` bind tighter than comparisons (`not a == b` is `(not a) == b`) and unary minus tighter than `**`. */
const UNARY: Record<UnaryOperator, number> = { not: 50, '!': 50, '-': 500, '+': 500 };

/** Operators, longest first so that `!==` wins over `!=` and `!`. Word operators need a following space or `(`. */
const OPERATORS = [
  'starts with',
  'ends with',
  'contains',
  'matches',
  'not in',
  'not',
  'and',
  'or',
  'in',
  '===',
  '!==',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '**',
  '..',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '~',
  '!',
];

// ---------------------------------------------------------------------------------------------
// Callable functions and variables: the one catalogue for the checker, the server and the editor.

export interface ExpressionFunction {
  /** Parameters as shown to a person: `attribute, subject = null`. */
  params: string;
  minArgs: number;
  maxArgs: number;
  doc: string;
}

export const EXPRESSION_FUNCTIONS: Readonly<Record<string, ExpressionFunction>> = {
  is_granted: {
    params: 'attribute, subject = null',
    minArgs: 1,
    maxArgs: 2,
    doc: 'True when the user holds the role ROLE_* (after the role hierarchy); any other attribute asks the voters about subject.',
  },
  is_authenticated: {
    params: '',
    minArgs: 0,
    maxArgs: 0,
    doc: 'True when the request carries valid credentials (the user is not anonymous).',
  },
  is_fully_authenticated: { params: '', minArgs: 0, maxArgs: 0, doc: 'Same as is_authenticated().' },
  has_role: {
    params: 'role',
    minArgs: 1,
    maxArgs: 1,
    doc: 'Alias of is_granted(role): true when the user holds the role (after the role hierarchy).',
  },
};

/** The variables every expression sees. URI variables come on top; these names win on a clash. */
export const EXPRESSION_VARIABLES: Readonly<Record<string, string>> = {
  user: 'The authenticated user {identifier, roles, claims}, or null for an anonymous request.',
  roles: "The user's roles after the role hierarchy (empty when anonymous).",
  object: "The item the operation works on (null for Post and before the read; the page's items for GetCollection).",
  previous_object: 'The stored item before the request changed it (securityPostDenormalize), else a copy of object.',
  request: 'The request: {method, path, query, headers} with lower-case header names.',
};

/**
 * The functions of a Mercure topic written as an expression (`topics: ["@=iri(object)"]`), API Platform's
 * ExpressionLanguage functions for topics.
 */
export const TOPIC_FUNCTIONS: Readonly<Record<string, ExpressionFunction>> = {
  iri: {
    params: 'item',
    minArgs: 1,
    maxArgs: 1,
    doc: "The item's absolute IRI (`http://host/books/1`): `object`, or a relation read from it (`object.shop`).",
  },
  escape: {
    params: 'text',
    minArgs: 1,
    maxArgs: 1,
    doc: 'The text percent-encoded as a URI component (PHP rawurlencode), for a topic that embeds an IRI.',
  },
};

/** The variables a Mercure topic expression sees: the item changed (the removed one for a delete). */
export const TOPIC_VARIABLES: readonly string[] = ['object'];

/** A Mercure topic written as an expression starts with this marker (API Platform's form). */
export const EXPRESSION_TOPIC_MARKER = '@=';

/** The variables a property's `default: { expression: … }` sees: the item does not exist yet. */
export const DEFAULT_VALUE_VARIABLES: readonly string[] = ['user'];

/** The variables an `assert` constraint's expression sees (`value`: the property's value, or the item). */
export const ASSERT_VARIABLES: readonly string[] = ['value', 'object', 'previous_object', 'user'];

/** The variables that make an expression wait for the item to be read. */
export const OBJECT_VARIABLES: ReadonlySet<string> = new Set(['object', 'previous_object']);

// ---------------------------------------------------------------------------------------------
// Tokenizer

type TokenType = 'name' | 'number' | 'string' | 'operator' | 'punctuation' | 'eof';
interface Token {
  type: TokenType;
  value: string | number;
  start: number;
  end: number;
}

export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number = start + 1,
  ) {
    super(message);
  }
}

const isNameStart = (c: string): boolean => /[A-Za-z_\x7f-\uffff]/.test(c);
const isNameChar = (c: string): boolean => /[A-Za-z0-9_\x7f-\uffff]/.test(c);
const NUMBER = /(?:\d+(?:_\d+)*)?(?:\.\d+(?:_\d+)*)?(?:[eE][+-]?\d+(?:_\d+)*)?/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const brackets: { char: string; at: number }[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (/\d/.test(c) || (c === '.' && /\d/.test(source[i + 1] ?? '') && !/[\w)\]]/.test(source[i - 1] ?? ''))) {
      NUMBER.lastIndex = i;
      const text = NUMBER.exec(source)![0];
      i += text.length;
      tokens.push({ type: 'number', value: Number(text.replace(/_/g, '')), start, end: i });
      continue;
    }
    if ('([{'.includes(c)) {
      brackets.push({ char: c, at: i });
      tokens.push({ type: 'punctuation', value: c, start, end: ++i });
      continue;
    }
    if (')]}'.includes(c)) {
      const open = brackets.pop();
      if (!open) throw new ExpressionSyntaxError(`unexpected '${c}'`, i);
      const expected = { '(': ')', '[': ']', '{': '}' }[open.char];
      if (c !== expected) throw new ExpressionSyntaxError(`unclosed '${open.char}'`, open.at);
      tokens.push({ type: 'punctuation', value: c, start, end: ++i });
      continue;
    }
    if (c === '"' || c === "'") {
      const [value, end] = readString(source, i);
      tokens.push({ type: 'string', value, start, end });
      i = end;
      continue;
    }
    const op = OPERATORS.find(
      (o) =>
        source.startsWith(o, i) &&
        (!/[a-z]$/.test(o) || /^[\s(]/.test(source[i + o.length] ?? ' ')) &&
        (!/^[a-z]/.test(o) || !isNameChar(source[i - 1] ?? ' ')),
    );
    if (op) {
      i += op.length;
      tokens.push({ type: 'operator', value: op, start, end: i });
      continue;
    }
    if (c === '?' && (source[i + 1] === '.' || source[i + 1] === '?')) {
      i += 2;
      tokens.push({ type: 'punctuation', value: source.slice(start, i), start, end: i });
      continue;
    }
    if ('.,?:'.includes(c)) {
      tokens.push({ type: 'punctuation', value: c, start, end: ++i });
      continue;
    }
    if (isNameStart(c)) {
      while (i < source.length && isNameChar(source[i])) i++;
      tokens.push({ type: 'name', value: source.slice(start, i), start, end: i });
      continue;
    }
    throw new ExpressionSyntaxError(`unexpected character '${c}'`, i);
  }
  if (brackets.length) {
    const open = brackets[brackets.length - 1];
    throw new ExpressionSyntaxError(`unclosed '${open.char}'`, open.at);
  }
  tokens.push({ type: 'eof', value: '', start: source.length, end: source.length });
  return tokens;
}

/** A quoted string; backslash escapes as PHP's stripcslashes reads them (`\n`, `\x41`, `\101`, `\\`, `\'`). */
function readString(source: string, at: number): [string, number] {
  const quote = source[at];
  let out = '';
  let i = at + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] !== '\\') {
      out += source[i++];
      continue;
    }
    const next = source[i + 1];
    if (next === undefined) break;
    const simple: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      v: '\v',
      f: '\f',
      a: '\x07',
      b: '\b',
      e: '\x1b',
    };
    const hex = /^x([0-9A-Fa-f]{1,2})/.exec(source.slice(i + 1, i + 4));
    const oct = /^[0-7]{1,3}/.exec(source.slice(i + 1, i + 4));
    if (next in simple) {
      out += simple[next];
      i += 2;
    } else if (hex) {
      out += String.fromCharCode(parseInt(hex[1], 16));
      i += 1 + hex[0].length;
    } else if (oct) {
      out += String.fromCharCode(parseInt(oct[0], 8) & 0xff);
      i += 1 + oct[0].length;
    } else {
      out += next;
      i += 2;
    }
  }
  if (i >= source.length) throw new ExpressionSyntaxError('unterminated string', at);
  return [out, i + 1];
}

// ---------------------------------------------------------------------------------------------
// Parser

const describe = (t: Token): string => {
  if (t.type === 'eof') return 'end of expression';
  return t.type === 'string' ? 'a string' : `'${t.value}'`;
};

class Parser {
  private pos = 0;
  private nesting = 0;
  private readonly depth = new WeakMap<ExprNode, number>();

  constructor(private readonly tokens: Token[]) {}

  parse(): ExprNode {
    const node = this.expression(0);
    const t = this.current;
    if (t.type !== 'eof') {
      const hint = t.type === 'name' || t.type === 'string' || t.type === 'number' ? ' (an operator is missing?)' : '';
      throw new ExpressionSyntaxError(`unexpected ${describe(t)}${hint}`, t.start, t.end);
    }
    return node;
  }

  private get current(): Token {
    return this.tokens[this.pos];
  }

  private is(type: TokenType, value?: string): boolean {
    const t = this.current;
    return t.type === type && (value === undefined || t.value === value);
  }

  private expect(value: string, what: string): Token {
    const t = this.current;
    if (!this.is('punctuation', value))
      throw new ExpressionSyntaxError(`${what}, found ${describe(t)}`, t.start, t.end);
    return this.tokens[this.pos++];
  }

  /** Every node is made here: its depth is checked so that no later recursion over the tree can overflow. */
  private node(n: ExprNode, ...children: (ExprNode | null)[]): ExprNode {
    let d = 0;
    for (const c of children) if (c) d = Math.max(d, this.depth.get(c) ?? 0);
    if (d + 1 > MAX_EXPRESSION_DEPTH) this.tooDeep(n.start);
    this.depth.set(n, d + 1);
    return n;
  }

  private tooDeep(at: number): never {
    throw new ExpressionSyntaxError(`expression is nested too deeply (more than ${MAX_EXPRESSION_DEPTH} levels)`, at);
  }

  private expression(precedence: number): ExprNode {
    if (++this.nesting > MAX_EXPRESSION_DEPTH) this.tooDeep(this.current.start);
    try {
      let left = this.primary();
      for (;;) {
        const t = this.current;
        const prec = t.type === 'operator' ? BINARY[t.value as BinaryOperator] : undefined;
        if (prec === undefined || prec < precedence) break;
        this.pos++;
        const right = this.expression(t.value === '**' ? prec : prec + 1);
        const op = t.value as BinaryOperator;
        left = this.node(
          { kind: 'binary', op, left, right, opStart: t.start, start: left.start, end: right.end },
          left,
          right,
        );
      }
      return precedence === 0 ? this.conditional(left) : left;
    } finally {
      this.nesting--;
    }
  }

  private conditional(expr: ExprNode): ExprNode {
    while (this.is('punctuation', '??')) {
      this.pos++;
      const right = this.expression(0);
      expr = this.node({ kind: 'coalesce', left: expr, right, start: expr.start, end: right.end }, expr, right);
    }
    while (this.is('punctuation', '?')) {
      this.pos++;
      if (this.is('punctuation', ':')) {
        this.pos++;
        const alternate = this.expression(0);
        expr = this.node(
          { kind: 'conditional', test: expr, consequent: null, alternate, start: expr.start, end: alternate.end },
          expr,
          alternate,
        );
        continue;
      }
      const consequent = this.expression(0);
      let alternate: ExprNode | null = null;
      if (this.is('punctuation', ':')) {
        this.pos++;
        alternate = this.expression(0);
      }
      const end = (alternate ?? consequent).end;
      expr = this.node(
        { kind: 'conditional', test: expr, consequent, alternate, start: expr.start, end },
        expr,
        consequent,
        alternate,
      );
    }
    return expr;
  }

  private primary(): ExprNode {
    const t = this.current;
    if (t.type === 'operator' && t.value in UNARY) {
      this.pos++;
      const operand = this.expression(UNARY[t.value as UnaryOperator]);
      return this.postfix(
        this.node({ kind: 'unary', op: t.value as UnaryOperator, operand, start: t.start, end: operand.end }, operand),
      );
    }
    if (this.is('punctuation', '(')) {
      this.pos++;
      const inner = this.expression(0);
      const close = this.expect(')', "expected ')'");
      // The parentheses belong to the node's span, so positions point at what the person wrote.
      return this.postfix({ ...inner, start: t.start, end: close.end } as ExprNode, inner);
    }
    this.pos++;
    switch (t.type) {
      case 'number':
        return this.postfix(this.node({ kind: 'constant', value: t.value as number, start: t.start, end: t.end }));
      case 'string':
        return this.postfix(this.node({ kind: 'constant', value: t.value as string, start: t.start, end: t.end }));
      case 'name': {
        const name = t.value as string;
        const constant = (
          { true: true, TRUE: true, false: false, FALSE: false, null: null, NULL: null } as Record<
            string,
            boolean | null
          >
        )[name];
        if (constant !== undefined)
          return this.postfix(this.node({ kind: 'constant', value: constant, start: t.start, end: t.end }));
        if (this.is('punctuation', '(')) {
          const [args, end] = this.arguments();
          return this.postfix(this.node({ kind: 'call', name, nameEnd: t.end, args, start: t.start, end }, ...args));
        }
        return this.postfix(this.node({ kind: 'name', name, start: t.start, end: t.end }));
      }
      case 'punctuation':
        if (t.value === '[') return this.postfix(this.array(t));
        if (t.value === '{') return this.postfix(this.hash(t));
    }
    throw new ExpressionSyntaxError(
      t.type === 'eof' ? 'unexpected end of expression' : `unexpected ${describe(t)}`,
      t.start,
      t.end,
    );
  }

  private arguments(): [ExprNode[], number] {
    this.expect('(', "expected '('");
    const args: ExprNode[] = [];
    while (!this.is('punctuation', ')')) {
      if (args.length) this.expect(',', "expected ',' or ')' after an argument");
      args.push(this.expression(0));
    }
    return [args, this.tokens[this.pos++].end];
  }

  private array(open: Token): ExprNode {
    const elements: ExprNode[] = [];
    while (!this.is('punctuation', ']')) {
      if (elements.length) {
        this.expect(',', "expected ',' or ']' after an array element");
        if (this.is('punctuation', ']')) break;
      }
      elements.push(this.expression(0));
    }
    const end = this.tokens[this.pos++].end;
    return this.node({ kind: 'array', elements, start: open.start, end }, ...elements);
  }

  private hash(open: Token): ExprNode {
    const entries: { key: ExprNode; value: ExprNode }[] = [];
    const children: ExprNode[] = [];
    while (!this.is('punctuation', '}')) {
      if (entries.length) {
        this.expect(',', "expected ',' or '}' after a hash value");
        if (this.is('punctuation', '}')) break;
      }
      const k = this.current;
      let key: ExprNode;
      if (k.type === 'string' || k.type === 'number' || k.type === 'name') {
        this.pos++;
        key = this.node({ kind: 'constant', value: k.value, start: k.start, end: k.end });
      } else if (k.type === 'punctuation' && k.value === '(') {
        key = this.expression(0);
      } else {
        throw new ExpressionSyntaxError(
          `a hash key must be a name, a quoted string, a number or an expression in parentheses, not ${describe(k)}`,
          k.start,
          k.end,
        );
      }
      this.expect(':', "expected ':' after a hash key");
      const value = this.expression(0);
      entries.push({ key, value });
      children.push(key, value);
    }
    const end = this.tokens[this.pos++].end;
    return this.node({ kind: 'hash', entries, start: open.start, end }, ...children);
  }

  private postfix(node: ExprNode, wrapped?: ExprNode): ExprNode {
    if (wrapped) this.depth.set(node, this.depth.get(wrapped) ?? 1);
    for (;;) {
      const t = this.current;
      if (t.type === 'punctuation' && (t.value === '.' || t.value === '?.')) {
        this.pos++;
        const n = this.current;
        // A word operator (`in`, `not`…) after a dot is a property name, as in Symfony.
        const isName = n.type === 'name' || (n.type === 'operator' && /^[a-z]+$/.test(String(n.value)));
        if (!isName) throw new ExpressionSyntaxError(`expected a property name after '${t.value}'`, n.start, n.end);
        this.pos++;
        if (this.is('punctuation', '(')) {
          throw new ExpressionSyntaxError(
            `method calls are not allowed ('${n.value}(…)'); read a property instead`,
            n.start,
            n.end,
          );
        }
        node = this.node(
          {
            kind: 'member',
            object: node,
            property: String(n.value),
            nameStart: n.start,
            nullSafe: t.value === '?.',
            start: node.start,
            end: n.end,
          },
          node,
        );
      } else if (t.type === 'punctuation' && t.value === '[') {
        this.pos++;
        const index = this.expression(0);
        const close = this.expect(']', "expected ']'");
        node = this.node({ kind: 'index', object: node, index, start: node.start, end: close.end }, node, index);
      } else {
        return node;
      }
    }
  }
}

export type ParsedExpression = { ok: true; ast: ExprNode } | { ok: false; message: string; start: number; end: number };

/** Parses an expression; a syntax error comes back with the offsets of what is wrong. */
export function parseExpression(source: string): ParsedExpression {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    const message = `expression is too long (${source.length} characters; at most ${MAX_EXPRESSION_LENGTH})`;
    return { ok: false, message, start: 0, end: source.length };
  }
  if (source.trim() === '') return { ok: false, message: 'empty expression', start: 0, end: source.length };
  try {
    return { ok: true, ast: new Parser(tokenize(source)).parse() };
  } catch (e) {
    if (!(e instanceof ExpressionSyntaxError)) throw e;
    return {
      ok: false,
      message: e.message,
      start: e.start,
      end: Math.min(Math.max(e.end, e.start + 1), Math.max(source.length, e.start + 1)),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Analysis: what the checker reports and the server refuses.

export type ExpressionIssueCode = 'unknown-function' | 'unknown-variable' | 'argument-count' | 'invalid-pattern';

export interface ExpressionIssue extends Span {
  code: ExpressionIssueCode;
  message: string;
  /** The closest known name, for "did you mean". */
  suggestion?: string;
}

export interface AnalyzeOptions {
  /** URI variables in scope; undefined when not known here (unknown names are then left to run time). */
  uriVariables?: readonly string[];
  /** The only variables in scope, instead of every expression's and the URI variables (a default's: `user`). */
  variables?: readonly string[];
  /** The callable functions, instead of the security expressions' (a Mercure topic's: TOPIC_FUNCTIONS). */
  functions?: Readonly<Record<string, ExpressionFunction>>;
}

/** Calls `visit` on every node of the tree, parents first. */
export function walkExpression(node: ExprNode, visit: (n: ExprNode) => void): void {
  visit(node);
  for (const child of children(node)) walkExpression(child, visit);
}

function children(n: ExprNode): ExprNode[] {
  switch (n.kind) {
    case 'constant':
    case 'name':
      return [];
    case 'array':
      return n.elements;
    case 'hash':
      return n.entries.flatMap((e) => [e.key, e.value]);
    case 'unary':
      return [n.operand];
    case 'binary':
    case 'coalesce':
      return [n.left, n.right];
    case 'conditional':
      return [n.test, n.consequent, n.alternate].filter((c): c is ExprNode => c !== null);
    case 'member':
      return [n.object];
    case 'index':
      return [n.object, n.index];
    case 'call':
      return n.args;
  }
}

/** True when the expression reads `object` or `previous_object` anywhere. */
export function usesObjectVariables(ast: ExprNode): boolean {
  let found = false;
  walkExpression(ast, (n) => {
    if (n.kind === 'name' && OBJECT_VARIABLES.has(n.name)) found = true;
  });
  return found;
}

/** A chain of dotted members read from `object` or `previous_object` (`object.shop.owner`). */
export interface MemberChain {
  variable: string;
  /** The member names in order: `['shop', 'owner']`. */
  path: string[];
  /** The member nodes in the same order (their `nameStart`/`end` place each name). */
  nodes: Extract<ExprNode, { kind: 'member' }>[];
}

/**
 * Every longest chain of dotted members (`.` or `?.`) rooted at `object` or `previous_object`: what an
 * expression reads of the item, and through its relations. A chain stops at an index (`object['shop']`).
 */
export function objectMemberChains(ast: ExprNode): MemberChain[] {
  const inner = new Set<ExprNode>();
  walkExpression(ast, (n) => {
    if (n.kind === 'member') inner.add(n.object);
  });
  const chains: MemberChain[] = [];
  walkExpression(ast, (n) => {
    if (n.kind !== 'member' || inner.has(n)) return;
    const nodes: Extract<ExprNode, { kind: 'member' }>[] = [];
    let at: ExprNode = n;
    while (at.kind === 'member') {
      nodes.unshift(at);
      at = at.object;
    }
    if (at.kind === 'name' && OBJECT_VARIABLES.has(at.name))
      chains.push({ variable: at.name, path: nodes.map((m) => m.property), nodes });
  });
  return chains;
}

export function analyzeExpression(ast: ExprNode, options: AnalyzeOptions = {}): ExpressionIssue[] {
  const issues: ExpressionIssue[] = [];
  const functions = options.functions ?? EXPRESSION_FUNCTIONS;
  const variables =
    options.variables ??
    (options.uriVariables ? [...Object.keys(EXPRESSION_VARIABLES), ...options.uriVariables] : undefined);
  // As in Symfony, a name right before `??` may be undefined (`tenant ?? null`).
  const coalesced = new Set<ExprNode>();
  walkExpression(ast, (n) => {
    if (n.kind === 'coalesce' && n.left.kind === 'name') coalesced.add(n.left);
  });
  walkExpression(ast, (n) => {
    if (n.kind === 'call') {
      const fn = Object.hasOwn(functions, n.name) ? functions[n.name] : undefined;
      if (!fn) {
        const suggestion = closest(n.name, Object.keys(functions));
        issues.push({
          code: 'unknown-function',
          message: `unknown function '${n.name}'; callable: ${Object.keys(functions).join(', ')}`,
          start: n.start,
          end: n.nameEnd,
          suggestion,
        });
      } else if (n.args.length < fn.minArgs || n.args.length > fn.maxArgs) {
        const expected = fn.minArgs === fn.maxArgs ? `${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
        const message = `${n.name}(${fn.params}) takes ${expected} argument${fn.maxArgs === 1 ? '' : 's'}, not ${n.args.length}`;
        issues.push({ code: 'argument-count', message, start: n.start, end: n.end });
      }
    } else if (n.kind === 'name' && variables && !variables.includes(n.name) && !coalesced.has(n)) {
      const suggestion = closest(n.name, variables);
      const message = `unknown variable '${n.name}'; known: ${variables.join(', ')}`;
      issues.push({ code: 'unknown-variable', message, start: n.start, end: n.end, suggestion });
    } else if (n.kind === 'binary' && n.op === 'matches') {
      if (n.right.kind !== 'constant' || typeof n.right.value !== 'string') {
        issues.push({
          code: 'invalid-pattern',
          message: "the right side of 'matches' must be a string literal such as '/^[a-z]+$/i'",
          start: n.right.start,
          end: n.right.end,
        });
      } else {
        const compiled = compilePattern(n.right.value);
        if (!compiled.ok)
          issues.push({ code: 'invalid-pattern', message: compiled.message, start: n.right.start, end: n.right.end });
      }
    }
  });
  return issues;
}
