/**
 * Tokens of the `.api` language. Whitespace and newlines are skipped: the parser does not
 * need them, and the one rule that depends on line breaks (two members on one line need a
 * comma) is checked from token positions by the AST builder.
 */
import { createToken, Lexer, type TokenType } from '#chevrotain';

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n\f\v\u00a0\ufeff]+/,
  group: Lexer.SKIPPED,
});
export const LineComment = createToken({ name: 'LineComment', pattern: /\/\/[^\n\r]*/, group: 'comments' });
export const BlockComment = createToken({
  name: 'BlockComment',
  pattern: /\/\*[\s\S]*?\*\//,
  group: 'comments',
  line_breaks: true,
});
/** A `/*` that is never closed: kept as a comment so parsing goes on; the builder reports it. */
export const UnterminatedComment = createToken({
  name: 'UnterminatedComment',
  pattern: /\/\*[\s\S]*/,
  group: 'comments',
  line_breaks: true,
});

/** Any name: identifiers and keywords (keywords may be used as keys, e.g. `filter:` in `parameters`). */
export const Name = createToken({ name: 'Name', pattern: Lexer.NA, label: 'a name' });
export const Identifier = createToken({
  name: 'Identifier',
  pattern: /[A-Za-z_][A-Za-z0-9_]*/,
  categories: [Name],
  label: 'a name',
});

const keyword = (word: string, categories: TokenType[] = [Name]): TokenType =>
  createToken({
    name: word[0].toUpperCase() + word.slice(1),
    pattern: new RegExp(word),
    categories,
    longer_alt: Identifier,
    label: `'${word}'`,
  });

export const Api = keyword('api');
export const Config = keyword('config');
export const Filter = keyword('filter');
export const Resource = keyword('resource');
export const Properties = keyword('properties');
export const Operations = keyword('operations');
export const Graphql = keyword('graphql');
export const Mutator = keyword('mutator');
export const True = keyword('true', []);
export const False = keyword('false', []);
export const Null = keyword('null', []);

export const StringLiteral = createToken({
  name: 'StringLiteral',
  pattern: /"(?:[^"\\\r\n]|\\.)*"/,
  label: 'a string',
});
/** A string cut off by the end of its line: still a string for the parser; the builder reports it. */
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  pattern: /"(?:[^"\\\r\n]|\\.)*\\?/,
  categories: [StringLiteral],
  label: 'a string',
});
/**
 * A string in single quotes (`'1.0.0'`): not JSON, but read as the string it means so that parsing goes on;
 * the parser reports it with the double-quoted fix ("strings use double quotes").
 */
export const SingleQuotedString = createToken({
  name: 'SingleQuotedString',
  pattern: /'(?:[^'\\\r\n]|\\.)*'/,
  categories: [StringLiteral],
  label: 'a string',
});
/** A single quote never closed on its line: a string for the parser, reported by it. */
export const UnterminatedSingleQuotedString = createToken({
  name: 'UnterminatedSingleQuotedString',
  pattern: /'(?:[^'\\\r\n]|\\.)*\\?/,
  categories: [StringLiteral],
  label: 'a string',
});
export const NumberLiteral = createToken({
  name: 'NumberLiteral',
  pattern: /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/,
  label: 'a number',
});

export const LCurly = createToken({ name: 'LCurly', pattern: /\{/, label: "'{'" });
export const RCurly = createToken({ name: 'RCurly', pattern: /\}/, label: "'}'" });
export const LBracket = createToken({ name: 'LBracket', pattern: /\[/, label: "'['" });
export const RBracket = createToken({ name: 'RBracket', pattern: /\]/, label: "']'" });
export const Colon = createToken({ name: 'Colon', pattern: /:/, label: "':'" });
export const Comma = createToken({ name: 'Comma', pattern: /,/, label: "','" });

/** Words that may start a top-level declaration. */
export const DECLARATION_KEYWORDS = ['api', 'config', 'filter', 'resource', 'mutator'];

export const allTokens: TokenType[] = [
  WhiteSpace,
  LineComment,
  BlockComment,
  UnterminatedComment,
  StringLiteral,
  UnterminatedString,
  SingleQuotedString,
  UnterminatedSingleQuotedString,
  NumberLiteral,
  LCurly,
  RCurly,
  LBracket,
  RBracket,
  Colon,
  Comma,
  Api,
  Config,
  Filter,
  Resource,
  Properties,
  Operations,
  Graphql,
  Mutator,
  True,
  False,
  Null,
  Identifier,
  Name,
];

export const apiLexer = new Lexer(allTokens, { positionTracking: 'onlyOffset', ensureOptimizations: true });
