/**
 * The Chevrotain grammar of the `.api` language, as one class of rules (one instance is
 * reused), with error recovery enabled. Its embedded actions build the AST directly (no
 * concrete syntax tree: building one costs more than parsing itself) and report the
 * syntax-level defects the grammar tolerates on purpose: a missing colon or comma, bad
 * strings, unknown declarations, stray tokens. Chevrotain's own errors are placed by
 * parse.ts.
 */
import {
  EmbeddedActionsParser,
  EOF,
  tokenMatcher,
  type IParserErrorMessageProvider,
  type IToken,
  type TokenType,
} from '#chevrotain';
import type * as A from './ast.js';
import { enumScalarOf } from './ast.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import * as T from './lexer.js';
import type { LineIndex } from './positions.js';
import { closest, didYouMean } from './suggest.js';

const describeToken = (token: IToken): string =>
  token.tokenType === EOF
    ? 'end of file'
    : `'${token.image.length > 30 ? token.image.slice(0, 30) + '…' : token.image}'`;

const labelOf = (type: TokenType): string => type.LABEL ?? type.name;

const list = (labels: string[]): string => {
  const unique = [...new Set(labels)];
  return unique.length <= 1 ? unique.join('') : `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
};

/** Messages in the words of the language ("expected ':' but found '}'"). */
const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected, actual }) =>
    `expected ${labelOf(expected)} but found ${describeToken(actual)}`,
  buildNotAllInputParsedMessage: ({ firstRedundant }) => `unexpected ${describeToken(firstRedundant)}`,
  buildNoViableAltMessage: ({ expectedPathsPerAlt, actual, ruleName }) => {
    const firsts = expectedPathsPerAlt.flatMap((paths) => paths.map((path) => labelOf(path[0])));
    const isValue = ruleName === 'value' || (firsts.includes('a string') && firsts.includes('a number'));
    const what = isValue ? 'a value (string, number, true, false, null, name, [ or {)' : list(firsts);
    return `expected ${what} but found ${describeToken(actual[0])}`;
  },
  buildEarlyExitMessage: ({ expectedIterationPaths, actual }) =>
    `expected ${list(expectedIterationPaths.map((p) => labelOf(p[0])))} but found ${describeToken(actual[0])}`,
};

export const isRealToken = (t: IToken | undefined): t is IToken =>
  t !== undefined && t.tokenType !== EOF && !t.isInsertedInRecovery && Number.isFinite(t.startOffset);

const tokenRange = (t: IToken): A.Range => ({ start: t.startOffset, end: t.startOffset + t.image.length });

/** The range from the first to the last of some tokens and ranges that really exist. */
function spanOf(...parts: (IToken | A.Range | undefined)[]): A.Range {
  let start = Infinity;
  let end = -Infinity;
  for (const p of parts) {
    if (!p) continue;
    let r = p as A.Range | undefined;
    if ('image' in p) r = isRealToken(p) ? tokenRange(p) : undefined;
    if (r && Number.isFinite(r.start)) {
      if (r.start < start) start = r.start;
      if (r.end > end) end = r.end;
    }
  }
  return Number.isFinite(start) ? { start, end } : { start: 0, end: 0 };
}

/** Decodes a string literal's JSON escapes, tolerating what JSON does not (raw tabs). */
/**
 * A single-quoted string written in double quotes (`'it\\'s "new"'` → `"it's \\"new\\""`), other escapes kept;
 * undefined when one of them is not a JSON escape.
 */
function doubleQuoted(image: string): string | undefined {
  const inner = image
    .slice(1, -1)
    .replace(/\\'/g, "'")
    .replace(/(?<!\\)((?:\\\\)*)"/g, '$1\\"');
  const quoted = `"${inner}"`;
  return decodeString(quoted).badEscape === undefined ? quoted : undefined;
}

function decodeString(image: string): { value: string; badEscape?: number } {
  const closed = image.length >= 2 && image.endsWith('"') && !image.endsWith('\\"');
  const body = image.slice(1, closed ? -1 : undefined);
  if (!body.includes('\\')) return { value: body };
  let out = '';
  let badEscape: number | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = {
      '"': '"',
      '\\': '\\',
      '/': '/',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
    };
    if (e !== undefined && e in simple) out += simple[e];
    else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else {
      badEscape ??= i;
      if (e !== undefined) out += e;
    }
  }
  return badEscape === undefined ? { value: out } : { value: out, badEscape };
}

/** Members of a bracketed list and the commas between them, for the separator rule. */
class Members<M extends { range: A.Range }> {
  readonly items: M[] = [];
  readonly commas: number[] = [];
}

class ApiParser extends EmbeddedActionsParser {
  /** Set for each parse: lines (for the separator rule) and the diagnostics found. */
  lines!: LineIndex;
  diagnostics: Diagnostic[] = [];
  /** When parsing a region: the top level stops before this token (the first one after the region). */
  stopToken: IToken | undefined;

  constructor() {
    super(T.allTokens, { recoveryEnabled: true, errorMessageProvider: messages, maxLookahead: 1 });
    this.performSelfAnalysis();
    this.rememberRecoveryFollows();
    this.stopQuietly();
  }

  /**
   * When the top-level repetition stops at `stopToken` (a region parsed on its own), Chevrotain would
   * take the unexpected token for an error to recover from (it expects the end of the input there) and
   * skip ahead: at that point the region is complete, so there is nothing to recover.
   */
  private stopQuietly(): void {
    const self = this as unknown as {
      attemptInRepetitionRecovery: (...args: unknown[]) => void;
      RULE_STACK_IDX: number;
    };
    const attempt = self.attemptInRepetitionRecovery;
    self.attemptInRepetitionRecovery = (...args) => {
      if (this.stopToken !== undefined && self.RULE_STACK_IDX === 0 && this.LA(1) === this.stopToken) return;
      attempt.apply(this, args);
    };
  }

  /**
   * Chevrotain's in-rule recovery (inserting or deleting one token) computes, at every mismatched token, what
   * may follow it by walking the grammar from the top rule along the current rule stack: tens of milliseconds
   * per error, so seconds for a broken file. The answer depends only on that path, so it is computed once.
   */
  private rememberRecoveryFollows(): void {
    type Path = { ruleStack: string[]; occurrenceStack: number[] };
    const self = this as unknown as {
      getFollowsForInRuleRecovery(type: TokenType, index: number): TokenType[];
      getCurrentGrammarPath(type: TokenType, index: number): Path;
    };
    const compute = self.getFollowsForInRuleRecovery.bind(this);
    const known = new Map<string, TokenType[]>();
    self.getFollowsForInRuleRecovery = (type, index) => {
      const path = self.getCurrentGrammarPath(type, index);
      const key = `${path.ruleStack.join()}|${path.occurrenceStack.join()}|${type.name}|${index}`;
      let follows = known.get(key);
      if (!follows) {
        if (known.size >= 10_000) known.clear(); // bounded: paths are at most MAX_NESTING deep, but many
        known.set(key, (follows = compute(type, index)));
      }
      return follows;
    };
  }

  private lineOf(offset: number): number {
    return this.lines.position(offset).line;
  }

  /** Two members on one line need a comma between them. */
  private checkSeparators(m: Members<{ range: A.Range }>): void {
    for (let i = 1; i < m.items.length; i++) {
      const prev = m.items[i - 1].range;
      const next = m.items[i].range;
      if (next.start <= prev.start) continue;
      if (m.commas.some((o) => o >= prev.end && o < next.start)) continue;
      if (this.lineOf(prev.end - 1) === this.lineOf(next.start)) {
        this.diagnostics.push(
          diagnostic('missing-separator', next, "expected ',' or a line break between two members on one line"),
        );
      }
    }
  }

  private stringValue(t: IToken): A.StringValue {
    const range = tokenRange(t);
    if (t.tokenType === T.UnterminatedSingleQuotedString) {
      this.diagnostics.push(
        diagnostic(
          'unterminated-string',
          range,
          'unterminated string: strings use double quotes, closed on their line',
        ),
      );
      return { kind: 'string', value: t.image.slice(1), range };
    }
    if (t.tokenType === T.SingleQuotedString) {
      const fixed = doubleQuoted(t.image);
      const message = fixed
        ? `strings use double quotes: write ${fixed} instead of ${t.image}`
        : `strings use double quotes, not ${t.image}`;
      this.diagnostics.push(diagnostic('invalid-character', range, message, fixed));
      return { kind: 'string', value: fixed ? decodeString(fixed).value : t.image.slice(1, -1), range };
    }
    const decoded = decodeString(t.image);
    if (t.tokenType === T.UnterminatedString) {
      this.diagnostics.push(
        diagnostic('unterminated-string', range, "unterminated string: add the closing '\"' on this line"),
      );
    } else if (decoded.badEscape !== undefined) {
      const at = range.start + decoded.badEscape;
      this.diagnostics.push(
        diagnostic(
          'invalid-escape',
          { start: at, end: at + 2 },
          `invalid escape '\\${t.image[decoded.badEscape + 1] ?? ''}' in string (JSON escapes only)`,
        ),
      );
    }
    return { kind: 'string', value: decoded.value, range };
  }

  private nameOf(t: IToken | undefined): A.Name | undefined {
    if (!isRealToken(t)) return undefined;
    if (tokenMatcher(t, T.StringLiteral)) return { text: this.stringValue(t).value, range: tokenRange(t) };
    return { text: t.image, range: tokenRange(t) };
  }

  /** `{ member, member }` around a repeated rule, collecting members and commas. */
  private list<M extends { range: A.Range }>(member: () => M | undefined, m: Members<M>): void {
    // Occurrence index 9: callers' own rules use the low indices.
    this.MANY9(() =>
      this.OR9([
        { ALT: () => this.ACTION_PUSH(m.items, member()) },
        { ALT: () => this.ACTION_PUSH(m.commas, this.CONSUME9(T.Comma).startOffset) },
      ]),
    );
  }

  public document = this.RULE('document', (): A.Declaration[] => {
    const decls: A.Declaration[] = [];
    this.MANY({
      GATE: () => this.LA(1) !== this.stopToken,
      DEF: () => {
        const d = this.SUBRULE(this.declaration);
        this.ACTION(() => d && decls.push(d));
      },
    });
    return decls;
  });

  private declaration = this.RULE('declaration', (): A.Declaration | undefined =>
    this.OR([
      { ALT: () => this.SUBRULE(this.apiDecl) },
      { ALT: () => this.SUBRULE(this.configDecl) },
      { ALT: () => this.SUBRULE(this.filterDecl) },
      { ALT: () => this.SUBRULE(this.resourceDecl) },
      { ALT: () => this.SUBRULE(this.mutatorDecl) },
      { ALT: () => this.SUBRULE(this.unknownDecl) },
      { ALT: () => this.SUBRULE(this.strayToken) },
    ]),
  );

  private apiDecl = this.RULE('apiDecl', (): A.ApiDecl => {
    const kw = this.CONSUME(T.Api);
    const title = this.CONSUME(T.StringLiteral);
    const body = this.OPTION(() => this.SUBRULE(this.object));
    return this.ACTION(() => ({
      kind: 'api' as const,
      title: isRealToken(title) ? this.stringValue(title) : undefined,
      body,
      range: spanOf(kw, title, body?.range),
    }));
  });

  private configDecl = this.RULE('configDecl', (): A.ConfigDecl => {
    const kw = this.CONSUME(T.Config);
    const body = this.SUBRULE(this.object);
    return this.ACTION(() => {
      const range = spanOf(kw, body?.range);
      return { kind: 'config' as const, body: body ?? { kind: 'object' as const, entries: [], range }, range };
    });
  });

  private filterDecl = this.RULE('filterDecl', (): A.FilterDecl => {
    const kw = this.CONSUME(T.Filter);
    const name = this.CONSUME(T.Name);
    this.CONSUME(T.Colon);
    const kind = this.CONSUME2(T.Name);
    const body = this.OPTION(() => this.SUBRULE(this.object));
    return this.ACTION(() => ({
      kind: 'filter' as const,
      name: this.nameOf(name),
      filterKind: this.nameOf(kind),
      body,
      range: spanOf(kw, name, kind, body?.range),
    }));
  });

  private resourceDecl = this.RULE('resourceDecl', (): A.ResourceDecl => {
    const kw = this.CONSUME(T.Resource);
    const name = this.CONSUME(T.Name);
    this.CONSUME(T.LCurly);
    const options: A.Entry[] = [];
    const propertiesBlocks: A.PropertiesBlock[] = [];
    const operationsBlocks: A.OperationsBlock[] = [];
    const graphqlBlocks: A.OperationsBlock[] = [];
    const members = new Members<{ range: A.Range }>();
    this.list(
      () =>
        this.OR([
          { ALT: () => this.ACTION_PUSH(propertiesBlocks, this.SUBRULE(this.propertiesBlock)) },
          { ALT: () => this.ACTION_PUSH(operationsBlocks, this.SUBRULE(this.operationsBlock)) },
          // `graphql` followed by anything but `{` is an option key (`graphql: …`, reported as unknown).
          {
            GATE: () => tokenMatcher(this.LA(2), T.LCurly),
            ALT: () => this.ACTION_PUSH(graphqlBlocks, this.SUBRULE(this.graphqlBlock)),
          },
          // `properties`/`operations`/`graphql` are names too; the blocks above win.
          { ALT: () => this.ACTION_PUSH(options, this.SUBRULE(this.entry)), IGNORE_AMBIGUITIES: true },
        ]),
      members,
    );
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() => {
      this.checkSeparators(members);
      return {
        kind: 'resource' as const,
        name: this.nameOf(name),
        options,
        propertiesBlocks,
        operationsBlocks,
        graphqlBlocks,
        range: spanOf(kw, name, close, ...members.items.map((m) => m.range)),
      };
    });
  });

  /** Pushes a sub-rule's result (when recovery left one) and passes it on. */
  private ACTION_PUSH<M>(into: M[], item: M | undefined): M | undefined {
    this.ACTION(() => item && into.push(item));
    return item;
  }

  private propertiesBlock = this.RULE('propertiesBlock', (): A.PropertiesBlock => {
    const kw = this.CONSUME(T.Properties);
    this.CONSUME(T.LCurly);
    const m = new Members<A.PropertyDecl>();
    this.MANY({
      // `operations {` after a properties block left open ends the block (a property may
      // still be named `properties` or `operations`: then a colon follows).
      GATE: () => !this.atBlockKeyword(),
      DEF: () =>
        this.OR([
          { ALT: () => this.ACTION_PUSH(m.items, this.SUBRULE(this.propertyDecl)) },
          { ALT: () => this.ACTION_PUSH(m.commas, this.CONSUME(T.Comma).startOffset) },
        ]),
    });
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() => {
      this.checkSeparators(m);
      return { properties: m.items, range: spanOf(kw, close, ...m.items.map((p) => p.range)) };
    });
  });

  private atBlockKeyword(): boolean {
    const t = this.LA(1).tokenType;
    return (t === T.Properties || t === T.Operations || t === T.Graphql) && this.LA(2).tokenType === T.LCurly;
  }

  private propertyDecl = this.RULE('propertyDecl', (): A.PropertyDecl | undefined => {
    const name = this.CONSUME(T.Name);
    this.CONSUME(T.Colon);
    const typeName = this.CONSUME2(T.Name);
    const brackets = this.OPTION({
      GATE: () => tokenMatcher(this.LA(2), T.RBracket),
      DEF: () => {
        this.CONSUME(T.LBracket);
        return this.CONSUME(T.RBracket);
      },
    });
    // `status: enum ["a", "b"]` or `enum { "a", "b" }`: a list of values where the type's options go.
    // Read as a list, so that the mistake is one diagnostic with its fix instead of a cascade.
    const values = this.OPTION3({
      GATE: () => !isRealToken(brackets) && this.valueListAhead(),
      DEF: () => this.SUBRULE(this.valueList),
    });
    const constraints = this.OPTION2(() => this.SUBRULE(this.object));
    return this.ACTION(() => {
      const n = this.nameOf(name);
      if (!n) return undefined;
      if (values && isRealToken(typeName)) this.enumListDiagnostic(typeName, values, constraints);
      const type: A.TypeRef | undefined = isRealToken(typeName)
        ? {
            name: typeName.image,
            array: isRealToken(brackets),
            nameRange: tokenRange(typeName),
            range: spanOf(typeName, brackets),
          }
        : undefined;
      return {
        name: n,
        type,
        ...(values ? { values } : {}),
        constraints,
        range: spanOf(n.range, type?.range, values?.range, constraints?.range),
      };
    });
  });

  /** Whether a list of values follows: `[` and not `]`, or `{` and a value that is not a key (no `:` after it). */
  private valueListAhead(): boolean {
    const open = this.LA(1);
    if (tokenMatcher(open, T.LBracket)) return true;
    if (!tokenMatcher(open, T.LCurly)) return false;
    const first = this.LA(2);
    const literal = [T.StringLiteral, T.NumberLiteral, T.True, T.False, T.Null].some((t) => tokenMatcher(first, t));
    return literal && (tokenMatcher(this.LA(3), T.Comma) || tokenMatcher(this.LA(3), T.RCurly));
  }

  /** `[ value, … ]` or `{ value, … }`: the values of an enum written in place of the type's options. */
  private valueList = this.RULE('valueList', (): A.ArrayValue => {
    const open = this.OR([{ ALT: () => this.CONSUME(T.LBracket) }, { ALT: () => this.CONSUME(T.LCurly) }]);
    const m = new Members<A.Value>();
    this.list(() => this.SUBRULE(this.value), m);
    const close = this.OR2([{ ALT: () => this.CONSUME(T.RBracket) }, { ALT: () => this.CONSUME(T.RCurly) }]);
    return this.ACTION(() => ({
      kind: 'array' as const,
      items: m.items,
      range: spanOf(open, close, ...m.items.map((i) => i.range)),
    }));
  });

  /**
   * There is no enum type: an enumeration is a scalar with the `enum` constraint (`string { enum: […] }`, as
   * JSON Schema has it). The fix, when no options follow, writes it so.
   */
  private enumListDiagnostic(typeName: IToken, values: A.ArrayValue, constraints: A.ObjectValue | undefined): void {
    const scalars = values.items.every((v) => v.kind === 'string' || v.kind === 'number' || v.kind === 'bool');
    const type = enumScalarOf(typeName.image, values);
    const list = values.items
      .map((v) => (v.kind === 'string' || v.kind === 'number' || v.kind === 'bool' ? JSON.stringify(v.value) : '…'))
      .join(', ');
    const written = `${type} { enum: [${list}] }`;
    const fix = scalars && !constraints ? written : undefined;
    this.diagnostics.push(
      diagnostic(
        'enum-list',
        { start: typeName.startOffset, end: values.range.end },
        `an enumeration is a ${type} with the enum constraint: write ${written}`,
        fix,
      ),
    );
  }

  private operationsBlock = this.RULE('operationsBlock', (): A.OperationsBlock =>
    this.operationList(this.CONSUME(T.Operations)),
  );

  /** `graphql { Query, Mutation create { … } }`: GraphQL operations, written as REST ones are. */
  private graphqlBlock = this.RULE('graphqlBlock', (): A.OperationsBlock =>
    this.operationList(this.CONSUME(T.Graphql)),
  );

  /** The `{ Kind [name] [{ options }], … }` after an `operations` or `graphql` keyword. */
  private operationList(kw: IToken): A.OperationsBlock {
    this.CONSUME(T.LCurly);
    const m = new Members<A.OperationDecl>();
    this.list(() => this.SUBRULE(this.operationDecl), m);
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() => {
      this.checkSeparators(m);
      return { operations: m.items, range: spanOf(kw, close, ...m.items.map((o) => o.range)) };
    });
  }

  private operationDecl = this.RULE('operationDecl', (): A.OperationDecl | undefined => {
    const kind = this.CONSUME(T.Name);
    // The optional name must stand on the kind's line: `Get⏎ Put` is two operations.
    const name = this.OPTION({
      GATE: () =>
        this.LA(1).startOffset !== undefined &&
        this.lineOf(this.LA(1).startOffset) === this.lineOf(kind.startOffset + kind.image.length - 1),
      DEF: () => this.CONSUME2(T.Name),
    });
    const body = this.OPTION2(() => this.SUBRULE(this.object));
    return this.ACTION(() => {
      const opKind = this.nameOf(kind);
      if (!opKind) return undefined;
      const opName = this.nameOf(name);
      return { opKind, name: opName, body, range: spanOf(opKind.range, opName?.range, body?.range) };
    });
  });

  private mutatorDecl = this.RULE('mutatorDecl', (): A.MutatorDecl => {
    const kw = this.CONSUME(T.Mutator);
    const targetKind = this.CONSUME(T.Name);
    const target = this.OR([{ ALT: () => this.CONSUME2(T.Name) }, { ALT: () => this.CONSUME(T.StringLiteral) }]);
    this.CONSUME(T.Colon);
    const ref = this.CONSUME2(T.StringLiteral);
    return this.ACTION(() => ({
      kind: 'mutator' as const,
      targetKind: this.nameOf(targetKind),
      target: this.nameOf(target),
      ref: isRealToken(ref) ? this.stringValue(ref) : undefined,
      range: spanOf(kw, targetKind, target, ref),
    }));
  });

  /** A declaration that starts with an unknown word (`resorce Book { … }`): read it whole so
   *  the checker can name the closest keyword and parsing goes on after it. */
  private unknownDecl = this.RULE('unknownDecl', (): undefined => {
    const word = this.CONSUME(T.Identifier);
    this.OPTION({ GATE: () => this.LA(1).tokenType !== T.LCurly, DEF: () => this.CONSUME(T.Name) });
    this.OPTION2(() => this.SUBRULE(this.skippedBlock));
    this.ACTION(() => {
      if (!isRealToken(word)) return;
      const suggestion = closest(word.image, T.DECLARATION_KEYWORDS);
      this.diagnostics.push(
        diagnostic(
          'unknown-declaration',
          tokenRange(word),
          `unknown declaration '${word.image}': expected api, config, filter, resource or mutator${didYouMean(suggestion)}`,
          suggestion,
        ),
      );
    });
    return undefined;
  });

  /** A balanced `{ … }` read without interpreting it (the body of an unknown declaration). */
  private skippedBlock = this.RULE('skippedBlock', (): undefined => {
    this.CONSUME(T.LCurly);
    this.MANY(() =>
      this.OR([
        { ALT: () => this.SUBRULE(this.skippedBlock) },
        ...[
          T.Name,
          T.StringLiteral,
          T.NumberLiteral,
          T.True,
          T.False,
          T.Null,
          T.Colon,
          T.Comma,
          T.LBracket,
          T.RBracket,
        ].map((t) => ({ ALT: () => this.CONSUME(t) })),
      ]),
    );
    this.CONSUME(T.RCurly);
    return undefined;
  });

  /** A token that cannot start a declaration: consumed and reported, so parsing goes on. */
  private strayToken = this.RULE('strayToken', (): undefined => {
    const t = this.OR(
      [
        T.RCurly,
        T.LCurly,
        T.RBracket,
        T.LBracket,
        T.Colon,
        T.Comma,
        T.StringLiteral,
        T.NumberLiteral,
        T.True,
        T.False,
        T.Null,
        T.Properties,
        T.Operations,
        T.Graphql,
      ].map((tt) => ({
        ALT: () => this.CONSUME(tt),
      })),
    );
    this.ACTION(() => {
      if (isRealToken(t))
        this.diagnostics.push(
          diagnostic(
            'syntax-error',
            tokenRange(t),
            `unexpected '${t.image}': expected a declaration (api, config, filter, resource or mutator)`,
          ),
        );
    });
    return undefined;
  });

  public object = this.RULE('object', (): A.ObjectValue => {
    const open = this.CONSUME(T.LCurly);
    const m = new Members<A.Entry>();
    this.list(() => this.SUBRULE(this.entry), m);
    const close = this.CONSUME(T.RCurly);
    return this.ACTION(() => {
      this.checkSeparators(m);
      return { kind: 'object' as const, entries: m.items, range: spanOf(open, close, ...m.items.map((e) => e.range)) };
    });
  });

  private entry = this.RULE('entry', (): A.Entry | undefined => {
    const key = this.OR([{ ALT: () => this.CONSUME(T.Name) }, { ALT: () => this.CONSUME(T.StringLiteral) }]);
    let block = false;
    let colonMissing = false;
    const value = this.OR2([
      {
        ALT: () => {
          const colon = this.CONSUME(T.Colon);
          return this.OR3([
            {
              // A bare word on a later line is the next member, not this key's value:
              // `routePrefix:⏎ properties {…}` is a missing value.
              GATE: () =>
                !(
                  tokenMatcher(this.LA(1), T.Name) &&
                  this.lineOf(this.LA(1).startOffset) > this.lineOf(colon.startOffset)
                ),
              ALT: () => this.SUBRULE(this.value),
            },
          ]);
        },
      },
      {
        ALT: () => {
          const obj = this.SUBRULE(this.object);
          block = true;
          return obj;
        },
      },
      // `title 1`: a value on the key's line without the colon. Read it, so one missing
      // colon is one diagnostic, not a cascade.
      {
        GATE: () => this.lineOf(this.LA(1).startOffset) === this.lineOf(key.startOffset + key.image.length - 1),
        ALT: () => {
          const v = this.SUBRULE2(this.value);
          colonMissing = true;
          return v;
        },
        IGNORE_AMBIGUITIES: true,
      },
    ]);
    return this.ACTION(() => {
      const k = this.nameOf(key);
      if (!k) return undefined;
      if (colonMissing)
        this.diagnostics.push(diagnostic('missing-colon', k.range, `expected ':' between '${k.text}' and its value`));
      return { key: k, value, block, range: spanOf(k.range, value?.range) };
    });
  });

  private value = this.RULE('value', (): A.Value | undefined =>
    this.OR([
      { ALT: () => this.literal(this.CONSUME(T.StringLiteral)) },
      { ALT: () => this.literal(this.CONSUME(T.NumberLiteral)) },
      { ALT: () => this.literal(this.CONSUME(T.True)) },
      { ALT: () => this.literal(this.CONSUME(T.False)) },
      { ALT: () => this.literal(this.CONSUME(T.Null)) },
      { ALT: () => this.literal(this.CONSUME(T.Name)) },
      { ALT: () => this.SUBRULE(this.array) },
      { ALT: () => this.SUBRULE(this.object) },
    ]),
  );

  private literal(t: IToken): A.Value | undefined {
    return this.ACTION(() => {
      if (!isRealToken(t)) return undefined;
      const range = tokenRange(t);
      switch (t.tokenType) {
        case T.NumberLiteral:
          return { kind: 'number' as const, value: Number(t.image), raw: t.image, range };
        case T.True:
        case T.False:
          return { kind: 'bool' as const, value: t.tokenType === T.True, range };
        case T.Null:
          return { kind: 'null' as const, range };
        case T.StringLiteral:
        case T.UnterminatedString:
        case T.SingleQuotedString:
        case T.UnterminatedSingleQuotedString:
          return this.stringValue(t);
        default:
          return { kind: 'ident' as const, name: t.image, range };
      }
    });
  }

  private array = this.RULE('array', (): A.ArrayValue => {
    const open = this.CONSUME(T.LBracket);
    const m = new Members<A.Value>();
    this.list(() => this.SUBRULE(this.value), m);
    const close = this.CONSUME(T.RBracket);
    return this.ACTION(() => {
      this.checkSeparators(m);
      return { kind: 'array' as const, items: m.items, range: spanOf(open, close, ...m.items.map((i) => i.range)) };
    });
  });
}

/** The single parser instance (Chevrotain parsers are built once and reused). */
const parser = new ApiParser();

export interface RawParse {
  declarations: A.Declaration[];
  tokens: IToken[];
  comments: IToken[];
  /** Diagnostics the grammar's actions reported. */
  diagnostics: Diagnostic[];
  lexErrors: { offset: number; length: number }[];
  parseErrors: { message: string; token: IToken; previousToken: IToken | undefined }[];
}

/**
 * How deep brackets may nest. Every stage after the lexer (parser, its error recovery, the checker, the
 * formatter, the language server) walks the tree recursively: beyond this depth the tokens are not parsed.
 */
export const MAX_NESTING = 32;

/**
 * The tokens without what is nested deeper than MAX_NESTING (from the first bracket too deep to its matching
 * one, or to the end), with a diagnostic at each such bracket. Linear, and the only bound the later stages need.
 */
function boundNesting(tokens: IToken[], diagnostics: Diagnostic[]): IToken[] {
  let depth = 0;
  let kept: IToken[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const type = t.tokenType;
    if (type === T.LCurly || type === T.LBracket) depth++;
    else if ((type === T.RCurly || type === T.RBracket) && depth > 0) depth--;
    if (depth <= MAX_NESTING) {
      kept?.push(t);
      continue;
    }
    kept ??= tokens.slice(0, i);
    diagnostics.push(
      diagnostic(
        'nested-too-deeply',
        { start: t.startOffset, end: t.startOffset + 1 },
        `nested too deeply: brackets may nest ${MAX_NESTING} levels; what follows is not read up to its closing bracket`,
      ),
    );
    // Skipped up to the bracket that brings the depth back to the limit, which is skipped too.
    for (i++; i < tokens.length && depth > MAX_NESTING; i++) {
      const type = tokens[i]!.tokenType;
      if (type === T.LCurly || type === T.LBracket) depth++;
      else if (type === T.RCurly || type === T.RBracket) depth--;
    }
    i--;
  }
  return kept ?? tokens;
}

/**
 * A part of a text to parse on its own (reparse.ts): the text from `start` to `end` is lexed, and its
 * declarations are parsed up to the first token at or after `stop` (what lies between `stop` and `end`
 * is only there for the parser to look ahead at, as it would in the whole text).
 */
export interface Region {
  start: number;
  stop: number;
  end: number;
}

/** Lexes and parses a text (or a region of it), collecting every lexing and parsing error. */
export function parseRaw(text: string, lines: LineIndex, region?: Region): RawParse & { stopped: boolean } {
  const lexed = T.apiLexer.tokenize(region ? text.slice(region.start, region.end) : text);
  let lexErrors = lexed.errors.map((e) => ({ offset: e.offset, length: e.length }));
  const comments = lexed.groups.comments ?? [];
  if (region) {
    for (const t of [...lexed.tokens, ...comments]) {
      t.startOffset += region.start;
      t.endOffset = (t.endOffset ?? t.startOffset) + region.start;
    }
    lexErrors = lexErrors.map((e) => ({ offset: e.offset + region.start, length: e.length }));
  }
  parser.lines = lines;
  parser.diagnostics = [];
  const tokens = boundNesting(lexed.tokens, parser.diagnostics);
  parser.stopToken = region ? tokens.find((t) => t.startOffset >= region.stop) : undefined;
  parser.input = tokens;
  const declarations = parser.document() ?? [];
  let stopped = false;
  const parseErrors = parser.errors
    .filter((e) => {
      const atStop =
        parser.stopToken !== undefined && e.token === parser.stopToken && e.name === 'NotAllInputParsedException';
      stopped ||= atStop;
      return !atStop;
    })
    .map((e) => ({
      message: e.message,
      token: e.token,
      previousToken: (e as { previousToken?: IToken }).previousToken,
    }));
  parser.stopToken = undefined;
  return { declarations, tokens, comments, diagnostics: parser.diagnostics, lexErrors, parseErrors, stopped };
}
