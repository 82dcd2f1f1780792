/**
 * The GraphQL type of an argument declared by `args` or `extraArgs` (`String!`, `[ID]`, `Iterable`): the built-in
 * scalars and `Iterable`, in lists and non-null as written.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  Kind,
  parseType,
  type GraphQLInputType,
  type TypeNode,
} from 'graphql';
import { ITERABLE } from './object-types.js';

const NAMED: Record<string, GraphQLInputType> = {
  String: GraphQLString,
  Int: GraphQLInt,
  Float: GraphQLFloat,
  Boolean: GraphQLBoolean,
  ID: GraphQLID,
  Iterable: ITERABLE,
};

function typeOf(node: TypeNode): GraphQLInputType {
  if (node.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(typeOf(node.type) as GraphQLList<GraphQLInputType>);
  if (node.kind === Kind.LIST_TYPE) return new GraphQLList(typeOf(node.type));
  return NAMED[node.name.value] ?? GraphQLString;
}

/** The checker accepts only the names above (grammar/): anything else reads as String. */
export const graphQlArgumentType = (written: string): GraphQLInputType => {
  try {
    return typeOf(parseType(written));
  } catch {
    return GraphQLString;
  }
};
