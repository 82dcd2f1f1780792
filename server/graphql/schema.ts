/**
 * The GraphQL schema of a loaded API (docs/graphql.md), built once per ApiMetadata from its resources' GraphQL
 * operations with API Platform's shape: `node(id)`, then per resource its item and collection queries, custom
 * queries and mutations. Every root field runs its operation's pipeline (run.ts).
 */
import {
  GraphQLID,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { ApiMetadata, GraphQlOperationMetadata } from '../metadata/types.js';
import { iriResolver } from '../protocol/iri.js';
import { graphQlArgumentType } from './argument-types.js';
import {
  connectionValue,
  cursorWindow,
  pageInMemory,
  pageParameters,
  paginationArgs,
  paginationOf,
  type Pagination,
} from './collections.js';
import { readAhead, selectedAt } from './prefetch.js';
import { shownProperties } from '../metadata/property-access.js';
import type { GraphQlContext } from './request-context.js';
import { queryOf } from '../protocol/query.js';
import { filterArguments, filterParameters } from './filter-arguments.js';
import { described } from './described.js';
import { mutationField } from './mutations.js';
import { ObjectTypes, TYPE_OF } from './object-types.js';
import { runOperation, runOrNull } from './run.js';
import { subscriptionField } from './subscriptions.js';

const schemas = new WeakMap<ApiMetadata, GraphQLSchema>();

export function graphQlSchema(api: ApiMetadata): GraphQLSchema {
  let schema = schemas.get(api);
  if (!schema) schemas.set(api, (schema = buildSchema(api)));
  return schema;
}

type Field = GraphQLFieldConfig<unknown, GraphQlContext>;

function buildSchema(api: ApiMetadata): GraphQLSchema {
  const types = new ObjectTypes(api);
  const queries: GraphQLFieldConfigMap<unknown, GraphQlContext> = { node: nodeField(api, types) };
  const mutations: GraphQLFieldConfigMap<unknown, GraphQlContext> = {};
  const subscriptions: GraphQLFieldConfigMap<unknown, GraphQlContext> = {};
  for (const resource of api.resources) {
    for (const gop of resource.graphQlOperations) {
      if (gop.nested) continue;
      if (gop.kind === 'Query') queries[gop.fieldName] = itemField(types, gop);
      else if (gop.kind === 'QueryCollection') queries[gop.fieldName] = collectionField(types, gop);
      else if (gop.kind === 'Mutation' || gop.kind === 'DeleteMutation')
        mutations[gop.fieldName] = mutationField(types, gop);
      else if (gop.kind === 'Subscription') subscriptions[gop.fieldName] = subscriptionField(types, gop);
    }
  }
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: queries }),
    ...(Object.keys(mutations).length
      ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutations }) }
      : {}),
    ...(Object.keys(subscriptions).length
      ? { subscription: new GraphQLObjectType({ name: 'Subscription', fields: subscriptions }) }
      : {}),
    // Every resource's type, also those only a relation or `node` reaches.
    types: api.resources.filter((r) => r.graphQlOperations.length).map((r) => types.typeFor(types.itemQuery(r))),
  });
}

/** `args` replaces the default arguments, `extraArgs` adds to them. */
function declaredArgs(
  gop: GraphQlOperationMetadata,
  defaults: GraphQLFieldConfigArgumentMap,
): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = gop.args ? {} : { ...defaults };
  for (const [name, arg] of Object.entries({ ...gop.args, ...gop.extraArgs }))
    args[name] = { type: graphQlArgumentType(arg.type), ...(arg.description ? { description: arg.description } : {}) };
  return args;
}

/** `node(id: ID!): Node`: any item by its IRI, as its resource's item query shows it. */
function nodeField(api: ApiMetadata, types: ObjectTypes): Field {
  return {
    type: types.node,
    args: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolve: async (_source, args: { id: string }, ctx) => {
      const match = iriResolver(api).match(args.id);
      if (!match || !match.resource.graphQlOperations.length) return null;
      const query = types.itemQuery(match.resource);
      const value = (await runOrNull(ctx, query.operation, { uriVariables: match.variables })) as Record<
        PropertyKey,
        unknown
      > | null;
      if (value) value[TYPE_OF] = types.typeFor(query).name;
      return value;
    },
  };
}

/** `book(id: ID!): Book`, or a custom query (`byIsbnBook(isbn: String!)`) whose resolver provides the item. */
function itemField(types: ObjectTypes, gop: GraphQlOperationMetadata): Field {
  const op = gop.operation;
  return {
    type: types.typeFor(gop),
    ...described(gop),
    args: declaredArgs(gop, { id: { type: new GraphQLNonNull(GraphQLID) } }),
    resolve: async (_source, args: Record<string, unknown>, ctx) => {
      let uriVariables: Record<string, string> | undefined;
      if (typeof args.id === 'string') {
        const match = iriResolver(ctx.runtime.api).match(args.id);
        if (!match || match.resource !== op.resource) {
          if (!gop.resolver) return null;
        } else uriVariables = match.variables;
      } else if (!gop.resolver) return null;
      return runOrNull(ctx, op, { ...(uriVariables ? { uriVariables } : {}), args });
    },
  };
}

/** Where a collection's items stand in its selection, per shape. */
const MEMBERS_AT: Record<Pagination, string[]> = { cursor: ['edges', 'node'], page: ['collection'], none: [] };

/** `books(first, after, …, <filters>)`: a connection (or list) of the collection's items. */
function collectionField(types: ObjectTypes, gop: GraphQlOperationMetadata): Field {
  const op = gop.operation;
  const settings = types.api.settings;
  const pagination = paginationOf(op, settings);
  const filters = filterArguments(types.api, op, op.resource.shortName, types.filterInputs);
  const toOne = shownProperties(op, settings).filter((p) => p.relation && !p.array);
  return {
    type: types.connectionOf(gop),
    ...described(gop),
    args: declaredArgs(gop, { ...paginationArgs(op, settings), ...filters.args }),
    resolve: async (_source, args: Record<string, unknown>, ctx, info) => {
      const pairs = filterParameters(filters, args);
      if (pagination === 'page') pairs.push(...pageParameters(args, settings));
      const window = pagination === 'cursor' ? cursorWindow(args) : undefined;
      const result = (await runOperation(ctx, op, {
        query: queryOf(pairs),
        ...(window ? { window } : {}),
        args,
      })) as { members: unknown[]; page?: Parameters<typeof connectionValue>[2] };
      // A custom resolver's plain array is the whole collection: paged here, as the arguments ask.
      const { members, page } =
        result.page?.request.enabled === false && pagination !== 'none'
          ? pageInMemory(op, settings, args, result.members)
          : result;
      if (!toOne.length) return connectionValue(pagination, members, page);
      const selected = selectedAt(info, MEMBERS_AT[pagination]);
      await readAhead(ctx, members, toOne, selected, (name) => {
        const target = types.api.resource(name);
        return target?.graphQlOperations.length ? types.itemQuery(target).operation : undefined;
      });
      return connectionValue(pagination, members, page);
    },
  };
}
