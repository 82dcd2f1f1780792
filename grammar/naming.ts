/**
 * Names derived from declarations: route path segments, default routes, operation names and GraphQL fields.
 * Shared by the checker (which must know operation names and routes) and the server.
 */
import pluralize from 'pluralize';
import type { OperationKind } from './catalogue/types.js';

export type PathSegmentGenerator = 'underscore' | 'dash';

/** `BookReview` → `book_reviews` (underscore) or `book-reviews` (dash), as API Platform names paths. */
export function pathSegment(resourceName: string, generator: PathSegmentGenerator = 'underscore'): string {
  const sep = generator === 'dash' ? '-' : '_';
  const words = resourceName
    .replace(/([a-z0-9])([A-Z])/g, `$1${sep}$2`)
    .replace(/([A-Z]+)([A-Z][a-z])/g, `$1${sep}$2`)
    .toLowerCase();
  return pluralize(words);
}

/** Joins a route prefix and a path: (`/geo`, `/places`) → `/geo/places`. */
export function joinPath(prefix: string | undefined, path: string): string {
  if (!prefix) return path;
  const p = prefix.startsWith('/') ? prefix : `/${prefix}`;
  return `${p.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

const placeholdersOf = new Map<string, string[]>();

/** The placeholders of a route template: `/places/{placeId}/weather` → ['placeId']. */
export function placeholders(template: string): string[] {
  // Remembered: the checker asks for every operation's route on each analysis (the language server's keystrokes).
  let names = placeholdersOf.get(template);
  if (!names) {
    if (placeholdersOf.size >= 10_000) placeholdersOf.clear();
    names = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]);
    placeholdersOf.set(template, names);
  }
  return [...names];
}

/**
 * The name of an operation declared without one (docs/behaviour.md, "Operations and routes"): `_api_<path>_<method>` in
 * lower case, with `_collection` appended for GetCollection.
 */
export function defaultOperationName(path: string, method: string, kind: OperationKind | string): string {
  return `_api_${path}_${method}${kind === 'GetCollection' ? '_collection' : ''}`.toLowerCase();
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * The root field of a GraphQL operation, as API Platform names it: `book` (Query), `books` (QueryCollection),
 * `createBook` (a Mutation or DeleteMutation named `create`), `updateBookSubscribe` (Subscription; a named one
 * `<name>BookSubscribe`), `byIsbnBook` (a named Query), `cheapBooks` (a named QueryCollection). Undefined for a
 * Mutation or DeleteMutation without a name (the checker reports it) and for an unknown kind.
 */
export function graphQlFieldName(kind: string, name: string | undefined, shortName: string): string | undefined {
  switch (kind) {
    case 'Query':
      return lowerFirst(`${name ?? ''}${shortName}`);
    case 'QueryCollection':
      return lowerFirst(`${name ?? ''}${pluralize(shortName)}`);
    case 'Mutation':
    case 'DeleteMutation':
      return name === undefined ? undefined : lowerFirst(`${name}${shortName}`);
    case 'Subscription':
      return lowerFirst(`${name ?? 'update'}${shortName}Subscribe`);
    default:
      return undefined;
  }
}

/** `GetCollection` → `get_collection`, `BookReview` → `book_review`, `by-isbn` → `by_isbn`. */
const snakeCase = (text: string): string =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();

/**
 * The MCP tool of an operation (docs/mcp.md, "Tools"), as API Platform names it: `<kind>_<shortName>` in snake case
 * (`get_collection_book`, `patch_book`), or the operation's own name in snake case when it has one (`named`).
 */
export function mcpToolName(kind: string, name: string, named: boolean, shortName: string): string {
  return named ? snakeCase(name) : `${snakeCase(kind)}_${snakeCase(shortName)}`;
}
