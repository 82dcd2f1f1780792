/**
 * Mutations (docs/graphql.md, "Mutations"), Relay style as API Platform writes them: `createBook(input:
 * createBookInput!): createBookPayload`, the input holding the writable fields (relations as IRIs) and
 * `clientMutationId`, the payload `{ book, clientMutationId }`. `update` merges like PATCH and needs `id`; `delete`
 * answers the deleted item's `id`; a custom mutation's input is its `args`. Each runs its pipeline operation.
 */
import {
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import { acceptedProperties } from '../metadata/property-access.js';
import type { GraphQlOperationMetadata, PropertyMetadata } from '../metadata/types.js';
import { iriResolver } from '../protocol/iri.js';
import type { GraphQlContext } from './request-context.js';
import { graphQlArgumentType } from './argument-types.js';
import { fieldNameOf, scalarOf, type ObjectTypes } from './object-types.js';
import { notFoundError, runOperation } from './run.js';
import { described } from './described.js';

const lcfirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** The input type of a written property: a relation takes IRIs. */
function inputTypeOf(p: PropertyMetadata, create: boolean): GraphQLInputType {
  const scalar = (p.relation ? GraphQLString : scalarOf(p)) as GraphQLInputType;
  const type = p.array ? new GraphQLList(scalar) : scalar;
  return create && p.required ? new GraphQLNonNull(type) : type;
}

/** The root field of a Mutation or DeleteMutation. */
export function mutationField(
  types: ObjectTypes,
  gop: GraphQlOperationMetadata,
): GraphQLFieldConfig<unknown, GraphQlContext> {
  const op = gop.operation;
  const resource = op.resource;
  const prefix = `${gop.name}${resource.shortName}`;
  const isDelete = gop.kind === 'DeleteMutation';
  const create = op.method === 'POST';
  const needsId = !create;
  const written = new Map<string, PropertyMetadata>();
  const input = new GraphQLInputObjectType({
    name: `${prefix}Input`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      if (gop.args) {
        for (const [name, arg] of Object.entries(gop.args))
          fields[name] = {
            type: graphQlArgumentType(arg.type),
            ...(arg.description ? { description: arg.description } : {}),
          };
      } else {
        if (needsId) fields.id = { type: new GraphQLNonNull(GraphQLID) };
        if (!isDelete)
          for (const p of acceptedProperties(op, types.api.settings)) {
            const name = fieldNameOf(p);
            written.set(name, p);
            fields[name] = { type: inputTypeOf(p, create), ...(p.description ? { description: p.description } : {}) };
          }
      }
      for (const [name, arg] of Object.entries(gop.extraArgs ?? {}))
        fields[name] = { type: graphQlArgumentType(arg.type) };
      if (needsId && !gop.args)
        fields.ifMatch = {
          type: GraphQLString,
          description: 'The ETag of the version read (REST GET): the write applies only to that version, else 412.',
        };
      fields.clientMutationId = { type: GraphQLString };
      return fields;
    },
  });
  const key = lcfirst(resource.shortName);
  const payload = new GraphQLObjectType({
    name: `${prefix}Payload`,
    fields: () => ({
      [key]: { type: types.typeFor(gop) },
      clientMutationId: { type: GraphQLString },
    }),
  });
  return {
    type: payload,
    ...described(gop),
    args: { input: { type: new GraphQLNonNull(input) } },
    resolve: async (_source, args: { input: Record<string, unknown> }, ctx) => {
      const { clientMutationId, id, ifMatch, ...fields } = args.input;
      let uriVariables: Record<string, string> | undefined;
      if (needsId && typeof id === 'string') {
        const match = iriResolver(ctx.runtime.api).match(id);
        if (!match || match.resource !== resource) throw notFoundError();
        uriVariables = match.variables;
      }
      const body: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(fields)) body[written.get(name)?.name ?? name] = value;
      const result = await runOperation(ctx, op, {
        ...(uriVariables ? { uriVariables } : {}),
        ...(isDelete ? {} : { body }),
        ...(typeof ifMatch === 'string' ? { ifMatch } : {}),
        args: args.input,
      });
      const item = isDelete ? { '@id': id } : result;
      return { [key]: item ?? null, clientMutationId: clientMutationId ?? null };
    },
  };
}
