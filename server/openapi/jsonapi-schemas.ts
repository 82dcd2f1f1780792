/**
 * The JSON:API shapes of the OpenAPI document (`application/vnd.api+json`), built from a resource's plain
 * schema exactly as pipeline/representation/jsonapi.ts builds its documents: relations become `relationships` of resource
 * identifiers, the other properties JSON:API may name `attributes`, the identifier only the IRI `id`.
 */
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import { isAttributeName } from '../pipeline/representation/jsonapi.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';
import { iri, responseIriExample } from './examples.js';

const ANY_OBJECT: JsonSchema = { type: 'object' };

/** The resource object of `schema`'s properties: with `id` and `type` in responses, `id` optional in requests. */
export function jsonApiResourceObject(
  api: ApiMetadata,
  resource: ResourceMetadata,
  schema: JsonSchema,
  direction: 'output' | 'input',
): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const attributes: Record<string, JsonSchema> = {};
  const relationships: Record<string, JsonSchema> = {};
  for (const p of resource.properties) {
    if (!(p.name in properties)) continue;
    if (p.relation) {
      const target = api.resource(p.relation);
      const identifier: JsonSchema = {
        type: 'object',
        required: ['type', 'id'],
        properties: {
          type: { type: 'string', enum: [target?.shortName ?? p.relation] },
          id: iri(target && responseIriExample(target)),
        },
      };
      const data = p.array ? { type: 'array', items: identifier } : { anyOf: [identifier, { type: 'null' }] };
      relationships[p.name] = { type: 'object', required: ['data'], properties: { data } };
    } else if (!p.identifier && isAttributeName(p.name)) {
      attributes[p.name] = properties[p.name];
    }
  }
  return {
    type: 'object',
    required: direction === 'output' ? ['id', 'type'] : ['type'],
    properties: {
      id: iri(responseIriExample(resource)),
      type: { type: 'string', enum: [resource.shortName] },
      ...(Object.keys(attributes).length > 0 ? { attributes: { type: 'object', properties: attributes } } : {}),
      ...(Object.keys(relationships).length > 0
        ? { relationships: { type: 'object', properties: relationships } }
        : {}),
    },
  };
}

/**
 * A document whose primary data is `object`, or, given the IRIs of a collection's pages, a list of them with the
 * collection's links and meta.
 */
export function jsonApiDocument(object: JsonSchema, pages?: (page: number) => string): JsonSchema {
  if (!pages)
    return {
      type: 'object',
      required: ['data'],
      properties: { data: object, included: { type: 'array', items: ANY_OBJECT } },
    };
  const link = (page: number): JsonSchema => ({ type: 'string', format: 'uri-reference', examples: [pages(page)] });
  return {
    type: 'object',
    required: ['data', 'links'],
    properties: {
      data: { type: 'array', items: object },
      links: {
        type: 'object',
        required: ['self'],
        properties: { self: link(2), first: link(1), last: link(5), prev: link(1), next: link(3) },
      },
      meta: {
        type: 'object',
        properties: {
          totalItems: { type: 'integer' },
          itemsPerPage: { type: 'integer' },
          currentPage: { type: 'integer' },
        },
      },
      included: { type: 'array', items: ANY_OBJECT },
    },
  };
}

/** The error document: one error object per error (per violation for a 422, pointing at its attribute). */
export const JSONAPI_ERRORS: JsonSchema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          status: { type: 'string' },
          title: { type: 'string' },
          detail: { type: 'string' },
          code: { type: 'string' },
          source: { type: 'object', properties: { pointer: { type: 'string' } } },
        },
      },
    },
  },
};
