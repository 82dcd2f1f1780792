/**
 * The GraphQL schema of a loaded API (docs/graphql.md), built once per ApiMetadata from its resources' GraphQL
 * operations: object types implementing `Node`, connections, inputs and payloads named as API Platform names them.
 */
import { GraphQLID, GraphQLInterfaceType, GraphQLNonNull, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { ApiMetadata } from '../metadata/types.js';

const schemas = new WeakMap<ApiMetadata, GraphQLSchema>();

export function graphQlSchema(api: ApiMetadata): GraphQLSchema {
  let schema = schemas.get(api);
  if (!schema) schemas.set(api, (schema = buildSchema(api)));
  return schema;
}

// A first schema with the `node` field only; the resources' types and operations follow.
function buildSchema(_api: ApiMetadata): GraphQLSchema {
  const node = new GraphQLInterfaceType({ name: 'Node', fields: { id: { type: new GraphQLNonNull(GraphQLID) } } });
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { node: { type: node, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: () => null } },
    }),
  });
}
