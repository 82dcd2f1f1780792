/**
 * What an operation takes, typed: its summary and description, its parameters (path variables, pagination and
 * filter parameters) and its request body per media type. The OpenAPI document renders it (document.ts) and so do
 * the MCP tools (server/mcp/tools.ts), so the two describe one contract without either reading the other's output.
 */
import { takesBody } from '../metadata/operation-facts.js';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';
import { NDJSON_MEDIA_TYPE } from '../pipeline/bulk.js';
import { JSONAPI_MEDIA_TYPE } from '../pipeline/representation/jsonapi.js';
import {
  filterParameters,
  paginationParameters,
  pathParameters,
  queryBodySchema,
  type ParameterObject,
} from './parameters.js';
import { bodyExample } from './examples.js';
import { joinText, type SchemaRegistry } from './schemas.js';

export type SpecVersion = '3.1' | '3.2';

/** One media type of a request body (OpenAPI's Media Type Object). */
export interface MediaTypeInput {
  schema?: JsonSchema;
  /** OpenAPI 3.2: the schema of each item of a sequential media type (NDJSON). */
  itemSchema?: JsonSchema;
  example?: unknown;
  description?: string;
  encoding?: Record<string, { style: string; explode: boolean }>;
}

export interface RequestBodyInput {
  description: string;
  required: boolean;
  content: Record<string, MediaTypeInput>;
}

export interface OperationInputs {
  summary: string;
  /** The operation's own description and its deprecation, when it has either. */
  description?: string;
  /** Path variables first, then the pagination and filter parameters a listing reads from the URL. */
  parameters: ParameterObject[];
  body?: RequestBodyInput;
}

function summaryOf(op: OperationMetadata): string {
  const name = op.shortName;
  if (op.kind === 'GetCollection') return `Retrieves the collection of ${name} resources.`;
  if (op.method === 'QUERY')
    return op.isCollection
      ? `Queries the collection of ${name} resources with criteria in the request body.`
      : `Queries the ${name} resource with criteria in the request body.`;
  switch (op.method) {
    case 'GET':
      return `Retrieves a ${name} resource.`;
    case 'POST':
      return `Creates a ${name} resource.`;
    case 'PUT':
      return optionValue(op, 'allowCreate') === true
        ? `Replaces the ${name} resource, or creates it when it does not exist.`
        : `Replaces the ${name} resource.`;
    case 'PATCH':
      return `Updates the ${name} resource.`;
    case 'DELETE':
      return `Removes the ${name} resource.`;
    default:
      return `${op.method} on the ${name} resource${op.isCollection ? 's' : ''}.`;
  }
}

/** The deprecation reason an operation carries, if any. */
export function deprecationOf(op: OperationMetadata): string | undefined {
  const reason = optionValue(op, 'deprecationReason');
  return typeof reason === 'string' ? reason : undefined;
}

/** The inputs of each operation of one API, their schemas registered in one registry. */
export class OperationInputsBuilder {
  constructor(
    private readonly api: ApiMetadata,
    private readonly registry: SchemaRegistry,
    private readonly version: SpecVersion,
  ) {}

  inputs(op: OperationMetadata): OperationInputs {
    const deprecation = deprecationOf(op);
    // A description the resource passes down to its operations describes the resource, not the operation.
    const written = optionValue(op, 'description');
    const own = typeof written === 'string' && written !== op.resource.description ? written : undefined;
    const description = joinText(own, deprecation && `Deprecated: ${deprecation}`);
    const body = this.requestBody(op);
    return {
      summary: summaryOf(op),
      ...(description ? { description } : {}),
      parameters: this.parameters(op),
      ...(body ? { body } : {}),
    };
  }

  private parameters(op: OperationMetadata): ParameterObject[] {
    const parameters: ParameterObject[] = [...pathParameters(op)];
    if (op.isCollection && op.method !== 'POST') {
      parameters.push(...paginationParameters(this.api, op));
      // GET reads the criteria from the URL; QUERY from its body.
      if (op.method !== 'QUERY')
        parameters.push(
          ...filterParameters(this.api, op).filter((p) => !parameters.some((q) => q.name === p.name && q.in === p.in)),
        );
    }
    return parameters;
  }

  private requestBody(op: OperationMetadata): RequestBodyInput | undefined {
    const settings = this.api.settings;
    if (op.method === 'QUERY') return this.queryBody(op);
    if (
      !takesBody(op.method) ||
      optionValue(op, 'input') === false ||
      optionValue(op, settings, 'deserialize') === false
    )
      return undefined;
    const example = bodyExample(op.resource, this.api, op.method);
    if (op.method === 'PATCH') {
      if (settings.patchFormats.length === 0) return undefined;
      const schema = this.registry.mergePatch(op);
      const patch = (t: string) => (t === JSONAPI_MEDIA_TYPE ? { schema: this.jsonApiBody(op) } : { schema, example });
      return {
        description: `The changes to the ${op.shortName} resource.`,
        required: true,
        content: Object.fromEntries(settings.patchFormats.map((t) => [t, patch(t)])),
      };
    }
    const schema = this.registry.input(op);
    if (op.method === 'POST' && optionValue(op, 'bulk') === true) return this.bulkBody(op, schema, example);
    const body = (t: string) => (t === JSONAPI_MEDIA_TYPE ? { schema: this.jsonApiBody(op) } : { schema, example });
    const what =
      op.method === 'POST'
        ? `The new ${op.shortName} resource.`
        : `The ${op.shortName} resource: properties absent from the body keep their values, null removes one.`;
    return {
      description: what,
      required: true,
      content: Object.fromEntries(this.bodyTypes().map((t) => [t, body(t)])),
    };
  }

  private bodyTypes(): string[] {
    return [...new Set(Object.values(this.api.settings.formats).flat())];
  }

  /** A JSON:API request document: its `data` is the resource object (pipeline/representation/jsonapi.ts reads it). */
  private jsonApiBody(op: OperationMetadata): JsonSchema {
    return { type: 'object', required: ['data'], properties: { data: this.registry.inputJsonApi(op) } };
  }

  /** `bulk: true`: one item, an array of them, or NDJSON lines (docs/data.md "Bulk writes"). */
  private bulkBody(op: OperationMetadata, schema: JsonSchema, example: unknown): RequestBodyInput {
    const max = this.api.settings.bulkMaxItems;
    const batch: JsonSchema = { type: 'array', items: schema, minItems: 1, maxItems: max };
    const name = op.shortName;
    const content: Record<string, MediaTypeInput> = Object.fromEntries(
      this.bodyTypes().map((t) => [t, { schema: { oneOf: [schema, batch] }, example }]),
    );
    // OpenAPI 3.2 describes a sequential media type by the schema of each item; 3.1 has no such field.
    const lines = `One ${name} object per line (JSON), at most ${max} lines.`;
    content[NDJSON_MEDIA_TYPE] =
      this.version === '3.2'
        ? { itemSchema: schema, description: lines }
        : { schema: { type: 'string', description: lines } };
    return {
      description: `The new ${name} resource, or an array of them (or NDJSON lines) created together: all of them or none.`,
      required: true,
      content,
    };
  }

  private queryBody(op: OperationMetadata): RequestBodyInput {
    const { schema, deepObjects } = queryBodySchema(this.api, op);
    const encoding = Object.fromEntries(deepObjects.map((name) => [name, { style: 'deepObject', explode: true }]));
    return {
      description:
        'The criteria, as a JSON object or a form (`price[gte]=10&order[title]=desc`). The Content-Type header is required, even for an empty body; send `{}` for no criteria. Pagination is read from the URL.',
      required: true,
      content: {
        'application/json': { schema },
        'application/x-www-form-urlencoded': { schema, ...(deepObjects.length ? { encoding } : {}) },
      },
    };
  }
}
