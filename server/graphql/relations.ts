/**
 * Relation fields (docs/graphql.md, "Types"): a to-one relation resolves its IRI to the related item through the
 * related resource's Query operation (its security and property security apply), a to-many relation pages its IRIs
 * as a connection. Every item is read through the request's batched runtime (request-context.ts): the related items of a
 * page cost one store query per relation field and level.
 */
import { iriResolver } from '../protocol/iri.js';
import { routeIdentifier } from '../protocol/identifier.js';
import { plainItemValue } from '../pipeline/execute.js';
import type { GraphQlOperationMetadata } from '../metadata/types.js';
import type { GraphQlContext } from './request-context.js';
import { connectionValue, pageInMemory, paginationOf } from './collections.js';
import { runOrNull } from './run.js';

/** The item an IRI names, as `query` shows it to this user; null when there is none. */
export async function relationItem(
  ctx: GraphQlContext,
  query: GraphQlOperationMetadata,
  iri: unknown,
): Promise<unknown> {
  if (typeof iri === 'object' && iri !== null) return iri; // already an object (embedded)
  if (typeof iri !== 'string') return null;
  const api = ctx.runtime.api;
  const match = iriResolver(api).match(iri);
  const op = query.operation;
  if (!match || match.resource !== op.resource) return null;
  const plain = plainItemValue(op, api);
  if (!plain) return runOrNull(ctx, op, { uriVariables: match.variables });
  // Nothing but a read and its showing: the batched read (one store query for the page's relations) and the value.
  const id = routeIdentifier(op.resource, match.variables[op.resource.identifier!.name] ?? '');
  const item = id === undefined ? null : await ctx.batched.collectionOf(op.resource).get(id);
  return item && plain(api, item, ctx.origin);
}

/**
 * The related items of a to-many relation, paged as the related resource's `collection` query pages (its page size,
 * maximum and client page size), each read by its item `query`.
 */
export async function relationConnection(
  ctx: GraphQlContext,
  collection: GraphQlOperationMetadata,
  query: GraphQlOperationMetadata,
  iris: unknown,
  args: Record<string, unknown>,
): Promise<unknown> {
  const all = Array.isArray(iris) ? iris : [];
  const op = collection.operation;
  const settings = ctx.runtime.api.settings;
  const { members: slice, page } = pageInMemory(op, settings, args, all);
  const members = (await Promise.all(slice.map((iri) => relationItem(ctx, query, iri)))).filter((m) => m !== null);
  return connectionValue(paginationOf(op, settings), members, { ...page, items: members });
}
