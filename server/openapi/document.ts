/**
 * The OpenAPI document of an API (3.2 by default, or 3.1), built from the runtime metadata:
 * one operation per visible operation (hidden IRI routes left out), operationIds from the
 * operation names as API Platform derives them, request and response schemas from the
 * properties (the schemas that validate requests), JSON-LD and JSON representations, Hydra
 * collections, the pagination and filter parameters each listing operation honours, error
 * responses, deprecations. QUERY operations go under the path item's `query` field in 3.2;
 * 3.1 has no place for them, so they are left out there and listed in `x-apidsl-omitted`.
 */
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { isGuarded } from '../pipeline/guards.js';
import { deprecationOf, OperationInputsBuilder, type SpecVersion } from './operation-inputs.js';
import { OperationResponses } from './responses.js';
import { joinText, SchemaRegistry } from './schemas.js';

export type { SpecVersion } from './operation-inputs.js';
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
  private readonly inputs: OperationInputsBuilder;
  readonly omitted: OmittedOperation[] = [];
  private readonly ids = new Set<string>();

  constructor(
    private readonly api: ApiMetadata,
    private readonly version: SpecVersion,
    hidden?: ReadonlyMap<string, readonly string[]>,
  ) {
    this.registry = new SchemaRegistry(api, hidden);
    this.responses = new OperationResponses(api, this.registry);
    this.inputs = new OperationInputsBuilder(api, this.registry, version);
  }

  uniqueId(name: string): string {
    const base = operationId(name) || 'operation';
    let id = base;
    for (let i = 2; this.ids.has(id); i++) id = `${base}_${i}`;
    this.ids.add(id);
    return id;
  }

  operation(op: OperationMetadata, id: string): Record<string, unknown> {
    const { summary, description, parameters, body } = this.inputs.inputs(op);
    return {
      operationId: id,
      tags: [op.resource.shortName],
      summary,
      ...(description ? { description } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: this.responses.responses(op),
      ...(this.api.security.jwt && isGuarded(op, this.api.settings) ? { security: [{ [BEARER_SCHEME]: [] }] } : {}),
      ...(deprecationOf(op) ? { deprecated: true } : {}),
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
