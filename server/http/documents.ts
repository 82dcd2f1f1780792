/**
 * The JSON-LD documents around the resources: the entrypoint (`/`) and the contexts
 * (`/contexts/{Name}`). Contexts map every key we serve, the Hydra collection terms included
 * (API Platform leaves `member`, `view`… unmapped; one of our deliberate
 * differences, docs/behaviour.md), and point `@vocab` at our own documentation on the request's host.
 */
import { LABEL_IRI, labelProperty } from '../metadata/label-property.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';

const HYDRA = 'http://www.w3.org/ns/hydra/core#';

const HYDRA_TERMS: Record<string, unknown> = {
  Collection: 'hydra:Collection',
  PartialCollectionView: 'hydra:PartialCollectionView',
  IriTemplate: 'hydra:IriTemplate',
  IriTemplateMapping: 'hydra:IriTemplateMapping',
  member: { '@id': 'hydra:member', '@type': '@id' },
  totalItems: 'hydra:totalItems',
  view: { '@id': 'hydra:view', '@type': '@id' },
  first: { '@id': 'hydra:first', '@type': '@id' },
  last: { '@id': 'hydra:last', '@type': '@id' },
  previous: { '@id': 'hydra:previous', '@type': '@id' },
  next: { '@id': 'hydra:next', '@type': '@id' },
  search: 'hydra:search',
  // The prefixed forms (`hydra_prefix: true`) need the same link typing as the bare ones.
  'hydra:member': { '@type': '@id' },
  'hydra:view': { '@type': '@id' },
  'hydra:first': { '@type': '@id' },
  'hydra:last': { '@type': '@id' },
  'hydra:previous': { '@type': '@id' },
  'hydra:next': { '@type': '@id' },
  template: 'hydra:template',
  variableRepresentation: 'hydra:variableRepresentation',
  mapping: 'hydra:mapping',
  variable: 'hydra:variable',
  property: 'hydra:property',
  required: 'hydra:required',
};

const lcfirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** The first visible GetCollection path of a resource without placeholders, if any. */
/**
 * The collection operation the entrypoint links to: the visible GetCollection at the resource's collection path,
 * else the first visible one without URI variables (a named collection at another path is not the resource's list).
 */
export function entrypointCollection(resource: ResourceMetadata): OperationMetadata | undefined {
  const visible = resource.operations.filter((o) => o.kind === 'GetCollection' && !o.hidden);
  return visible.find((o) => o.path === resource.collectionPath) ?? visible.find((o) => !o.path.includes('{'));
}

const collectionPathOf = (resource: ResourceMetadata): string | undefined => entrypointCollection(resource)?.path;

export function entrypoint(api: ApiMetadata): Record<string, unknown> {
  const links: [string, string][] = [];
  for (const r of api.resources) {
    const path = collectionPathOf(r);
    if (path) links.push([lcfirst(r.shortName), path]);
  }
  links.sort(([a], [b]) => (a < b ? -1 : Number(a > b)));
  return { '@context': '/contexts/Entrypoint', '@id': '/', '@type': 'Entrypoint', ...Object.fromEntries(links) };
}

/** The context documents by name, for a request whose origin is `origin`. */
export function contextDocument(api: ApiMetadata, name: string, origin: string): Record<string, unknown> | undefined {
  const base = { '@vocab': `${origin}/docs.jsonld#`, hydra: HYDRA };
  if (name === 'Entrypoint') {
    const terms = Object.fromEntries(
      api.resources
        .filter(collectionPathOf)
        .map((r) => [lcfirst(r.shortName), { '@id': `Entrypoint/${lcfirst(r.shortName)}`, '@type': '@id' }]),
    );
    // `Entrypoint` itself is left to @vocab: it names the documentation's own #Entrypoint class.
    return { '@context': { ...base, ...terms } };
  }
  if (name === 'Error' || name === 'ConstraintViolation') {
    return { '@context': { ...base, Error: 'hydra:Error', title: 'hydra:title', description: 'hydra:description' } };
  }
  // An operation's own shortName types what it returns: its context is the resource's, under that name.
  const resource =
    api.resource(name) ?? api.resources.find((r) => r.operations.some((o) => !o.hidden && o.shortName === name));
  if (!resource) return undefined;
  const label = labelProperty(api, resource);
  const term = (p: PropertyMetadata): unknown => {
    if (p.relation) return { '@id': `${name}/${p.name}`, '@type': '@id' };
    return p === label ? LABEL_IRI : `${name}/${p.name}`;
  };
  const props = Object.fromEntries(resource.properties.filter((p) => !p.writeOnly).map((p) => [p.name, term(p)]));
  return { '@context': { ...base, ...HYDRA_TERMS, ...props } };
}
