/**
 * The GraphQL operations a resource declares in its `graphql { … }` block (API Platform's GraphQL operations):
 * what each kind is, whether it takes a name, the set a resource gets without a block, and the scalar types an
 * argument may have. Which options each kind accepts is in options.ts (`placement.graphql`).
 */
import type { GraphQlKindName, OperationKind } from './types.js';

export interface GraphQlKindSpec {
  name: GraphQlKindName;
  /** `required`: API Platform names every mutation (`Mutation create`); `optional`: a name makes a custom one. */
  naming: 'required' | 'optional';
  /** One line, for docs/options.md and hovers. */
  doc: string;
}

export const GRAPHQL_KIND_SPECS: readonly GraphQlKindSpec[] = [
  {
    name: 'Query',
    naming: 'optional',
    doc:
      'Reads one item: the field `book(id: ID!): Book`. Named (`Query byIsbn { resolver: …, args: … }`), a custom query, ' +
      'the field `byIsbnBook`, whose `resolver` finds the item from its `args`.',
  },
  {
    name: 'QueryCollection',
    naming: 'optional',
    doc:
      'Lists items, paginated and filtered: the field `books(first, last, before, after, <filters>)`, a cursor ' +
      'connection (`paginationType: "page"`: `page`, `itemsPerPage`, a page connection). Named, a custom one, the ' +
      'field `cheapBooks`, whose `resolver` gives the items.',
  },
  {
    name: 'Mutation',
    naming: 'required',
    doc:
      'Writes an item: `create` adds one, `update` changes one (`updateBook(input: updateBookInput!)`); another name ' +
      'is a custom mutation (`publishBook`) whose `resolver` receives the item read by `id` and its input.',
  },
  {
    name: 'DeleteMutation',
    naming: 'required',
    doc: 'Deletes an item: `DeleteMutation delete` is the field `deleteBook(input: deleteBookInput!)`.',
  },
  {
    name: 'Subscription',
    naming: 'optional',
    doc:
      'The updates of an item, through Mercure: the field `updateBookSubscribe(input: …)` answers with the item and ' +
      'the `mercureUrl` to subscribe to; needs `mercure` on the resource.',
  },
];

/**
 * The GraphQL operations of a resource without a `graphql` block (API Platform's defaults), while
 * `config graphql.enabled` is true; the Subscription only when the resource's `mercure` is on. Unlike API
 * Platform, each only where the REST operation it mirrors exists (graphQlTwinKinds): no `deleteBook` without a
 * `Delete`.
 */
export const DEFAULT_GRAPHQL_OPERATIONS: readonly { kind: GraphQlKindName; name?: string; mercureOnly?: true }[] = [
  { kind: 'Query' },
  { kind: 'QueryCollection' },
  { kind: 'Mutation', name: 'create' },
  { kind: 'Mutation', name: 'update' },
  { kind: 'DeleteMutation', name: 'delete' },
  { kind: 'Subscription', mercureOnly: true },
];

/** The named types an `args`/`extraArgs` type may reference (the schema's argument types). */
export const GRAPHQL_SCALARS = ['String', 'Int', 'Float', 'Boolean', 'ID', 'Iterable'] as const;

/** The operation options that guard it: its three security stages, and their messages. */
export const GUARD_EXPRESSIONS = ['security', 'securityPostDenormalize', 'securityPostValidation'] as const;
export const GUARD_MESSAGES = [
  'securityMessage',
  'securityPostDenormalizeMessage',
  'securityPostValidationMessage',
] as const;

/**
 * The REST operation kinds a GraphQL operation mirrors, best first (docs/graphql.md, "Secure by default"): its
 * twin, the first of these the resource has. A Query and a Subscription mirror `Get`, a QueryCollection
 * `GetCollection`, `create` (and a Mutation whose `args` have no `id`) `Post`, `update` and other Mutations
 * `Patch`, else `Put`, a DeleteMutation `Delete`. A GraphQL operation without security of its own takes its twin's.
 */
export function graphQlTwinKinds(kind: GraphQlKindName, name: string | undefined, creates: boolean): OperationKind[] {
  if (kind === 'Query' || kind === 'Subscription') return ['Get'];
  if (kind === 'QueryCollection') return ['GetCollection'];
  if (kind === 'DeleteMutation') return ['Delete'];
  return name === 'create' || creates ? ['Post'] : ['Patch', 'Put'];
}
