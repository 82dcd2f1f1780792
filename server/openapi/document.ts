/**
 * The OpenAPI document of an API (3.2 by default, or 3.1), built from the runtime metadata:
 * one operation per visible operation (hidden IRI routes left out), operationIds from the
 * operation names as API Platform derives them, request and response schemas from the
 * properties (the schemas that validate requests), JSON-LD and JSON representations, Hydra
 * collections, the pagination and filter parameters each listing operation honours, error
 * responses, deprecations. QUERY operations go under the path item's `query` field in 3.2;
 * 3.1 has no place for them, so they are left out there and listed in `x-apidsl-omitted`.
 */
import { dispatchesOnly, readsItem, successStatus, takesBody, throwsOnNotFound } from '../metadata/operation-facts.js';
import { optionValue, writtenOption } from '../metadata/options.js';
import { rateLimitOf, type RateLimitPolicy } from '../metadata/rate-limit.js';
import { hubUrl, resourcePublishes } from '../realtime/index.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';
import { mayRestrict } from '../pipeline/relations/referential-actions.js';
import { NDJSON_MEDIA_TYPE } from '../pipeline/bulk.js';
import { JSONAPI_FORMAT, JSONAPI_MEDIA_TYPE } from '../pipeline/representation/jsonapi.js';
import { isGuarded } from '../pipeline/guards.js';
import { jsonApiDocument } from './jsonapi-schemas.js';
import {
  filterParameters,
  paginationParameters,
  pathParameters,
  queryBodySchema,
  type ParameterObject,
} from './parameters.js';
import { bodyExample, collectionIriExample, iri, pageIriExample, responseIriExample } from './examples.js';
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

/** Whether the operation reads one item by the identifier in its path (and so may answer 404). */
function notFoundPossible(op: OperationMetadata, api: ApiMetadata): boolean {
  if (op.controller === 'NotFoundAction') return true;
  if (optionValue(op, api.settings, 'read') === false) return false;
  const explicit = writtenOption(op, 'throwOnNotFound');
  if (op.provider) return explicit === true || (explicit === undefined && !op.isCollection && op.method !== 'POST');
  return readsItem(op) && throwsOnNotFound(op);
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
  readonly omitted: OmittedOperation[] = [];
  private readonly ids = new Set<string>();

  constructor(
    private readonly api: ApiMetadata,
    private readonly version: SpecVersion,
    hidden?: ReadonlyMap<string, readonly string[]>,
  ) {
    this.registry = new SchemaRegistry(api, hidden);
  }

  uniqueId(name: string): string {
    const base = operationId(name) || 'operation';
    let id = base;
    for (let i = 2; this.ids.has(id); i++) id = `${base}_${i}`;
    this.ids.add(id);
    return id;
  }

  private errorResponse(description: string, headers?: Record<string, unknown>): Record<string, unknown> {
    const r = this.registry;
    return {
      description,
      ...(headers ? { headers } : {}),
      content: {
        // Always served as problem+json: the Hydra document unless the client prefers plain JSON.
        'application/problem+json': { schema: { anyOf: [r.errorJsonLd(), r.error()] } },
        ...this.jsonApiErrors(),
      },
    };
  }

  /** The 429 of a rate-limited operation, with the headers it carries (docs/behaviour.md, "Rate limits"). */
  private tooManyRequests(limit: RateLimitPolicy): Record<string, unknown> {
    const text = { type: 'string' };
    return this.errorResponse(
      `Too many requests: more than ${limit.limit} per ${limit.seconds} s from this ${limit.by === 'user' ? 'user' : 'client address'}.`,
      {
        'Retry-After': { description: 'Seconds until the operation may be called again.', schema: { type: 'integer' } },
        'RateLimit-Policy': { description: 'The limit: `"<operation>";q=<requests>;w=<seconds>`.', schema: text },
        RateLimit: { description: 'What is left: `"<operation>";r=<remaining>;t=<seconds to reset>`.', schema: text },
      },
    );
  }

  /** With the JSON:API format, errors a client asking for it gets as a JSON:API error document. */
  private jsonApiErrors(): Record<string, unknown> {
    return this.api.settings.formats[JSONAPI_FORMAT]
      ? { [JSONAPI_MEDIA_TYPE]: { schema: this.registry.errorJsonApi() } }
      : {};
  }

  private violationResponse(): Record<string, unknown> {
    const r = this.registry;
    return {
      description: 'Validation failed (constraint violations).',
      content: {
        'application/problem+json': { schema: { anyOf: [r.constraintViolationJsonLd(), r.constraintViolation()] } },
        ...this.jsonApiErrors(),
      },
    };
  }

  /** The body of a successful answer, per output format (a bulk POST: the item, or the collection a batch creates). */
  private outputContent(op: OperationMetadata): Record<string, unknown> {
    const r = this.registry;
    const content: Record<string, unknown> = {};
    for (const [format, types] of Object.entries(this.api.settings.formats)) {
      const jsonld = format === 'jsonld';
      const collection = (): JsonSchema => (jsonld ? r.collectionJsonLd(op) : { type: 'array', items: r.output(op) });
      const item = (): JsonSchema => (jsonld ? r.outputJsonLd(op) : r.output(op));
      let schema: JsonSchema;
      if (format === JSONAPI_FORMAT) schema = jsonApiDocument(r.outputJsonApi(op), this.pageIris(op));
      else if (op.isCollection) schema = collection();
      else schema = optionValue(op, 'bulk') === true ? { oneOf: [item(), collection()] } : item();
      for (const type of types) content[type] = { schema };
    }
    return content;
  }

  /** A collection operation's example page IRIs, by page number (`/books?page=2`). */
  private pageIris(op: OperationMetadata): ((page: number) => string) | undefined {
    if (!op.isCollection) return undefined;
    const collection = collectionIriExample(op);
    return (page) => pageIriExample(collection, this.api.settings.pageParameter, page);
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

  private responses(op: OperationMetadata): Record<string, unknown> {
    const name = op.shortName;
    const responses: Record<string, unknown> = {};
    if (op.controller === 'NotFoundAction') {
      responses['404'] = this.errorResponse(
        'Not found: this route exists to give the items their IRIs and always answers 404.',
      );
      return responses;
    }
    const status = successStatus(op, { dispatched: dispatchesOnly(op) });
    const hasBody =
      status !== 204 &&
      optionValue(op, 'output') !== false &&
      optionValue(op, this.api.settings, 'serialize') !== false;
    const hub = resourcePublishes(op.resource, this.api.settings) ? hubUrl(this.api.settings, '') : undefined;
    const hubLink = hub
      ? {
          Link: {
            description: `Includes <${hub}>; rel="mercure": the Mercure hub publishing the changes of ${name} items.`,
            schema: { type: 'string' },
          },
        }
      : undefined;
    const success = (description: string, headers?: Record<string, unknown>): Record<string, unknown> => ({
      description: status === 202 ? `${name} accepted: dispatched to the message bus.` : description,
      ...(headers || hubLink ? { headers: { ...headers, ...hubLink } } : {}),
      ...(hasBody ? { content: this.outputContent(op) } : {}),
    });
    const location = {
      Location: { description: 'The IRI of the item.', schema: iri(responseIriExample(op.resource)) },
    };
    if (op.isCollection && op.method !== 'POST') responses[status] = success(`${name} collection.`);
    else if (op.method === 'POST')
      responses[status] = success(`${name} resource created.`, status === 201 ? location : undefined);
    else if (op.method === 'PUT' || op.method === 'PATCH') responses[status] = success(`${name} resource updated.`);
    else if (op.method === 'DELETE')
      responses[status] = { description: `${name} resource deleted.`, ...(hubLink ? { headers: hubLink } : {}) };
    else responses[status] = success(`${name} resource.`);
    if (op.method === 'PUT' && optionValue(op, 'allowCreate') === true && writtenOption(op, 'status') === undefined) {
      responses['201'] = { ...success(`${name} resource created (it did not exist).`, location) };
    }

    const patchDisabled =
      op.method === 'PATCH' &&
      this.api.settings.patchFormats.length === 0 &&
      optionValue(op, 'input') !== false &&
      optionValue(op, this.api.settings, 'deserialize') !== false;
    const bodyRead = this.requestBody(op) !== undefined && op.method !== 'QUERY';
    const paginated = paginationParameters(this.api, op).length > 0 && op.isCollection;
    if (op.method === 'QUERY') {
      responses['400'] = this.errorResponse(
        'The body is not valid JSON, does not decode to a JSON object, or a pagination parameter is invalid.',
      );
    } else if (bodyRead)
      responses['400'] = this.errorResponse(
        'Invalid input: malformed JSON, a value of the wrong type or an invalid IRI.',
      );
    else if (paginated)
      responses['400'] = this.errorResponse('Invalid pagination parameter (a page below 1, a negative page size…).');
    if (notFoundPossible(op, this.api)) responses['404'] = this.errorResponse(`${name} resource not found.`);
    if (op.method === 'DELETE' && mayRestrict(this.api, op.resource))
      responses['409'] = this.errorResponse(
        `The ${name} is referenced by other items through a relation whose onDelete is restrict (perhaps reached by a cascade): nothing was deleted.`,
      );
    if (bodyRead)
      responses['413'] = this.errorResponse(
        `The request body is larger than ${this.api.settings.bodySizeLimit} bytes.`,
      );
    if (op.method === 'QUERY') {
      responses['415'] = this.errorResponse('No Content-Type, or one that is neither JSON nor a form.', {
        'Accept-Query': {
          description: 'The media types a QUERY body may have.',
          schema: { type: 'string', const: 'application/x-www-form-urlencoded, application/json' },
        },
      });
    } else if (patchDisabled)
      responses['415'] = this.errorResponse(
        'PATCH is not enabled: the patch_formats setting is empty, so every PATCH answers 415.',
      );
    else if (bodyRead) responses['415'] = this.errorResponse('Missing or unsupported Content-Type.');
    if (bodyRead && takesBody(op.method) && optionValue(op, this.api.settings, 'validate') !== false)
      responses['422'] = this.violationResponse();
    if (isGuarded(op, this.api.settings)) {
      responses['401'] = this.errorResponse(
        'Not authenticated: the request has no credentials (and a security rule denies it) or invalid ones.',
        {
          'WWW-Authenticate': {
            description: '`Bearer`, or `Bearer error="invalid_token"` for invalid credentials.',
            schema: { type: 'string' },
          },
        },
      );
      responses['403'] = this.errorResponse(
        'Access denied: a security rule of this operation denies the authenticated user.',
      );
    }
    const limit = rateLimitOf(op, this.api.settings);
    if (limit) responses['429'] = this.tooManyRequests(limit);
    return responses;
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
      responses: this.responses(op),
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
