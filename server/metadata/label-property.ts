/**
 * The label of a resource that relations point to: the property a client shows for an item it refers to (API
 * Platform Admin lists and picks related items by it). The Hydra documentation and the JSON-LD context give it
 * schema.org's `name` as its IRI, which is how such clients find it (docs/admin.md, "References").
 */
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from './types.js';

/** Preferred names, in order; else the first required string property, else the first string property. */
const LABEL_NAMES = ['name', 'title', 'label'];

/** The IRI of the label property. */
export const LABEL_IRI = 'https://schema.org/name';

export function labelProperty(api: ApiMetadata, resource: ResourceMetadata): PropertyMetadata | undefined {
  if (!api.resources.some((r) => r.properties.some((p) => p.relation === resource.shortName))) return undefined;
  // Plain strings every reader may see: not an identifier, a list, a relation, write-only or guarded.
  const candidates = resource.properties.filter(
    (p) => p.type === 'string' && !p.array && !p.identifier && !p.relation && !p.writeOnly && !p.security,
  );
  for (const name of LABEL_NAMES) {
    const named = candidates.find((p) => p.name === name);
    if (named) return named;
  }
  return candidates.find((p) => p.required) ?? candidates[0];
}
