/**
 * The OpenAPI document of an API (3.2 by default, or 3.1), built from the runtime metadata:
 * one operation per visible operation (hidden IRI routes left out), operationIds from the
 * operation names as API Platform derives them, request and response schemas from the
 * properties (the schemas that validate requests), JSON-LD and JSON representations, Hydra
 * collections, the pagination and filter parameters each listing operation honours, error
 * responses, deprecations. QUERY operations go under the path item's `query` field in 3.2;
 * 3.1 has no place for them, so they are left out there and listed in `x-apidsl-omitted`.
 */
import { takesBody } from '../metadata/operation-facts.js';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';
import { NDJSON_MEDIA_TYPE } from '../pipeline/bulk.js';
import { JSONAPI_MEDIA_TYPE } from '../pipeline/representation/jsonapi.js';
import { isGuarded } from '../pipeline/guards.js';
import {
  filterParameters,
  paginationParameters,
  pathParameters,
  queryBodySchema,
  type ParameterObject,
} from './parameters.js';
import { bodyExample } from './examples.js';
import { OperationResponses } from './responses.js';
import { joinText, SchemaRegistry } from './schemas.js';

export type SpecVersion = '3.1' | '3.2';
export const SPEC_VERSIONS: readonly SpecVersion[] = ['3.1', '3.2'];
export const DEFAULT_SPEC_VERSION: SpecVersion = '3.2';
/** The `openapi` field written for each version. */
const FULL_VERSION: Record<SpecVersion, string> = { '3.1': '3.1.1', '3.2': '3.2.0' };

/** Methods with a fixed field of the Path Item Object. */
const FIXED_METHODS: Record<SpecVersion, readonly string[]> = {
  '3.1': ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'],
  '3.2': ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'],
};

export type OpenApiDocument = Record<string, unknown>;

export interface OmittedOperation {
  method: string;
  path: string;
  operationId: string;
  reason: string;
}

export function isSpecVersion(value: unknown): value is SpecVersion {
  return typeof value === 'string' && (SPEC_VERSIONS as readonly string[]).includes(value);
}

/**
 * API Platform's operationId: the operation name without its leading underscore, slashes and
 * braces (`_api_/books/{id}_get` → `api_books_id_get`); a name the file gives stays as it is.
 */
export function operationId(name: string): string {
  return name
    .replace(/\{\._format\}/g, '')
    .replace(/\//g, '')
    .replace(/\{/g, '_')
    .replace(/\}/g, '')
    .replace(/^_/, '');
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

/** The name of the Bearer JWT scheme in `components.securitySchemes`. */
export const BEARER_SCHEME = 'bearerAuth';

/**
 * The configured authentication as OpenAPI security schemes: Bearer JWT when `security.jwt` is set.
 * A custom authenticator reads whatever it likes (a header, a cookie…), which the document cannot
 * know: it gets no scheme, and its guarded operations still list their 401 and 403 answers.
 */
function securitySchemes(api: ApiMetadata): Record<string, unknown> {
  if (!api.security.jwt) return {};
  return {
    securitySchemes: {
      [BEARER_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A JWT in the Authorization header: `Bearer <token>`.',
      },
    },
  };
}

class Builder {
  readonly registry: SchemaRegistry;
  private readonly responses: OperationResponses;
  readonly omitted: OmittedOperation[] = [];
  private readonly ids = new Set<string>();

  constructor(
    private readonly api: ApiMetadata,
    private readonly version: SpecVersion,
    hidden?: ReadonlyMap<string, readonly string[]>,
  ) {
    this.registry = new SchemaRegistry(api, hidden);
    this.responses = new OperationResponses(api, this.registry);
  }

  uniqueId(name: string): string {
    const base = operationId(name) || 'operation';
    let id = base;
    for (let i = 2; this.ids.has(id); i++) id = `${base}_${i}`;
    this.ids.add(id);
    return id;
  }

  private requestBody(op: OperationMetadata): Record<string, unknown> | undefined {
    const settings = this.api.settings;
    if (op.method === 'QUERY') return this.queryBody(op);
    if (
      !takesBody(op.method) ||
      optionValue(op, 'input') === false ||
      optionValue(op, settings, 'deserialize') === false
    )
      return undefined;
    const resource = op.resource;
    const example = bodyExample(resource, this.api, op.method);
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
    const types = [...new Set(Object.values(settings.formats).flat())];
    if (op.method === 'POST' && optionValue(op, 'bulk') === true) return this.bulkBody(op, schema, example);
    const body = (t: string) => (t === JSONAPI_MEDIA_TYPE ? { schema: this.jsonApiBody(op) } : { schema, example });
    const what =
      op.method === 'POST'
        ? `The new ${op.shortName} resource.`
        : `The ${op.shortName} resource: properties absent from the body keep their values, null removes one.`;
    return { description: what, required: true, content: Object.fromEntries(types.map((t) => [t, body(t)])) };
  }

  /** A JSON:API request document: its `data` is the resource object (pipeline/representation/jsonapi.ts reads it). */
  private jsonApiBody(op: OperationMetadata): JsonSchema {
    return { type: 'object', required: ['data'], properties: { data: this.registry.inputJsonApi(op) } };
  }

  /** `bulk: true`: one item, an array of them, or NDJSON lines (docs/data.md "Bulk writes"). */
  private bulkBody(op: OperationMetadata, schema: JsonSchema, example: unknown): Record<string, unknown> {
    const settings = this.api.settings;
    const types = [...new Set(Object.values(settings.formats).flat())];
    const batch: JsonSchema = { type: 'array', items: schema, minItems: 1, maxItems: settings.bulkMaxItems };
    const name = op.shortName;
    const content: Record<string, unknown> = Object.fromEntries(
      types.map((t) => [t, { schema: { oneOf: [schema, batch] }, example }]),
    );
    // OpenAPI 3.2 describes a sequential media type by the schema of each item; 3.1 has no such field.
    const lines = `One ${name} object per line (JSON), at most ${settings.bulkMaxItems} lines.`;
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

  private queryBody(op: OperationMetadata): Record<string, unknown> {
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

  operation(op: OperationMetadata, id: string): Record<string, unknown> {
    const parameters: ParameterObject[] = [...pathParameters(op)];
    if (op.isCollection && op.method !== 'POST') {
      parameters.push(...paginationParameters(this.api, op));
      // GET reads the criteria from the URL; QUERY from its body.
      if (op.method !== 'QUERY')
        parameters.push(
          ...filterParameters(this.api, op).filter((p) => !parameters.some((q) => q.name === p.name && q.in === p.in)),
        );
    }
    const reason = optionValue(op, 'deprecationReason');
    const deprecation = typeof reason === 'string' ? reason : undefined;
    // A description the resource passes down to its operations describes the resource, not the operation.
    const written = optionValue(op, 'description');
    const own = typeof written === 'string' && written !== op.resource.description ? written : undefined;
    const description = joinText(own, deprecation && `Deprecated: ${deprecation}`);
    const body = this.requestBody(op);
    return {
      operationId: id,
      tags: [op.resource.shortName],
      summary: summaryOf(op),
      ...(description ? { description } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: this.responses.responses(op),
      ...(this.api.security.jwt && isGuarded(op, this.api.settings) ? { security: [{ [BEARER_SCHEME]: [] }] } : {}),
      ...(deprecation ? { deprecated: true } : {}),
    };
  }

  build(): OpenApiDocument {
    const paths: Record<string, Record<string, unknown>> = {};
    const tags: Record<string, unknown>[] = [];
    for (const resource of this.api.resources) {
      const visible = resource.operations.filter((o) => !o.hidden);
      if (visible.length)
        tags.push({ name: resource.shortName, ...(resource.description ? { description: resource.description } : {}) });
      for (const op of visible) this.place(paths, op);
    }
    const omittedNote =
      this.omitted.length > 0
        ? `This OpenAPI ${FULL_VERSION[this.version]} document leaves out ${this.omitted.length} operation${this.omitted.length > 1 ? 's' : ''} it cannot describe (see x-apidsl-omitted): ${this.omitted.map((o) => `${o.method} ${o.path}`).join(', ')}. The OpenAPI 3.2 document (/docs.json) has them.`
        : undefined;
    const description = joinText(this.api.description, omittedNote);
    return {
      openapi: FULL_VERSION[this.version],
      info: { title: this.api.title, version: this.api.version ?? '0.0.0', ...(description ? { description } : {}) },
      servers: [{ url: '/', description: 'This service' }],
      paths,
      components: { schemas: this.registry.schemas, ...securitySchemes(this.api) },
      tags,
      ...(this.omitted.length ? { 'x-apidsl-omitted': this.omitted } : {}),
    };
  }

  private place(paths: Record<string, Record<string, unknown>>, op: OperationMetadata): void {
    const id = this.uniqueId(op.name);
    const method = op.method.toLowerCase();
    const item = (paths[op.path] ??= {});
    const omit = (reason: string): void => {
      this.omitted.push({ method: op.method, path: op.path, operationId: id, reason });
    };
    if (FIXED_METHODS[this.version].includes(method)) {
      if (method in item)
        return omit(
          `Another operation (${(item[method] as { operationId: string }).operationId}) has the same method and path.`,
        );
      item[method] = this.operation(op, id);
      return;
    }
    if (this.version === '3.1') {
      return omit(
        op.method === 'QUERY'
          ? 'OpenAPI 3.1 has no QUERY method (OpenAPI 3.2 adds the path item field `query`).'
          : `OpenAPI 3.1 has no place for the ${op.method} method (OpenAPI 3.2 has additionalOperations).`,
      );
    }
    const additional = (item.additionalOperations ??= {}) as Record<string, unknown>;
    if (op.method in additional) return omit('Another operation has the same method and path.');
    additional[op.method] = this.operation(op, id);
  }
}

export interface OpenApiOptions {
  specVersion?: SpecVersion;
  /** Per resource, the properties the reader may not see (property `security`). */
  hiddenProperties?: ReadonlyMap<string, readonly string[]>;
}

/** The OpenAPI document of an API. */
export function openApiDocument(api: ApiMetadata, options: OpenApiOptions = {}): OpenApiDocument {
  return new Builder(api, options.specVersion ?? DEFAULT_SPEC_VERSION, options.hiddenProperties).build();
}

/** How many variants (version × hidden properties) are kept; the oldest is made again when needed. */
const CACHED_VARIANTS = 32;

/**
 * Documents of an API by version and by what the reader may not see, built once each (the metadata
 * never changes while serving).
 */
export function openApiCache(
  api: ApiMetadata,
): (version: SpecVersion, hidden?: ReadonlyMap<string, readonly string[]>) => string {
  const cache = new Map<string, string>();
  return (version, hidden) => {
    const key = hidden?.size ? `${version} ${JSON.stringify([...hidden])}` : version;
    let text = cache.get(key);
    if (text === undefined) {
      text = JSON.stringify(openApiDocument(api, { specVersion: version, hiddenProperties: hidden }));
      if (cache.size >= CACHED_VARIANTS) cache.delete(cache.keys().next().value!);
      cache.set(key, text);
    }
    return text;
  };
}
