/**
 * Diagnostics: the catalogue of stable codes with their severities, and the shape every
 * part of the front end reports in. Codes never change meaning once published; the
 * language server and the CLI print them, and tests assert them.
 */
import type { Range } from './ast.js';

/** A hint reports something true and harmless (an option that only API Platform's PHP stack reads). */
export type Severity = 'error' | 'warning' | 'hint';

export const DIAGNOSTIC_CODES = {
  'syntax-error': {
    severity: 'error',
    doc: 'The text does not follow the grammar; the message says what was expected.',
  },
  'missing-separator': { severity: 'error', doc: 'Two members on one line without a comma between them.' },
  'missing-colon': { severity: 'error', doc: "A key followed by a value without ':'." },
  'unterminated-string': { severity: 'error', doc: 'A string not closed on its line.' },
  'unterminated-comment': { severity: 'error', doc: "A '/*' comment never closed." },
  'invalid-escape': { severity: 'error', doc: 'A string escape JSON does not allow.' },
  'invalid-character': {
    severity: 'error',
    doc: 'A character that starts no token, or a string in single quotes (\'1.0.0\': write "1.0.0").',
  },
  'enum-list': {
    severity: 'error',
    doc: 'A list of values after a property type (`status: enum ["a", "b"]`): write `string { enum: ["a", "b"] }`.',
  },
  'nested-too-deeply': {
    severity: 'error',
    doc: 'Brackets nested deeper than the language allows (32 levels); what is inside is not read.',
  },
  'unknown-declaration': {
    severity: 'error',
    doc: 'A top-level word that is not api, config, filter, resource or mutator.',
  },
  'duplicate-declaration': { severity: 'error', doc: 'api or config declared more than once.' },
  'unknown-option': { severity: 'error', doc: 'An option, setting, constraint or filter field that does not exist.' },
  'option-not-allowed': {
    severity: 'error',
    doc: 'An option used where the language does not allow it (docs/options.md).',
  },
  'option-ineffective': { severity: 'warning', doc: 'An option accepted where it has no effect.' },
  'messenger-no-handler': {
    severity: 'error',
    doc: 'A resource dispatched to the message bus without a handler in config messenger.handlers.',
  },
  'invalid-value': { severity: 'error', doc: 'A value of the wrong type or out of range.' },
  'duplicate-key': { severity: 'error', doc: 'The same option, setting or key twice in one block.' },
  'duplicate-resource': { severity: 'error', doc: 'Two resources with one name.' },
  'duplicate-filter': { severity: 'error', doc: 'Two filters with one name.' },
  'duplicate-property': { severity: 'error', doc: 'Two properties with one name in a resource.' },
  'duplicate-operation-name': { severity: 'error', doc: 'Two operations with one name in the file.' },
  'duplicate-block': {
    severity: 'error',
    doc: 'A properties, operations or graphql block given twice in one resource.',
  },
  'secret-in-file': {
    severity: 'warning',
    doc: 'A secret setting (`secret_env`…) whose value is not an environment variable name: the secret itself, written in the file?',
  },
  'unknown-type': { severity: 'error', doc: 'A property type that is neither built in nor a resource.' },
  'unknown-operation-kind': { severity: 'error', doc: 'An operation kind that does not exist.' },
  'unknown-filter-kind': { severity: 'error', doc: 'A filter kind that does not exist.' },
  'unknown-filter': { severity: 'error', doc: 'A reference to a filter that is not declared.' },
  'unknown-resource': { severity: 'error', doc: 'A reference to a resource that is not declared.' },
  'unknown-operation': {
    severity: 'error',
    doc: 'A reference to an operation name or item uriTemplate that does not exist.',
  },
  'unknown-property': { severity: 'error', doc: 'A reference to a property the resource does not declare.' },
  'missing-method': { severity: 'error', doc: 'An HttpOperation without a method.' },
  'default-not-in-enum': {
    severity: 'error',
    doc: "A property's default that is not one of its enum values: every write omitting it would answer 422.",
  },
  'filter-property-type': {
    severity: 'error',
    doc: 'A filter (or named parameter) on a property type its kind has no meaning for (a range on a string, a search on json, an order on a list).',
  },
  'filter-path': {
    severity: 'error',
    doc: 'A filter property path (`author.name`) through a property that is not a to-one relation, through more than two relations, or on an order or match filter (which sort and search the resource’s own fields only).',
  },
  'cursor-filters-missing': {
    severity: 'error',
    doc: 'Cursor pagination without a range and an order filter on a cursor field.',
  },
  'index-filter': {
    severity: 'error',
    doc: 'A filter the search index cannot answer on an `elasticsearch` read (only match, term, order and range), or a match or term filter on an operation that does not read the index.',
  },
  'index-identifier': {
    severity: 'error',
    doc: 'An `elasticsearch` resource without an identifier: the index keys its documents by it.',
  },
  'invalid-requirement': {
    severity: 'error',
    doc: 'A requirements key that is not a placeholder of the route, or a pattern that is not a valid regular expression.',
  },
  'invalid-expression': {
    severity: 'error',
    doc: 'A security expression that does not parse, calls a function with the wrong number of arguments, or gives `matches` a pattern that is not a valid delimited literal.',
  },
  'unknown-function': {
    severity: 'error',
    doc: 'A security expression calls a function that is not is_granted, is_authenticated, is_fully_authenticated or has_role.',
  },
  'unknown-variable': {
    severity: 'error',
    doc: 'A security expression reads a variable that is neither user, roles, object, previous_object, request nor a URI variable of the route.',
  },
  'invalid-scope': {
    severity: 'error',
    doc: 'A `scope` that does not compile to a store query (a voter, arithmetic or `matches` on the item, a comparison between two properties, a path through something that is not a to-one relation or more than two relations deep).',
  },
  'scope-leak': {
    severity: 'warning',
    doc: 'A resource whose `Get` security reads the item, or whose `Get` has a scope of its own, while its `GetCollection` has no scope and no security: the collection lists items that Get refuses.',
  },
  'scope-without-effect': {
    severity: 'warning',
    doc: 'A scope on an operation with a custom `provider` (its code decides what it reads), or a scoped resource whose Mercure updates are declared public (`private: false`).',
  },
  'scope-index-store': {
    severity: 'warning',
    doc: "A scope on an operation that reads the search index holds `!=`, `== null`, `??` or `not`, which the engine is not asked (the store's null rules): its reads go to the store, and one with a full-text (match) filter fails.",
  },
  'object-always-null': {
    severity: 'warning',
    doc: "A Post's `security` reads object or previous_object, which are always null there (nothing is read before a Post).",
  },
  'security-without-authentication': {
    severity: 'warning',
    doc: "A security expression while config has no authentication: every request is anonymous, so is_granted('ROLE_…') always denies.",
  },
  'invalid-uri-template': { severity: 'error', doc: 'A uriTemplate that is not a path with {placeholders}.' },
  'invalid-code-reference': {
    severity: 'error',
    doc: 'A code reference that is not "./file#export" or names a missing file.',
  },
  'identifier-issue': {
    severity: 'error',
    doc: 'More than one identifier, or an identifier of a type that cannot be one.',
  },
  'patch-disabled': {
    severity: 'warning',
    doc: 'A Patch operation while config patch_formats is empty: PATCH will answer 415.',
  },
  'invalid-mutator': { severity: 'error', doc: "A mutator whose target kind is not 'resource' or 'operation'." },
  'unbound-placeholder': {
    severity: 'error',
    doc: 'A route placeholder that is neither the identifier, nor a property, nor the parameterName of a link.',
  },
  'use-format-email': {
    severity: 'hint',
    doc: 'A `pattern` that checks an e-mail address: `format: "email"` does it as Symfony\'s Email constraint (quick fix).',
  },
  'no-effect': {
    severity: 'hint',
    doc: 'An option accepted for compatibility with API Platform that has no effect in apidsl.',
  },
  'unsupported-guard': {
    severity: 'error',
    doc: "An access guard apidsl does not enforce yet (a link's `security`): refused, so nothing is served less guarded than written.",
  },
  'not-supported': {
    severity: 'warning',
    doc: 'An option (or a form of its value) apidsl accepts but does not implement yet: it has no effect.',
  },
  'reserved-path': {
    severity: 'error',
    doc: 'A route under a path the service itself serves (/docs, /contexts, /errors, /.well-known).',
  },
  'shortname-taken': {
    severity: 'error',
    doc: "An operation's shortName that is another resource's: the two would share a @type and a context.",
  },
  'graphql-disabled': {
    severity: 'warning',
    doc: 'A graphql block while config graphql.enabled is not true: the resource has no GraphQL operations, so it has no effect.',
  },
  'graphql-routing-option': {
    severity: 'error',
    doc: 'A routing option (uriTemplate, method, status, requirements, …) on a GraphQL operation, which has no route (it is reached through /graphql).',
  },
  'graphql-only-option': {
    severity: 'warning',
    doc: 'An option of GraphQL operations (resolver, args, extraArgs, nested, paginationType) on a REST operation, where it has no effect: it belongs in the graphql block.',
  },
  'graphql-name-missing': {
    severity: 'error',
    doc: 'A Mutation or DeleteMutation without a name: the name makes its field (`Mutation create` is createBook).',
  },
  'graphql-resolver-missing': {
    severity: 'error',
    doc: 'A named Query or QueryCollection (a custom query) without a resolver: nothing would give its result.',
  },
  'graphql-type-clash': {
    severity: 'error',
    doc: "A resource whose GraphQL type name is one the schema already has: GraphQL's own (`Query`, `Node`, `String`…) or one made for another resource (`BookEdge`, `BookPageInfo`…).",
  },
  'duplicate-mcp-tool': {
    severity: 'error',
    doc: 'Two operations of the file whose MCP tools have one name (docs/mcp.md, "Tools"): give one of them a `name`, or `mcp: false`.',
  },
  'duplicate-graphql-field': {
    severity: 'error',
    doc: 'Two GraphQL operations of the file with one root field (two `book`, `createBook` twice): the schema cannot have both.',
  },
  'unknown-graphql-type': {
    severity: 'error',
    doc: 'An args or extraArgs type naming no type an argument may have (String, Int, Float, Boolean, ID, Iterable).',
  },
  'graphql-less-guarded': {
    severity: 'warning',
    doc: 'A GraphQL operation whose own security leaves out a stage (security, securityPostDenormalize, securityPostValidation) its REST twin guards, or makes it `true`.',
  },
  'graphql-subscription-inert': {
    severity: 'warning',
    doc: 'A Subscription on a resource whose mercure is off: no update would ever reach it.',
  },
} as const satisfies Record<string, { severity: Severity; doc: string }>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  range: Range;
  /** The closest valid name, when the message proposes one (drives "did you mean" quick fixes). */
  suggestion?: string;
}

export function diagnostic(code: DiagnosticCode, range: Range, message: string, suggestion?: string): Diagnostic {
  const d: Diagnostic = { code, severity: DIAGNOSTIC_CODES[code].severity, message, range };
  if (suggestion !== undefined) d.suggestion = suggestion;
  return d;
}
