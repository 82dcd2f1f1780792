/**
 * The abstract syntax tree of a `.api` file.
 *
 * Every node carries the source range it was read from as UTF-16 offsets into the text
 * (`end` exclusive). Line/column positions, for the CLI or LSP, are derived from these
 * offsets by `LineIndex` and never stored. Nodes built while the parser recovered from an
 * error may lack parts (a missing value, a missing name); such parts are `undefined`, and
 * their ranges still point at real text.
 */

export interface Range {
  start: number;
  end: number;
}

export interface Name {
  text: string;
  range: Range;
}

export type Value = StringValue | NumberValue | BoolValue | NullValue | IdentValue | ArrayValue | ObjectValue;

export interface StringValue {
  kind: 'string';
  value: string;
  range: Range;
}

export interface NumberValue {
  kind: 'number';
  value: number;
  /** The literal as written, so the formatter can keep `1.50`. */
  raw: string;
  range: Range;
}

export interface BoolValue {
  kind: 'bool';
  value: boolean;
  range: Range;
}

export interface NullValue {
  kind: 'null';
  range: Range;
}

/** A bare word where a name is expected: `bookOrder`, `DESC`, `page`. */
export interface IdentValue {
  kind: 'ident';
  name: string;
  range: Range;
}

export interface ArrayValue {
  kind: 'array';
  items: Value[];
  range: Range;
}

export interface ObjectValue {
  kind: 'object';
  entries: Entry[];
  range: Range;
}

/** `key: value`, or `key { … }` (then `block` is true and `value` is an object). */
export interface Entry {
  key: Name;
  /** Undefined when the parser recovered from a missing value. */
  value: Value | undefined;
  block: boolean;
  range: Range;
}

export interface ApiDecl {
  kind: 'api';
  title: StringValue | undefined;
  body: ObjectValue | undefined;
  range: Range;
}

export interface ConfigDecl {
  kind: 'config';
  body: ObjectValue;
  range: Range;
}

export interface FilterDecl {
  kind: 'filter';
  name: Name | undefined;
  filterKind: Name | undefined;
  body: ObjectValue | undefined;
  range: Range;
}

export interface TypeRef {
  name: string;
  array: boolean;
  range: Range;
  /** Range of the base name alone (without `[]`). */
  nameRange: Range;
}

export interface PropertyDecl {
  name: Name;
  type: TypeRef | undefined;
  /** A list of values written after the type (`enum ["a", "b"]`): a mistake the parser reports (enum-list). */
  values?: ArrayValue;
  constraints: ObjectValue | undefined;
  range: Range;
}

export interface PropertiesBlock {
  properties: PropertyDecl[];
  range: Range;
}

export interface OperationDecl {
  /** The operation kind as written (`Get`, `GetCollection`, …, or an unknown word). */
  opKind: Name;
  name: Name | undefined;
  body: ObjectValue | undefined;
  range: Range;
}

/** An `operations { … }` block, or a `graphql { … }` block (GraphQL operations, declared in the same shape). */
export interface OperationsBlock {
  operations: OperationDecl[];
  range: Range;
}

export interface ResourceDecl {
  kind: 'resource';
  name: Name | undefined;
  /** Resource-level options and settings, in source order. */
  options: Entry[];
  /** Every `properties` block (more than one is a duplicate the checker reports). */
  propertiesBlocks: PropertiesBlock[];
  operationsBlocks: OperationsBlock[];
  /** Every `graphql { … }` block: its GraphQL operations (`Query`, `Mutation create { … }`, …). */
  graphqlBlocks: OperationsBlock[];
  range: Range;
}

export interface MutatorDecl {
  kind: 'mutator';
  /** `resource` or `operation` as written; anything else is reported by the checker. */
  targetKind: Name | undefined;
  /** A resource name, or an operation name (a string or a bare word). */
  target: Name | undefined;
  ref: StringValue | undefined;
  range: Range;
}

export type Declaration = ApiDecl | ConfigDecl | FilterDecl | ResourceDecl | MutatorDecl;

export interface Comment {
  text: string;
  range: Range;
  block: boolean;
}

export interface Document {
  declarations: Declaration[];
  comments: Comment[];
  range: Range;
}

export const resources = (doc: Document): ResourceDecl[] =>
  doc.declarations.filter((d): d is ResourceDecl => d.kind === 'resource');

export const filters = (doc: Document): FilterDecl[] =>
  doc.declarations.filter((d): d is FilterDecl => d.kind === 'filter');

export const configs = (doc: Document): ConfigDecl[] =>
  doc.declarations.filter((d): d is ConfigDecl => d.kind === 'config');

export const mutators = (doc: Document): MutatorDecl[] =>
  doc.declarations.filter((d): d is MutatorDecl => d.kind === 'mutator');

/** Looks up an entry of an object value by key (the first one when duplicated). */
export function entryOf(obj: ObjectValue | undefined, key: string): Entry | undefined {
  return obj?.entries.find((e) => e.key.text === key);
}

/** Converts a parsed value to plain data (identifiers become strings). */
export function toPlain(value: Value | undefined): unknown {
  if (!value) return undefined;
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'number':
      return value.value;
    case 'bool':
      return value.value;
    case 'null':
      return null;
    case 'ident':
      return value.name;
    case 'array':
      return value.items.map(toPlain);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const e of value.entries) if (!(e.key.text in out)) out[e.key.text] = toPlain(e.value);
      return out;
    }
  }
}

/**
 * The scalar an enum list written after a type means (`enum [1, 2]` → int, `enum ["a"]` → string, `number [1.5]`
 * → number): there is no enum type, an enumeration is a scalar with the `enum` constraint.
 */
export function enumScalarOf(typeName: string, values: ArrayValue): string {
  if (typeName !== 'enum') return typeName;
  const integers =
    values.items.length > 0 && values.items.every((v) => v.kind === 'number' && Number.isInteger(v.value));
  return integers ? 'int' : 'string';
}
