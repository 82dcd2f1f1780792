/**
 * IRIs (docs/behaviour.md, "Operations and routes"): the first item Get of a resource builds
 * its item IRIs (or the operation an `itemUriTemplate` names, or the operation that served
 * the item), the hidden item route when it has none, and `/.well-known/genid/…` when the
 * resource has no identifier. Resolving an IRI back to its resource validates relations.
 */
import { randomBytes } from 'node:crypto';
import { GENID_PATH } from '../metadata/load.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Item } from '../store/types.js';

const itemOperations = new WeakMap<ResourceMetadata, OperationMetadata | null>();

/** The operation whose route builds a resource's item IRIs (the first item Get). */
export function itemOperation(resource: ResourceMetadata): OperationMetadata | undefined {
  let op = itemOperations.get(resource);
  if (op === undefined) {
    op = resource.operations.find((o) => o.method === 'GET' && !o.isCollection && o.path !== GENID_PATH) ?? null;
    itemOperations.set(resource, op);
  }
  return op ?? undefined;
}

type Part = string | { name: string };

const placeholderNames = (template: string): string[] => [...template.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]);
const compiled = new Map<string, Part[]>();

/** A route template split once into literal text and placeholders. */
function partsOf(template: string): Part[] {
  let parts = compiled.get(template);
  if (!parts) {
    parts = template
      .split(/(\{[^{}]+\})/)
      .filter((p) => p !== '')
      .map((p) => (p.startsWith('{') ? { name: p.slice(1, -1) } : p));
    compiled.set(template, parts);
  }
  return parts;
}

/** Fills a route template (path segments encoded); undefined when a value is missing. */
export function fillTemplate(template: string, value: (name: string) => unknown): string | undefined {
  let path = '';
  for (const part of partsOf(template)) {
    if (typeof part === 'string') path += part;
    else {
      const v = value(part.name);
      if (v === undefined || v === null || v === '') return undefined;
      path += encodeURIComponent(String(v));
    }
  }
  return path;
}

export const fromRecord =
  (values: Record<string, unknown>) =>
  (name: string): unknown =>
    values[name];

export function itemIri(
  resource: ResourceMetadata,
  item: Item,
  via?: OperationMetadata,
  uriVariables: Record<string, unknown> = {},
): string {
  if (!resource.identifier) return `/.well-known/genid/${randomBytes(10).toString('hex')}`;
  const idName = resource.identifier.name;
  const template = via?.path ?? itemOperation(resource)?.path ?? resource.itemPath!;
  // Placeholders other than the identifier take the item's property of the same name, else the
  // value the request had in its own path (`/places/{placeId}/weather`).
  const value = (name: string): unknown => (name === idName ? item[idName] : (item[name] ?? uriVariables[name]));
  // An item not stored yet (dispatched to the message bus) has no identifier: a blank-node IRI, as without one.
  return (
    fillTemplate(template, value) ??
    fillTemplate(resource.itemPath!, value) ??
    `/.well-known/genid/${randomBytes(10).toString('hex')}`
  );
}

interface CompiledRoute {
  regex: RegExp;
  resource: ResourceMetadata;
  /** The route's placeholders, in the order of the regex's groups. */
  names: string[];
}

/** The resource an IRI names and the values of its route's placeholders. */
export interface IriMatch {
  resource: ResourceMetadata;
  variables: Record<string, string>;
}

/**
 * The absolute path of an IRI written as an absolute URL (`http://host/books/1`) or a network path
 * (`//host/books/1`), the form IRIs are stored and compared in (urlGenerationStrategy, url-generation.ts).
 */
export const iriPath = (iri: string): string => iri.replace(/^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/]*/i, '');

/** Resolves IRIs (`/books/1`) to the resource whose item routes they match. */
export class IriResolver {
  private readonly routes: CompiledRoute[];

  constructor(api: ApiMetadata) {
    this.routes = api.resources.flatMap((resource) =>
      resource.operations
        .filter((o) => o.method === 'GET' && !o.isCollection && o.path !== GENID_PATH)
        .map((o) => ({
          resource,
          names: placeholderNames(o.path),
          regex: new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^{}]+\\?\}/g, '([^/]+)')}$`),
        })),
    );
  }

  resourceOf(iri: string): string | undefined {
    return this.match(iri)?.resource.shortName;
  }

  /** The resource and route variables of an item IRI (a path, or a URL whose path is one). */
  match(iri: string): IriMatch | undefined {
    const path = iriPath(iri);
    for (const route of this.routes) {
      const found = route.regex.exec(path);
      if (!found) continue;
      const variables: Record<string, string> = {};
      try {
        route.names.forEach((name, i) => (variables[name] = decodeURIComponent(found[i + 1])));
      } catch {
        return undefined; // a malformed %-escape names no item
      }
      return { resource: route.resource, variables };
    }
    return undefined;
  }
}

/** The API's IRI resolver, made once. */
const resolvers = new WeakMap<ApiMetadata, IriResolver>();
export function iriResolver(api: ApiMetadata): IriResolver {
  let r = resolvers.get(api);
  if (!r) resolvers.set(api, (r = new IriResolver(api)));
  return r;
}
