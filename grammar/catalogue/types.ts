/**
 * Shapes of the option catalogue: the one table that says which options, settings, property
 * types, constraints and filter kinds exist, what values they take, where they are allowed,
 * what they default to and what they mean. The checker, the runtime defaults, the language
 * server and docs/options.md are all driven by it.
 */

export const OPERATION_KINDS = [
  'GetCollection',
  'Post',
  'Get',
  'Put',
  'Patch',
  'Delete',
  'Query',
  'HttpOperation',
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** The kinds of GraphQL operations, written in a resource's `graphql { … }` block (graphql.ts says what each is). */
export const GRAPHQL_KINDS = ['Query', 'QueryCollection', 'Mutation', 'DeleteMutation', 'Subscription'] as const;
export type GraphQlKindName = (typeof GRAPHQL_KINDS)[number];

/** Kinds whose route is the collection path (`/books`). */
export const COLLECTION_KINDS: readonly OperationKind[] = ['GetCollection', 'Post', 'Query'];
/** Kinds that answer a collection document (and so are paginated and filtered). */
export const LISTING_KINDS: readonly OperationKind[] = ['GetCollection', 'Query'];
/** Kinds whose default read the search index takes over with `elasticsearch: true` (docs/elasticsearch.md). */
export const INDEX_READ_KINDS: readonly OperationKind[] = ['Get', 'GetCollection'];
/** Kinds whose route is the item path (`/books/{id}`). */
export const ITEM_KINDS: readonly OperationKind[] = ['Get', 'Put', 'Patch', 'Delete'];

/** The HTTP method implied by each kind (HttpOperation requires `method`). */
export const KIND_METHOD: Record<OperationKind, string | undefined> = {
  GetCollection: 'GET',
  Post: 'POST',
  Get: 'GET',
  Put: 'PUT',
  Patch: 'PATCH',
  Delete: 'DELETE',
  Query: 'QUERY',
  HttpOperation: undefined,
};

/** Strings of a fixed shape (their check and description: text-formats.ts). */
export type TextFormat = 'interval' | 'ipRange' | 'graphQlType';

/** What a value must look like. */
export type ValueType =
  /** A string; with `format`, one written as that format says (text-formats.ts: an interval, an IP range). */
  | { kind: 'string'; format?: TextFormat }
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'number'; min?: number; max?: number }
  | { kind: 'bool' }
  /** A word from a fixed set; a bare word and the quoted string are equivalent. */
  | { kind: 'enum'; values: readonly string[]; caseInsensitive?: boolean }
  /** A list whose items all have type `of`. */
  | { kind: 'list'; of: ValueType }
  /** An object with free keys whose values all have type `of`. */
  | { kind: 'map'; of: ValueType }
  /** The language's `array`: like a PHP array, a list or an object, any content. */
  | { kind: 'phpArray' }
  /**
   * An object with known keys. `emptyList`: PHP's `[]`, the empty array, is taken as the empty object too (as API
   * Platform reads a serializer context written `[]`).
   */
  | { kind: 'record'; fields: Record<string, FieldSpec>; open?: boolean; emptyList?: boolean }
  /** Exactly `false` (as in `input: false`). */
  | { kind: 'false' }
  | { kind: 'oneOf'; of: readonly ValueType[] }
  /** A security expression (Symfony ExpressionLanguage syntax), parsed by the checker. */
  | { kind: 'expression' }
  /** `"<path relative to the .api file>#<export>"`, or a built-in name. */
  | { kind: 'codeRef'; builtins?: readonly string[] }
  /** The name of a declared filter. */
  | { kind: 'filterRef' }
  /** The name of a declared resource. */
  | { kind: 'resourceRef' }
  /** An HTTP method token. */
  | { kind: 'httpMethod' }
  /** A route template such as `/books/{id}`. */
  | { kind: 'uriTemplate' }
  | { kind: 'any' };

/**
 * The value a `ValueType` admits, as a TypeScript type (after `A.toPlain`): what the runtime reads
 * from an option the checker accepted. A case-insensitive enum is any string (its case is kept).
 */
export type ValueOf<T extends ValueType> = T extends { kind: 'int' | 'number' }
  ? number
  : T extends { kind: 'bool' }
    ? boolean
    : T extends { kind: 'enum'; caseInsensitive: true }
      ? string
      : T extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : T extends { kind: 'list'; of: infer Of extends ValueType }
          ? ValueOf<Of>[]
          : T extends { kind: 'map'; of: infer Of extends ValueType }
            ? Record<string, ValueOf<Of>>
            : T extends { kind: 'phpArray' }
              ? PhpArray
              : T extends { kind: 'record'; fields: infer F extends Record<string, FieldSpec> }
                ? | (RecordOf<F> & (T extends { open: true } ? Record<string, unknown> : unknown))
                  | (T extends { emptyList: true } ? never[] : never)
                : T extends { kind: 'false' }
                  ? false
                  : T extends { kind: 'oneOf'; of: readonly (infer Of extends ValueType)[] }
                    ? ValueOf<Of>
                    : T extends { kind: 'any' }
                      ? unknown
                      : string;

/** The language's `array`: a list or an object (a PHP array), any content. */
export type PhpArray = unknown[] | Record<string, unknown>;

/** A record's value: its required fields present, the others optional (one object type, for readable hovers). */
type RecordOf<F extends Record<string, FieldSpec>> = Flat<
  {
    -readonly [K in keyof F as F[K] extends { required: true } ? K : never]: ValueOf<F[K]['type']>;
  } & {
    -readonly [K in keyof F as F[K] extends { required: true } ? never : K]?: ValueOf<F[K]['type']>;
  }
>;
type Flat<T> = { [K in keyof T]: T[K] };

export interface FieldSpec {
  type: ValueType;
  required?: boolean;
  doc: string;
  /**
   * A field apidsl does not implement yet: the checker warns (`not-supported`), or, for a field that would
   * guard access (`refuse`), reports an error so that nothing is served less guarded than written.
   */
  unsupported?: { refuse?: boolean };
}

/** Where an option may be written. */
export interface Placement {
  /** On the resource, as the default for its operations (or as a resource-only setting). */
  resource: boolean;
  /** Operation kinds on which the option is allowed; others get an error. */
  operations: readonly OperationKind[];
  /**
   * Operation kinds (a subset of `operations`) where the option is accepted but does nothing;
   * the checker warns there.
   */
  ineffectiveOn?: readonly OperationKind[];
  /**
   * GraphQL operation kinds (in a `graphql` block) on which the option is allowed; absent: none (a routing
   * option there is an error, `graphql-routing-option`). An option with no REST kind but GraphQL ones belongs
   * to the `graphql` block: on a REST operation the checker warns (`graphql-only-option`).
   */
  graphql?: readonly GraphQlKindName[];
}

export type OptionGroup = 'operation' | 'routing' | 'resource';

/** An option of a resource or an operation (camelCase, as in API Platform's attributes). */
export interface OptionSpec {
  name: string;
  group: OptionGroup;
  type: ValueType;
  placement: Placement;
  /** The value used when the option is unset at every level. Undefined: no default (null). */
  default?: unknown;
  /** The snake_case name under `config { defaults { … } }`, when the option has a global default. */
  globalName?: string;
  /**
   * An option accepted without a run-time effect in apidsl (every other option has one, shown by a test):
   * `compatibility` when it only means something to API Platform's PHP stack (the checker hints
   * "accepted for compatibility; no effect in apidsl"), `unsupported` when apidsl does not implement it
   * yet (the checker warns "not supported yet"). `on: 'operation'`: only when written on an operation.
   */
  effect?: { kind: 'compatibility' | 'unsupported'; on?: 'operation' };
  /** One line, for docs/options.md and hovers. */
  doc: string;
  /** Accepted but not supported: the checker warns (for values of these AST kinds, or these number values, only, when given). */
  unsupported?: { message: string; valueKinds?: readonly string[]; values?: readonly number[] };
}

/** A global setting in `config { … }`, by its dotted path (`collection.pagination.page_parameter_name`). */
export interface SettingSpec {
  path: string;
  type: ValueType;
  default?: unknown;
  doc: string;
}

export interface PropertyTypeSpec {
  name: string;
  /** JSON Schema type of the stored value. */
  jsonType: 'integer' | 'number' | 'string' | 'boolean' | 'object' | 'any';
  /** JSON Schema format, if any. */
  format?: string;
  /** May this type be the identifier? */
  identifier: boolean;
  doc: string;
  /**
   * Names other languages give this type (`integer`, `boolean`): never accepted, but the checker suggests
   * this type for them ("did you mean 'int'?", with the fix). Compared without case.
   */
  writtenElsewhere?: readonly string[];
}

export interface ConstraintSpec {
  name: string;
  type: ValueType;
  /** Property types the constraint applies to; undefined means every type. */
  appliesTo?: readonly string[];
  /**
   * A validation constraint: it may also be written `{ value: …, groups: […], message: "…" }` (validation
   * groups and a custom violation message); the short form means the group `Default`.
   */
  validation?: boolean;
  doc: string;
}

export interface FilterKindSpec {
  name: string;
  doc: string;
  /**
   * The per-property setting a map-form `properties` may give (search strategy, order
   * direction, date null strategy); undefined when `properties` takes names only.
   */
  perProperty?: { type: ValueType; default: string; doc: string };
  /** Fields of the filter block besides `properties` (which every kind has). */
  fields: Record<string, FieldSpec>;
  /**
   * The property types the kind has a meaning for (the checker refuses a filter on any other): base
   * types, `relation` for a relation to any resource, and whether lists (`T[]`) of those are accepted.
   */
  propertyTypes: { types: readonly FilterPropertyType[]; lists: boolean; doc: string };
}

/** A property's base type as the filter kinds name it: a relation to any resource is `relation`. */
export type FilterPropertyType = 'int' | 'number' | 'string' | 'bool' | 'datetime' | 'date' | 'json' | 'relation';
