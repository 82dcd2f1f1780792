/**
 * The output types of the schema (docs/graphql.md, "Types"), named as API Platform names them: a resource's object
 * type (`Book`, implementing `Node`; `BookItem`/`BookCollection` when its item and collection queries show different
 * serialization groups; `createBookPayloadData` for a mutation that shows its own), its connections
 * (`BookCursorConnection`, `BookPageConnection`), and the `Iterable` scalar of `json` properties.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  type GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import { contextGroups, shownProperties } from '../metadata/property-access.js';
import { optionValue } from '../metadata/options.js';
import type {
  ApiMetadata,
  GraphQlOperationMetadata,
  OperationMetadata,
  PropertyMetadata,
  ResourceMetadata,
} from '../metadata/types.js';
import type { GraphQlContext } from './request-context.js';
import { connectionType, paginationArgs, paginationOf } from './collections.js';
import { READ_AHEAD } from './prefetch.js';
import { relationConnection, relationItem } from './relations.js';

/** The object type a value was made for: `node` and the payloads tell types apart by it. */
export const TYPE_OF = Symbol('graphql type');

export const ITERABLE = new GraphQLScalarType({
  name: 'Iterable',
  description: 'The `Iterable` scalar type represents an array or a Traversable with any kind of data.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

const SCALARS: Record<string, GraphQLOutputType> = {
  int: GraphQLInt,
  number: GraphQLFloat,
  string: GraphQLString,
  datetime: GraphQLString,
  date: GraphQLString,
  bool: GraphQLBoolean,
  json: ITERABLE,
};

/** A property's GraphQL name: `id` is the IRI, so a property named `id` is `_id` (API Platform's rule). */
export const fieldNameOf = (p: PropertyMetadata): string => (p.name === 'id' ? '_id' : p.name);

/** The GraphQL scalar of a non-relation property, element type for a list. */
export const scalarOf = (p: PropertyMetadata): GraphQLOutputType => SCALARS[p.type] ?? ITERABLE;

export class ObjectTypes {
  readonly node: GraphQLInterfaceType;
  private readonly types = new Map<string, GraphQLObjectType>();
  private readonly connections = new Map<string, GraphQLObjectType>();
  /** Input types of filter arguments, by name. */
  readonly filterInputs = new Map<string, GraphQLInputObjectType>();

  constructor(readonly api: ApiMetadata) {
    this.node = new GraphQLInterfaceType({
      name: 'Node',
      description: 'A node, according to the Relay specification.',
      fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The id of this node.' } },
      resolveType: (value: Record<PropertyKey, unknown>) => value[TYPE_OF] as string | undefined,
    });
  }

  /** The Query (item) operation of a resource: its declared one, else the nested one the loader adds. */
  itemQuery(resource: ResourceMetadata): GraphQlOperationMetadata {
    return resource.graphQlOperations.find((o) => o.kind === 'Query' && !o.name)!;
  }

  collectionQuery(resource: ResourceMetadata): GraphQlOperationMetadata {
    return resource.graphQlOperations.find((o) => o.kind === 'QueryCollection' && !o.name)!;
  }

  /** The type of the items an operation returns (types per serialization groups, API Platform's names). */
  typeFor(gop: GraphQlOperationMetadata): GraphQLObjectType {
    const resource = gop.operation.resource;
    const item = this.itemQuery(resource);
    const collection = this.collectionQuery(resource);
    const groupsOf = (o: GraphQlOperationMetadata) =>
      JSON.stringify(contextGroups(optionValue(o.operation, 'normalizationContext')) ?? null);
    const differ = groupsOf(item) !== groupsOf(collection);
    let name = resource.shortName;
    let source = item;
    if (gop.kind === 'QueryCollection' || gop === collection) {
      source = collection;
      if (differ) name += 'Collection';
    } else if ((gop.kind === 'Mutation' || gop.kind === 'Subscription') && groupsOf(gop) !== groupsOf(item)) {
      source = gop;
      name = `${gop.kind === 'Subscription' ? `${gop.name ?? 'update'}${resource.shortName}Subscription` : `${gop.name}${resource.shortName}`}PayloadData`;
    } else if (differ) name += 'Item';
    return this.objectType(name, source.operation);
  }

  private objectType(name: string, op: OperationMetadata): GraphQLObjectType {
    let type = this.types.get(name);
    if (type) return type;
    const resource = op.resource;
    type = new GraphQLObjectType<Record<PropertyKey, unknown>, GraphQlContext>({
      name,
      ...(resource.description ? { description: resource.description } : {}),
      interfaces: [this.node],
      fields: () => this.fieldsOf(op),
    });
    this.types.set(name, type);
    return type;
  }

  private fieldsOf(op: OperationMetadata): GraphQLFieldConfigMap<Record<PropertyKey, unknown>, GraphQlContext> {
    const fields: GraphQLFieldConfigMap<Record<PropertyKey, unknown>, GraphQlContext> = {
      id: { type: new GraphQLNonNull(GraphQLID), resolve: (value) => value['@id'] },
    };
    for (const p of shownProperties(op, this.api.settings)) {
      if (p.writeOnly) continue;
      fields[fieldNameOf(p)] = this.propertyField(p);
    }
    return fields;
  }

  private propertyField(p: PropertyMetadata): GraphQLFieldConfig<Record<PropertyKey, unknown>, GraphQlContext> {
    const description = p.description ? { description: p.description } : {};
    if (p.relation) {
      const target = this.api.resource(p.relation);
      if (target && p.array) {
        const collection = this.collectionQuery(target);
        const query = this.itemQuery(target);
        return {
          type: this.connectionOf(collection),
          ...description,
          args: paginationArgs(collection.operation, this.api.settings),
          resolve: (value, args, ctx) => relationConnection(ctx, collection, query, value[p.name], args),
        };
      }
      if (target) {
        const query = this.itemQuery(target);
        return {
          type: this.typeFor(query),
          ...description,
          resolve: (value, _args, ctx) => {
            const ahead = (value[READ_AHEAD] as Record<string, unknown> | undefined)?.[p.name];
            return ahead !== undefined ? ahead : relationItem(ctx, query, value[p.name]);
          },
        };
      }
    }
    const scalar = p.relation ? GraphQLString : scalarOf(p);
    let type: GraphQLOutputType = p.array ? new GraphQLList(scalar) : scalar;
    // Non-null where the value is always there for whoever may read the item: required and not guarded.
    if ((p.required || p.identifier) && !p.security) type = new GraphQLNonNull(type);
    // The field of the same name reads the value's property without a resolver: graphql-jit then inlines the read
    // instead of a call, a promise check and an error handler per field and item (`_id` needs the resolver).
    if (fieldNameOf(p) === p.name) return { type, ...description };
    return { type, ...description, resolve: (value) => value[p.name] };
  }

  /** The connection (or list) type of what a collection operation returns. */
  connectionOf(gop: GraphQlOperationMetadata): GraphQLOutputType {
    const pagination = paginationOf(gop.operation, this.api.settings);
    return connectionType(this.typeFor(gop), pagination, (name, make) => this.namedConnection(name, make));
  }

  /** A connection type by name, made once. */
  namedConnection(name: string, make: () => GraphQLObjectType): GraphQLObjectType {
    let type = this.connections.get(name);
    if (!type) this.connections.set(name, (type = make()));
    return type;
  }
}
