/**
 * The names a generated client gives (docs/client.md, "Names"): a namespace per resource (`books` for Book), a
 * function per operation (`list`, `get`, `create`, `replace`, `update`, `delete`, `query` by kind, or the
 * operation's own name when the file gives one), and type names (`Book`, `BookInput`, `BookRead` for groups).
 */
import pluralize from 'pluralize';
import { defaultOperationName } from '../../grammar/naming.js';
import type { OperationMetadata, ResourceMetadata } from '../metadata/types.js';

const CALL_BY_KIND: Record<string, string> = {
  GetCollection: 'list',
  Get: 'get',
  Post: 'create',
  Put: 'replace',
  Patch: 'update',
  Delete: 'delete',
  Query: 'query',
};

/** Names a namespace of calls may not take: `iterate` and `subscribe` are the client's own. */
const RESERVED = new Set(['iterate', 'subscribe']);

const words = (text: string): string[] => text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/** `by-isbn` → `byIsbn`, `_api_/books_get` → `apiBooksGet`; a leading digit gets `_`. */
export function camelName(text: string): string {
  const name = lowerFirst(words(text).map(upperFirst).join(''));
  return /^[0-9]/.test(name) || name === '' ? `_${name}` : name;
}

/** `Book` → `Book`, `("Book", "Input", "write")` → `BookInputWrite`. */
export const typeName = (...parts: string[]): string => upperFirst(camelName(parts.join(' ')));

/**
 * The type of a resource under serialization groups: `("Book", ["book:read", "list"])` → `BookReadList` (a group
 * named after the resource loses that prefix), `("Book")` → `Book`.
 */
export function groupsTypeName(resource: string, groups: readonly string[] = [], ...middle: string[]): string {
  const prefix = new RegExp(`^${resource}[^A-Za-z0-9]+`, 'i');
  return typeName(resource, ...middle, ...groups.map((g) => g.replace(prefix, '')));
}

/** The namespace of a resource's calls: its plural short name, camelCase (`BookReview` → `bookReviews`). */
export const namespaceOf = (resource: ResourceMetadata): string => camelName(pluralize(resource.shortName));

/** Whether the file named the operation (its name is not the default `_api_<path>_<method>`). */
const named = (op: OperationMetadata): boolean =>
  op.name !== defaultOperationName(op.path, op.method.toLowerCase(), op.kind);

/**
 * The function of each routed operation of a resource: its own name when the file gives one, else its kind's
 * (the first of a kind; another of the same kind is named after its method and path).
 */
export function callNames(resource: ResourceMetadata): Map<OperationMetadata, string> {
  const names = new Map<OperationMetadata, string>();
  const taken = new Set(RESERVED);
  const take = (op: OperationMetadata, name: string) => {
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = `${name}${n}`;
    taken.add(unique);
    names.set(op, unique);
  };
  const routed = resource.operations.filter((op) => !op.hidden);
  for (const op of routed.filter(named)) take(op, camelName(op.name));
  for (const op of routed.filter((o) => !named(o))) {
    const byKind = CALL_BY_KIND[op.kind];
    take(op, byKind && !taken.has(byKind) ? byKind : camelName(`${op.method.toLowerCase()} ${op.path}`));
  }
  return new Map(routed.filter((op) => names.has(op)).map((op) => [op, names.get(op)!]));
}
