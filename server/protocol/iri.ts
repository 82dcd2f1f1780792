/**
 * IRIs (docs/behaviour.md, "Operations and routes"): the first item Get of a resource builds
 * its item IRIs (or the operation an `itemUriTemplate` names, or the operation that served
 * the item), the hidden item route when it has none, and `/.well-known/genid/…` when the
 * resource has no identifier. Resolving an IRI back to its resource validates relations.
 */
import { randomBytes } from 'node:crypto';
import { GENID_PATH } from '../metadata/load-operation.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Item } from '../store/types.js';
import { routeIdentifier } from './identifier.js';
import { itemOperation } from '../metadata/item-iris.js';

export { itemOperation };

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

/**
 * The path of a request an adapter without URLs makes (GraphQL, MCP): the route template with each variable's
 * value encoded, '' for a missing one.
 */
export function filledPath(template: string, values: Readonly<Record<string, string>>): string {
  let path = '';
  for (const part of partsOf(template))
    path += typeof part === 'string' ? part : encodeURIComponent(values[part.name] ?? '');
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
  variables: Readonly<Record<string, string>>;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The absolute path of an IRI written as an absolute URL (`http://host/books/1`) or a network path
 * (`//host/books/1`), the form IRIs are stored and compared in (urlGenerationStrategy, url-generation.ts).
 * With a `base` (the request's path), a relative reference (`../authors/2`) is resolved against it (RFC 3986).
 */
export function iriPath(iri: string, base?: string): string {
  if (base !== undefined && !iri.startsWith('/') && !SCHEME.test(iri)) {
    const resolved = new URL(iri, `http://base${base.startsWith('/') ? base : `/${base}`}`);
    return resolved.pathname + resolved.search;
  }
  return iri.replace(/^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/]*/i, '');
}

/**
 * `target` (an absolute path, perhaps with a query) relative to the request path `base`, as Symfony's
 * UrlGenerator writes REL_PATH: `/books/1` from `/books` is `books/1`, `/authors/2` from `/books/1` is
 * `../authors/2`. A target whose path is the base's keeps its last segment (`1` from `/books/1`) where
 * Symfony writes an empty reference, which a client would resolve to the request URL, query included.
 */
export function relativePath(base: string, target: string): string {
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const query = queryAt < 0 ? '' : target.slice(queryAt);
  const from = base.split('/').slice(1, -1); // the base's directories
  const to = path.split('/').slice(1);
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  const relative = '../'.repeat(from.length - common) + to.slice(common).join('/');
  // "./" where the reference would otherwise be empty, absolute, or read as a scheme (`a:b/c`).
  const slash = relative.indexOf('/');
  const colon = relative.indexOf(':');
  const prefixed =
    relative === '' || relative.startsWith('/') || (colon >= 0 && (slash < 0 || colon < slash))
      ? `./${relative}`
      : relative;
  return prefixed + query;
}

/** The item routes of the API, as the patterns IRIs are matched against. */
function compiledRoutes(api: ApiMetadata): CompiledRoute[] {
  return api.resources.flatMap((resource) =>
    resource.operations
      .filter((o) => o.method === 'GET' && !o.isCollection && o.path !== GENID_PATH)
      .map((o) => ({
        resource,
        names: placeholderNames(o.path),
        regex: new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^{}]+\\?\}/g, '([^/]+)')}$`),
      })),
  );
}

/** How many IRIs a resolver keeps the match of (then it starts afresh): bounded memory whatever clients send. */
const MATCHES_KEPT = 10_000;

/** Resolves IRIs (`/books/1`) to the resource whose item routes they match. */
export class IriResolver {
  private readonly routes: CompiledRoute[];
  private readonly matched = new Map<string, Readonly<IriMatch> | undefined>();

  /** `base`: the request path relative references are read against (`at`). */
  constructor(
    api: ApiMetadata | CompiledRoute[],
    private readonly base?: string,
  ) {
    this.routes = Array.isArray(api) ? api : compiledRoutes(api);
  }

  /** The same resolver reading relative references against the request path `base` (REL_PATH). */
  at(base: string): IriResolver {
    return new IriResolver(this.routes, base);
  }

  /** The identifier of the item of `resource` an IRI names (as a route reads it); undefined when it names none. */
  identifierOf(resource: ResourceMetadata, iri: string): number | string | undefined {
    const match = this.match(iri);
    const id = resource.identifier;
    if (!match || match.resource !== resource || !id) return undefined;
    return routeIdentifier(resource, match.variables[id.name] ?? '');
  }

  resourceOf(iri: string): string | undefined {
    return this.match(iri)?.resource.shortName;
  }

  /** The absolute path an IRI names (a path, a URL, or a relative reference when read `at` a base). */
  path(iri: string): string {
    return iriPath(iri, this.base);
  }

  /**
   * The resource and route variables of an item IRI (a path, or a URL whose path is one). Answers are kept (frozen)
   * for IRIs read without a base: a page's relations name the same few IRIs request after request, and matching
   * one against every route costs more than the rest of reading it.
   */
  match(iri: string): IriMatch | undefined {
    if (this.base !== undefined) return this.matchRoutes(iri);
    let match = this.matched.get(iri);
    if (match === undefined && !this.matched.has(iri)) {
      match = this.matchRoutes(iri);
      if (match) Object.freeze(match.variables);
      if (this.matched.size >= MATCHES_KEPT) this.matched.clear();
      this.matched.set(iri, match);
    }
    return match;
  }

  private matchRoutes(iri: string): IriMatch | undefined {
    const path = this.path(iri);
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
