/**
 * Filters as GraphQL arguments (docs/graphql.md, "Filters"), named as API Platform names them, made from the query
 * parameters each filter kind reads (pipeline/filters/, one home per kind): `title` and `title[]` become
 * `title: String` and `title_list: [String]`; `order[title]`, `price[gt]`, `exists[publishedAt]` become
 * `order: [BookFilter_order]`, `price: [BookFilter_price]`, `exists: [BookFilter_exists]`, lists of input objects so
 * that the order of keys is kept. The arguments become the same query parameters, as values, which the REST
 * filter code reads: GraphQL and REST filter alike by construction.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputType,
} from 'graphql';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { filterKind } from '../pipeline/filters/index.js';
import { filterTarget } from '../pipeline/filters/paths.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';

/** The query parameter an argument stands for. */
type ArgumentShape =
  | { kind: 'value'; parameter: string }
  | { kind: 'list'; parameter: string }
  | { kind: 'object'; parameter: string; members: Map<string, string> };

export interface FilterArguments {
  args: GraphQLFieldConfigArgumentMap;
  /** Argument name → what it stands for. */
  shapes: Map<string, ArgumentShape>;
}

function scalarOf(schema: JsonSchema | undefined): GraphQLInputType {
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type;
  if (type === 'integer') return GraphQLInt;
  if (type === 'number') return GraphQLFloat;
  if (type === 'boolean') return GraphQLBoolean;
  return GraphQLString;
}

/** A parameter name's GraphQL form: `author.name` → `author_name` (the nesting separator). */
const argumentName = (parameter: string, separator: string): string => parameter.split('.').join(separator);

/** The filter arguments of a collection operation, its input types named `<ShortName>Filter_<argument>`. */
export function filterArguments(
  api: ApiMetadata,
  op: OperationMetadata,
  typeName: string,
  inputTypes: Map<string, GraphQLInputObjectType>,
): FilterArguments {
  const settings = api.settings;
  const separator = settings.graphql.nestingSeparator;
  const args: GraphQLFieldConfigArgumentMap = {};
  const shapes = new Map<string, ArgumentShape>();
  const objects = new Map<
    string,
    { parameter: string; members: Map<string, GraphQLInputType>; names: Map<string, string> }
  >();
  for (const filterName of optionValue(op, settings, 'filters') ?? []) {
    const filter = api.filters.get(filterName);
    if (!filter) continue;
    for (const { name, setting } of filter.properties) {
      const prop = filterTarget(api, op.resource, name)?.prop;
      if (!prop) continue;
      for (const variable of filterKind(filter.kind).documentedVariables(settings, prop, setting)) {
        const bracket = /^([^[\]]+)\[([^[\]]*)\]$/.exec(variable.name);
        const scalar = scalarOf(variable.array ? (variable.schema.items as JsonSchema | undefined) : variable.schema);
        if (!bracket) {
          const arg = argumentName(variable.name, separator);
          args[arg] ??= { type: variable.array ? new GraphQLList(scalar) : scalar, description: variable.description };
          shapes.set(arg, { kind: variable.array ? 'list' : 'value', parameter: variable.name });
        } else if (bracket[2] === '') {
          const arg = `${argumentName(bracket[1], separator)}_list`;
          args[arg] ??= { type: new GraphQLList(scalar), description: variable.description };
          shapes.set(arg, { kind: 'list', parameter: bracket[1] });
        } else {
          const arg = argumentName(bracket[1], separator);
          const object = objects.get(arg) ?? { parameter: bracket[1], members: new Map(), names: new Map() };
          const member = argumentName(bracket[2], separator);
          // API Platform types the members of range, date and order inputs as strings, exists' as booleans.
          object.members.set(member, scalar === GraphQLBoolean ? GraphQLBoolean : GraphQLString);
          object.names.set(member, bracket[2]);
          objects.set(arg, object);
        }
      }
    }
  }
  for (const [arg, object] of objects) {
    const name = `${typeName}Filter_${arg}`;
    let input = inputTypes.get(name);
    if (!input) {
      const members = object.members;
      input = new GraphQLInputObjectType({
        name,
        fields: () => Object.fromEntries([...members].map(([member, type]) => [member, { type }])),
      });
      inputTypes.set(name, input);
    }
    args[arg] = { type: new GraphQLList(input) };
    shapes.set(arg, { kind: 'object', parameter: object.parameter, members: object.names });
  }
  return { args, shapes };
}

/** The query parameters (name and value pairs, `queryOf`) of the filter arguments a request gave. */
export function filterParameters(filters: FilterArguments, args: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [arg, shape] of filters.shapes) {
    const value = args[arg];
    if (value === undefined || value === null) continue;
    if (shape.kind === 'value') out.push([shape.parameter, String(value)]);
    else if (shape.kind === 'list') {
      for (const v of Array.isArray(value) ? value : [value])
        if (v !== null) out.push([`${shape.parameter}[]`, String(v)]);
    } else {
      for (const entry of Array.isArray(value) ? value : [value]) {
        for (const [member, v] of Object.entries((entry ?? {}) as Record<string, unknown>)) {
          if (v === undefined || v === null) continue;
          out.push([`${shape.parameter}[${shape.members.get(member) ?? member}]`, String(v)]);
        }
      }
    }
  }
  return out;
}
