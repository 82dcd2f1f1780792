/**
 * Relation fields (docs/graphql.md, "Types"): a to-one relation resolves its IRI to the related item through the
 * related resource's Query operation (its security and property security apply), a to-many relation pages its IRIs
 * as a connection. Every item is read through the request's batched runtime (context.ts): the related items of a
 * page cost one store query per relation field and level.
 */
import { iriResolver } from '../protocol/iri.js';
import type { GraphQlOperationMetadata } from '../metadata/types.js';
import type { GraphQlContext } from './context.js';
import { connectionValue, cursorWindow, paginationOf } from './collections.js';
import { runOrNull } from './run.js';

/** The item an IRI names, as `query` shows it to this user; null when there is none. */
export async function relationItem(
  ctx: GraphQlContext,
  query: GraphQlOperationMetadata,
  iri: unknown,
): Promise<unknown> {
  if (typeof iri === 'object' && iri !== null) return iri; // already an object (embedded)
  if (typeof iri !== 'string') return null;
  const match = iriResolver(ctx.runtime.api).match(iri);
  if (!match || match.resource !== query.operation.resource) return null;
  return runOrNull(ctx, query.operation, { uriVariables: match.variables });
}

/** The related items of a to-many relation, paged as the related resource's `collection` query pages, each read by its item `query`. */
export async function relationConnection(
  ctx: GraphQlContext,
  collection: GraphQlOperationMetadata,
  query: GraphQlOperationMetadata,
  iris: unknown,
  args: Record<string, unknown>,
): Promise<unknown> {
  const all = Array.isArray(iris) ? iris : [];
  const settings = ctx.runtime.api.settings;
  const pagination = paginationOf(collection.operation, settings);
  const size = Number(settings.defaults.paginationItemsPerPage ?? 30);
  let offset = 0;
  let limit = all.length;
  if (pagination === 'cursor') {
    const window = cursorWindow(args);
    limit = window.limit ?? size;
    offset = window.fromEnd ? Math.max(0, all.length - limit) : (window.offset ?? 0);
  } else if (pagination === 'page') {
    limit = Number(args.itemsPerPage ?? size);
    offset = (Math.max(1, Number(args.page ?? 1)) - 1) * limit;
  }
  const slice = all.slice(offset, offset + limit);
  const members = (await Promise.all(slice.map((iri) => relationItem(ctx, query, iri)))).filter((m) => m !== null);
  return connectionValue(pagination, members, {
    items: members,
    total: all.length,
    request: {
      enabled: true,
      partial: false,
      page: limit > 0 ? Math.floor(offset / limit) + 1 : 1,
      itemsPerPage: limit,
      offset,
    },
  });
}
