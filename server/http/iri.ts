/**
 * IRIs (the seed's rule 6, reference-behaviour §6.3): the first item Get of a resource builds
 * its item IRIs (or the operation an `itemUriTemplate` names, or the operation that served
 * the item), the hidden item route when it has none, and `/.well-known/genid/…` when the
 * resource has no identifier. Resolving an IRI back to its resource validates relations.
 */
import { randomBytes } from 'node:crypto';
import { GENID_PATH } from '../metadata/load.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Item } from '../store/types.js';

/** The operation whose route builds a resource's item IRIs. */
export function itemOperation(resource: ResourceMetadata): OperationMetadata | undefined {
  return resource.operations.find((o) => o.method === 'GET' && !o.collection && o.path !== GENID_PATH);
}

/** Fills a route template from values (path segments encoded); undefined when one is missing. */
export function fillTemplate(template: string, values: Record<string, unknown>): string | undefined {
  let missing = false;
  const path = template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined || v === null || v === '') missing = true;
    return encodeURIComponent(String(v));
  });
  return missing ? undefined : path;
}

export function itemIri(resource: ResourceMetadata, item: Item, via?: OperationMetadata, uriVariables: Record<string, unknown> = {}): string {
  if (!resource.identifier) return `/.well-known/genid/${randomBytes(10).toString('hex')}`;
  const id = item[resource.identifier.name];
  const template = via?.path ?? itemOperation(resource)?.path ?? resource.itemPath!;
  // Placeholders other than the identifier take the item's property of the same name, else the
  // value the request had in its own path (`/places/{placeId}/weather`).
  const values = { ...uriVariables, ...item, [resource.identifier.name]: id };
  return fillTemplate(template, values) ?? fillTemplate(resource.itemPath!, values) ?? resource.itemPath!;
}

interface CompiledRoute {
  regex: RegExp;
  resource: ResourceMetadata;
}

/** Resolves IRIs (`/books/1`) to the resource whose item routes they match. */
export class IriResolver {
  private readonly routes: CompiledRoute[];

  constructor(api: ApiMetadata) {
    this.routes = api.resources.flatMap((resource) =>
      resource.operations
        .filter((o) => o.method === 'GET' && !o.collection && o.path !== GENID_PATH)
        .map((o) => ({ resource, regex: new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^{}]+\\?\}/g, '[^/]+')}$`) })),
    );
  }

  resourceOf(iri: string): string | undefined {
    const path = iri.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+/i, '');
    return this.routes.find((r) => r.regex.test(path))?.resource.shortName;
  }
}
