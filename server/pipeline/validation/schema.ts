/**
 * One JSON Schema (draft 2020-12) per resource, generated from its properties. constraints.ts runs the input
 * schema; the documentation uses both, so nothing here is specific to Ajv.
 */
import type { PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';

export type JsonSchema = Record<string, unknown>;

/** 'output': what responses hold. 'input': what request bodies may hold (an optional nullable property takes null). */
export type SchemaMode = 'output' | 'input';

const BASE_TYPES: Record<string, JsonSchema> = {
  int: { type: 'integer' },
  number: { type: 'number' },
  string: { type: 'string' },
  bool: { type: 'boolean' },
  datetime: { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
  json: {},
};

/** Constraints that are JSON Schema keywords of the same name; they apply to each item of an array. */
const VALUE_CONSTRAINTS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
] as const;
/** Constraints on the array itself (`T[]`), JSON Schema keywords of the same name. */
const LIST_CONSTRAINTS = ['minItems', 'maxItems', 'uniqueItems'] as const;
/** The `format` constraint's values as JSON Schema names them (API Platform shows Symfony's Url as `uri`). */
const SCHEMA_FORMATS: Record<string, string> = { url: 'uri' };

/** `selected`: the properties an operation shows or accepts (property-access.ts); default all. */
export function resourceSchema(
  resource: ResourceMetadata,
  mode: SchemaMode,
  selected: readonly PropertyMetadata[] = resource.properties,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const property of selected) properties[property.name] = propertySchema(property, mode);
  // A readOnly property is never required from a client, a writeOnly one never appears in a response.
  const required = selected
    .filter((p) => p.required && !(mode === 'input' ? p.readOnly : p.writeOnly))
    .map((p) => p.name);
  return {
    type: 'object',
    ...(resource.description !== undefined && { description: resource.description }),
    properties,
    ...(required.length > 0 && { required }),
  };
}

function propertySchema(property: PropertyMetadata, mode: SchemaMode): JsonSchema {
  const value = valueSchema(property);
  const schema: JsonSchema = property.array ? { type: 'array', items: value } : value;
  for (const keyword of property.array ? LIST_CONSTRAINTS : [])
    if (property[keyword] !== undefined && property[keyword] !== false) schema[keyword] = property[keyword];
  if (mode === 'input' && property.nullable && !property.required) allowNull(schema);
  if (property.description !== undefined) schema.description = property.description;
  if (property.readOnly) schema.readOnly = true;
  if (property.writeOnly) schema.writeOnly = true;
  if (property.default !== undefined) schema.default = property.default;
  return schema;
}

/** The schema of one value (of each item for `T[]`). */
function valueSchema(property: PropertyMetadata): JsonSchema {
  const schema: JsonSchema =
    property.relation !== undefined ? { type: 'string', format: 'iri-reference' } : { ...BASE_TYPES[property.type] };
  for (const keyword of VALUE_CONSTRAINTS) {
    if (property[keyword] !== undefined) schema[keyword] = property[keyword];
  }
  if (property.format !== undefined) schema.format = SCHEMA_FORMATS[property.format] ?? property.format;
  return schema;
}

function allowNull(schema: JsonSchema): void {
  if (schema.type !== undefined) schema.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
}
