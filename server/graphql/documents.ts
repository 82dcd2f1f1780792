/**
 * Parsed and checked queries, kept (docs/graphql.md, "Transport and limits"): clients send the same few query
 * texts again and again, and parsing a text and running graphql-js's own validation rules on it cost more than
 * running a small query. A text's document is kept (least recently used out first), and so is the result of the
 * specified rules for that document, and of the limits (query-limits.ts) for each operation and variables it was sent
 * with (`limitsFor` marks the rules of a request with them).
 */
import {
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  type ParseOptions,
  type Source,
  type ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';

/** How many query texts are kept; a text longer than TEXT_LIMIT is parsed every time. */
const DOCUMENTS = 1_000;
const TEXT_LIMIT = 20_000;
/**
 * The deepest nesting of braces, brackets and parentheses a text may have. The parser recurses once per level and
 * a few thousand levels overflow its stack, how many depending on how V8 compiled it at that moment: a bound far
 * below that, far above any real query (`max_query_depth` is 20 by default), refuses such texts the same way every
 * time.
 */
const MAX_NESTING = 500;

/** How many (operation, variables) results of the limits are kept per document. */
const REQUESTS_PER_DOCUMENT = 50;

/** Marks a request's limit rules with the operation and variables they depend on. */
const REQUEST = Symbol('operation and variables');

/** The limit rules of a request, marked so that their result can be kept for the same operation and variables. */
export function limitsFor(
  rules: ValidationRule[],
  request: { variables?: Readonly<Record<string, unknown>> | null; operationName?: string | null },
): ValidationRule[] {
  return Object.assign(rules, {
    [REQUEST]: `${request.operationName ?? ''}\n${JSON.stringify(request.variables ?? {})}`,
  });
}

export interface PreparedDocuments {
  parse(source: string | Source, options?: ParseOptions): DocumentNode;
  /** graphql-js's specified rules (remembered per document) and `rules` (run every time). */
  validate(schema: GraphQLSchema, document: DocumentNode, rules?: readonly ValidationRule[]): readonly GraphQLError[];
}

export function preparedDocuments(maxTokens: number): PreparedDocuments {
  const documents = new LRUCache<string, DocumentNode>({ max: DOCUMENTS });
  const checked = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const limited = new WeakMap<DocumentNode, LRUCache<string, readonly GraphQLError[]>>();
  return {
    parse(source, options) {
      const text = typeof source === 'string' ? source : source.body;
      const keep = text.length <= TEXT_LIMIT && options === undefined;
      let document = keep ? documents.get(text) : undefined;
      if (!document) {
        // A RangeError, as the parser's own overflow: the transport answers both "nested too deeply" (400).
        if (nesting(text) > MAX_NESTING) throw new RangeError(`The query is nested deeper than ${MAX_NESTING} levels.`);
        document = parse(source, { ...options, maxTokens });
        if (keep) documents.set(text, document);
      }
      return document;
    },
    validate(schema, document, rules) {
      let specified = checked.get(document);
      if (!specified) checked.set(document, (specified = validate(schema, document, specifiedRules)));
      if (specified.length || !rules?.length) return specified;
      const key = (rules as { [REQUEST]?: string })[REQUEST];
      if (key === undefined) return validate(schema, document, rules);
      let results = limited.get(document);
      if (!results) limited.set(document, (results = new LRUCache({ max: REQUESTS_PER_DOCUMENT })));
      let errors = results.get(key);
      if (!errors) results.set(key, (errors = validate(schema, document, rules)));
      return errors;
    },
  };
}

/** The deepest nesting of `{`, `[` and `(` in a query text, strings and comments left out. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '#') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    } else if (c === '"') {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        i = end < 0 ? text.length : end + 2;
      } else {
        for (i++; i < text.length && text[i] !== '"' && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
      }
    } else if (c === '{' || c === '[' || c === '(') {
      if (++depth > deepest) deepest = depth;
    } else if (c === '}' || c === ']' || c === ')') depth--;
  }
  return deepest;
}
