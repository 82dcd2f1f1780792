/**
 * Collections in GraphQL (docs/graphql.md, "Pagination"), API Platform's three shapes: a cursor connection
 * (`first`/`last`/`before`/`after`; `edges { node cursor }`, `pageInfo`, `totalCount`; a cursor is the item's
 * offset in base64), a page connection (`page`, `itemsPerPage` where the client may choose; `collection`,
 * `paginationInfo`), and a plain list when pagination is off. Page size, maximum and partial mode are the REST
 * options' (pages/pagination.ts takes the window).
 */
import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLOutputType,
} from 'graphql';
import { optionValue, writtenOption } from '../metadata/options.js';
import type { OperationMetadata, Settings } from '../metadata/types.js';
import { lastPage, pageRequest } from '../pipeline/pages/pagination.js';
import type { Page, PageWindow } from '../pipeline/state.js';
import { argumentError } from './run.js';

export type Pagination = 'cursor' | 'page' | 'none';

/** How an operation's collections are paginated in GraphQL: cursor unless `paginationType: "page"`. */
export function paginationOf(op: OperationMetadata, settings: Settings): Pagination {
  if (optionValue(op, settings, 'paginationEnabled') === false) return 'none';
  return writtenOption(op, 'paginationType') === 'page' ? 'page' : 'cursor';
}

/** The connection (or list) type of items of `itemType`. */
export function connectionType(
  itemType: GraphQLObjectType,
  pagination: Pagination,
  named: (name: string, make: () => GraphQLObjectType) => GraphQLObjectType,
): GraphQLOutputType {
  const name = itemType.name;
  if (pagination === 'none') return new GraphQLList(itemType);
  if (pagination === 'page') {
    const info = named(
      `${name}PaginationInfo`,
      () =>
        new GraphQLObjectType({
          name: `${name}PaginationInfo`,
          description: 'Information about the pagination.',
          fields: {
            itemsPerPage: { type: new GraphQLNonNull(GraphQLInt) },
            lastPage: { type: new GraphQLNonNull(GraphQLInt) },
            totalCount: { type: new GraphQLNonNull(GraphQLInt) },
            currentPage: { type: new GraphQLNonNull(GraphQLInt) },
            hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
          },
        }),
    );
    return named(
      `${name}PageConnection`,
      () =>
        new GraphQLObjectType({
          name: `${name}PageConnection`,
          description: `Page connection for ${name}.`,
          fields: {
            collection: { type: new GraphQLList(itemType) },
            paginationInfo: { type: new GraphQLNonNull(info) },
          },
        }),
    );
  }
  const edge = named(
    `${name}Edge`,
    () =>
      new GraphQLObjectType({
        name: `${name}Edge`,
        description: `Edge of ${name}.`,
        fields: { node: { type: itemType }, cursor: { type: new GraphQLNonNull(GraphQLString) } },
      }),
  );
  const pageInfo = named(
    `${name}PageInfo`,
    () =>
      new GraphQLObjectType({
        name: `${name}PageInfo`,
        description: 'Information about the current page.',
        fields: {
          endCursor: { type: GraphQLString },
          startCursor: { type: GraphQLString },
          hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
          hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
        },
      }),
  );
  return named(
    `${name}CursorConnection`,
    () =>
      new GraphQLObjectType({
        name: `${name}CursorConnection`,
        description: `Cursor connection for ${name}.`,
        fields: {
          edges: { type: new GraphQLList(edge) },
          pageInfo: { type: new GraphQLNonNull(pageInfo) },
          totalCount: { type: new GraphQLNonNull(GraphQLInt) },
        },
      }),
  );
}

/** The pagination arguments of a collection field, each telling the limits the page its values ask for. */
export function paginationArgs(op: OperationMetadata, settings: Settings): GraphQLFieldConfigArgumentMap {
  const extensions = { [PAGE_SIZE]: (args: Record<string, unknown>) => servedPageSize(op, settings, args) };
  return Object.fromEntries(
    Object.entries(paginationArgConfigs(op, settings)).map(([name, arg]) => [name, { ...arg, extensions }]),
  );
}

function paginationArgConfigs(op: OperationMetadata, settings: Settings): GraphQLFieldConfigArgumentMap {
  const pagination = paginationOf(op, settings);
  if (pagination === 'cursor')
    return {
      first: { type: GraphQLInt, description: 'Returns the first n elements from the list.' },
      last: { type: GraphQLInt, description: 'Returns the last n elements from the list.' },
      before: {
        type: GraphQLString,
        description: 'Returns the elements in the list that come before the specified cursor.',
      },
      after: {
        type: GraphQLString,
        description: 'Returns the elements in the list that come after the specified cursor.',
      },
    };
  if (pagination === 'page') {
    const args: GraphQLFieldConfigArgumentMap = {
      page: { type: GraphQLInt, description: 'Returns the current page.' },
    };
    if (optionValue(op, settings, 'paginationClientItemsPerPage') === true)
      args.itemsPerPage = { type: GraphQLInt, description: 'Returns the number of items per page.' };
    return args;
  }
  return {};
}

/**
 * The extension of a pagination argument holding `(args) => items`: how many items one page of the field holds
 * for these arguments, as the operation's page size, maximum and client page size make it (server/graphql/query-limits.ts
 * counts the items a query asks for with it).
 */
export const PAGE_SIZE = 'apidslPageSize';

/** The items a page of `op` holds for a connection's arguments; 0 for arguments the resolver will refuse. */
function servedPageSize(op: OperationMetadata, settings: Settings, args: Record<string, unknown>): number {
  try {
    const window = paginationOf(op, settings) === 'cursor' ? cursorWindow(args) : undefined;
    return pageRequest(op, settings, Object.fromEntries(pageParameters(args, settings)), window).itemsPerPage;
  } catch {
    return 0;
  }
}

export const encodeCursor = (offset: number): string => btoa(String(offset));

function decodeCursor(cursor: string): number {
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    throw argumentError(`Cursor ${cursor} is invalid`);
  }
  if (!/^(0|[1-9][0-9]{0,14})$/.test(text)) throw argumentError(`Cursor ${cursor} is invalid`);
  return Number(text);
}

const count = (value: unknown, name: string): number | undefined => {
  if (value === undefined || value === null) return undefined;
  const n = Number(value);
  if (n < 0) throw argumentError(`${name} is not allowed to be negative`);
  return n;
};

/** The window of a cursor connection's arguments (API Platform's offsets). */
export function cursorWindow(args: Record<string, unknown>): PageWindow {
  const first = count(args.first, 'first');
  const last = count(args.last, 'last');
  const after = typeof args.after === 'string' ? decodeCursor(args.after) : undefined;
  const before = typeof args.before === 'string' ? decodeCursor(args.before) : undefined;
  if (before !== undefined) {
    const size = last ?? first;
    const offset = size === undefined ? 0 : Math.max(0, before - size);
    const start = after !== undefined ? Math.max(offset, after + 1) : offset;
    return { offset: start, limit: Math.max(0, before - start) };
  }
  const offset = after !== undefined ? after + 1 : 0;
  if (last !== undefined && first === undefined && after === undefined) return { limit: last, fromEnd: true };
  const limit = first ?? last;
  return { offset, ...(limit !== undefined ? { limit } : {}) };
}

/** The page query parameters of a page connection's arguments. */
export function pageParameters(args: Record<string, unknown>, settings: Settings): [string, string][] {
  const out: [string, string][] = [];
  if (args.page !== undefined && args.page !== null) out.push([settings.pageParameter, String(args.page)]);
  if (args.itemsPerPage !== undefined && args.itemsPerPage !== null)
    out.push([settings.itemsPerPageParameter, String(args.itemsPerPage)]);
  return out;
}

/**
 * A whole collection held in memory (a to-many relation's IRIs, a custom resolver's plain array), paged by a
 * connection's arguments as `op` pages its collection: its page size, maximum and client page size.
 */
export function pageInMemory<T>(
  op: OperationMetadata,
  settings: Settings,
  args: Record<string, unknown>,
  all: T[],
): { members: T[]; page: Page } {
  const pagination = paginationOf(op, settings);
  const window = pagination === 'cursor' ? cursorWindow(args) : undefined;
  const request =
    pagination === 'none'
      ? { enabled: false, partial: false, page: 1, itemsPerPage: all.length }
      : pageRequest(op, settings, Object.fromEntries(pageParameters(args, settings)), window);
  const limit = request.itemsPerPage;
  let offset = 0;
  if (window?.fromEnd) offset = Math.max(0, all.length - limit);
  else if (pagination !== 'none') offset = request.offset ?? (request.page - 1) * limit;
  const members = all.slice(offset, offset + limit);
  return { members, page: { items: members, total: all.length, request: { ...request, partial: false, offset } } };
}

/** An edge of a cursor connection: its cursor is encoded when a query reads it. */
class Edge {
  constructor(
    readonly node: unknown,
    private readonly offset: number,
  ) {}

  get cursor(): string {
    return encodeCursor(this.offset);
  }
}

/** A collection's values in its GraphQL shape. */
export function connectionValue(pagination: Pagination, members: unknown[], page: Page | undefined): unknown {
  if (pagination === 'none' || !page) return members;
  const request = page.request;
  if (pagination === 'page') {
    const total = page.total ?? members.length;
    const last = lastPage(total, request.itemsPerPage);
    return {
      collection: members,
      paginationInfo: {
        itemsPerPage: request.itemsPerPage,
        lastPage: last,
        totalCount: total,
        currentPage: request.page,
        hasNextPage: page.total === undefined ? Boolean(page.hasNext) : request.page < last,
      },
    };
  }
  const offset = request.offset ?? (request.page - 1) * request.itemsPerPage;
  const edges = members.map((node, i) => new Edge(node, offset + i));
  const total = page.total;
  return {
    edges,
    pageInfo: {
      startCursor: members.length ? encodeCursor(offset) : null,
      endCursor: members.length ? encodeCursor(offset + members.length - 1) : null,
      hasNextPage: total === undefined ? Boolean(page.hasNext) : offset + members.length < total,
      hasPreviousPage: offset > 0,
    },
    totalCount: total ?? offset + members.length + (page.hasNext ? 1 : 0),
  };
}
