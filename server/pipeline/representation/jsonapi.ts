/**
 * JSON:API 1.1 documents (docs/behaviour.md, "JSON:API"), served when the `jsonapi` format is
 * configured (`formats { jsonapi: ["application/vnd.api+json"] }`), as API Platform shapes them:
 * - a resource object's `id` is the item's IRI and `type` its short name; relations are
 *   `relationships` holding resource identifiers, the other shown properties `attributes`. A member
 *   name must start with a letter or digit in JSON:API 1.1, so the identifier (already in the IRI)
 *   and properties whose names JSON:API reserves or forbids (`type`, `links`, `_note`) are not
 *   attributes (API Platform's `_id`, `_type` would make the document invalid);
 * - a collection has `links` (`self`, and `first`, `last`, `prev`, `next` when paginated) and
 *   `meta` (`totalItems`, `itemsPerPage`, `currentPage`);
 * - errors are `{ errors: [...] }` error objects, a violation pointing at its attribute;
 * - a request body is a document whose `data` holds `attributes` and `relationships`: it is turned
 *   into the plain JSON object the rest of the pipeline reads.
 */
import { badRequest, type HttpError, type Violation } from '../../protocol/errors.js';
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import type { RelationOutput } from './normalize.js';

export const JSONAPI_FORMAT = 'jsonapi';
export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

/** Member names an attribute may not take in JSON:API 1.1: reserved ones, and those not starting and ending alphanumerically. */
const RESERVED = new Set(['id', 'type', 'links', 'relationships', 'included']);
const MEMBER_NAME = /^[a-zA-Z0-9](?:[-\w]*[a-zA-Z0-9])?$/;
export const isAttributeName = (name: string): boolean => !RESERVED.has(name) && MEMBER_NAME.test(name);

export type JsonApiResource = {
  id: string;
  type: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, unknown>;
};

/** One item as a JSON:API resource object, with the properties the operation shows. */
export function resourceObject(
  api: ApiMetadata,
  resource: ResourceMetadata,
  item: Item,
  iri: string,
  shown: readonly PropertyMetadata[],
  relation?: RelationOutput,
): JsonApiResource {
  const attributes: Record<string, unknown> = {};
  const relationships: Record<string, unknown> = {};
  const properties =
    resource.properties.length > 0 ? shown : Object.keys(item).map((name) => ({ name }) as PropertyMetadata);
  for (const p of properties) {
    const value = p.relation && relation && item[p.name] != null ? relation(p, item[p.name]) : item[p.name];
    if (p.relation) {
      const type = api.resource(p.relation)?.shortName ?? p.relation;
      const identifier = (id: unknown) => ({ type, id: String(id) });
      if (p.array)
        relationships[p.name] = { data: Array.isArray(value) ? [...new Set(value.map(String))].map(identifier) : [] };
      else relationships[p.name] = { data: value === undefined || value === null ? null : identifier(value) };
    } else if (value !== undefined && value !== null && !p.identifier && isAttributeName(p.name)) {
      attributes[p.name] = value;
    }
  }
  const out: JsonApiResource = { id: iri, type: resource.shortName };
  if (Object.keys(attributes).length > 0) out.attributes = attributes;
  if (Object.keys(relationships).length > 0) out.relationships = relationships;
  return out;
}

/** The `links` and `meta` of a collection document, from the Hydra view's links. */
export function collectionEnvelope(
  selfIri: string,
  view: Record<string, unknown> | undefined,
  meta: { totalItems?: number; itemsPerPage?: number; currentPage?: number },
): Record<string, unknown> {
  const links: Record<string, unknown> = { self: typeof view?.['@id'] === 'string' ? view['@id'] : selfIri };
  for (const key of ['first', 'last', 'prev', 'next']) if (typeof view?.[key] === 'string') links[key] = view[key];
  const metaOut = Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined));
  return Object.keys(metaOut).length > 0 ? { links, meta: metaOut } : { links };
}

/** The Hydra view keys under their JSON:API names, for pageView(). */
export const JSONAPI_VIEW_KEYS = {
  viewType: 'PartialCollectionView',
  first: 'first',
  last: 'last',
  previous: 'prev',
  next: 'next',
};

/** An error as a JSON:API error document; violations become one error object each, pointing at their attribute. */
export function errorDocument(error: HttpError): Record<string, unknown> {
  const violations = error.options.violations as Violation[] | undefined;
  if (violations) {
    return {
      errors: violations.map((v) => ({
        status: String(error.status),
        title: 'An error occurred',
        detail: v.message,
        ...(v.code ? { code: v.code } : {}),
        source: { pointer: v.propertyPath === '' ? '/data' : `/data/attributes/${pointerSegment(v.propertyPath)}` },
      })),
    };
  }
  const title = error.options.title ?? 'An error occurred';
  return { errors: [{ status: String(error.status), title, detail: error.detail }] };
}

/** `tags[1]` → `tags/1`, each segment escaped as RFC 6901 asks. */
const pointerSegment = (path: string): string =>
  path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/');

/**
 * A JSON:API request document as the plain object the denormalizer reads: attributes under their
 * property names, relationships as IRIs (a resource identifier's `id` is the IRI). Attribute names that
 * JSON:API forbids (`id`, `type`, …) are left out, and added to `dropped` when given (allow_extra_attributes).
 */
export function requestBody(resource: ResourceMetadata, body: unknown, dropped?: string[]): Record<string, unknown> {
  const data = isObject(body) ? body.data : undefined;
  if (!isObject(data)) throw badRequest('The request body must be a JSON:API document with a "data" object.');
  if (data.type !== undefined && data.type !== resource.shortName) {
    throw badRequest(`The type "${String(data.type)}" of the resource object does not match "${resource.shortName}".`);
  }
  const out: Record<string, unknown> = {};
  if (data.attributes !== undefined) {
    if (!isObject(data.attributes)) throw badRequest('The "attributes" member must be an object.');
    for (const [name, value] of Object.entries(data.attributes)) {
      if (isAttributeName(name)) out[name] = value;
      else dropped?.push(name);
    }
  }
  if (data.relationships !== undefined) {
    if (!isObject(data.relationships)) throw badRequest('The "relationships" member must be an object.');
    for (const [name, relationship] of Object.entries(data.relationships)) {
      if (!isObject(relationship) || !('data' in relationship))
        throw badRequest(`The relationship "${name}" must have a "data" member.`);
      out[name] = linkage(name, relationship.data);
    }
  }
  return out;
}

function linkage(name: string, data: unknown): unknown {
  if (data === null) return null;
  if (Array.isArray(data)) return data.map((d) => linkage(name, d));
  if (!isObject(data) || typeof data.id !== 'string')
    throw badRequest(`The relationship "${name}" must hold resource identifiers with a string "id".`);
  return data.id;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
