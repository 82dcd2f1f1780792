/**
 * Cache tags (docs/behaviour.md, "HTTP cache"): the IRIs a GET response shows, and the IRIs a write touches.
 * A response shows what its own items hold and the related items it embeds, so:
 * - a collection page is tagged with its own IRI, its resource's collection IRI (every collection of the
 *   resource, sub-resource ones included, carries it), the collection IRIs of the resources its URI variables
 *   are read from (`/authors/{id}/books` depends on the author), and, in the tags header, each member's IRI;
 * - an item response with its IRI, the item's canonical IRI and the same linked collection IRIs;
 * - a JSON:API compound document also with its included items' IRIs and their resources' collection IRIs;
 * - a response that embeds related items (pipeline/representation/embedding.ts) also with the IRIs of those it
 *   looked up, found or not (API Platform tags the embedded items' IRIs), or, a streamed collection's (written
 *   before they are read), the collection IRIs of every resource it may embed;
 * - a write touches the item's canonical IRI, its resource's collection IRI and the IRIs its relations hold
 *   (as API Platform purges the related items).
 */
import type { ResourceMetadata } from '../metadata/types.js';
import { uriBindings } from '../pipeline/relations/links.js';
import { isItem, type OperationState } from '../pipeline/state.js';
import type { Item } from '../store/types.js';
import { iriPath, itemIri, itemOperation } from '../protocol/iri.js';

/** The IRI of a rendered member text (pipeline/representation/rendering.ts: it starts with its `@id`). */
const MEMBER_ID = /^\{"@id":("(?:[^"\\]|\\.)*")/;

/** A tag every page of a resource carries in the in-process cache (not an IRI: never sent), dropped when the whole collection is cleared. */
export const resourceTag = (resource: ResourceMetadata): string => `apidsl:${resource.shortName}`;

/**
 * The tags of a GET response. `header`: for the tags header, with each member's IRI; else for the in-process
 * cache, which needs no member IRIs (every write touches its collection's IRI) but the resource's own tag.
 */
export function responseTags(state: OperationState, header: boolean): string[] {
  const op = state.operation;
  const resource = op.resource;
  const tags = new Set<string>(linkedCollections(state));
  if (!header) tags.add(resourceTag(resource));
  if (op.isCollection) {
    tags.add(state.collectionIri);
    tags.add(resource.collectionPath);
    if (header && state.page) {
      for (const item of state.page.items) {
        if (typeof item === 'string') {
          const id = MEMBER_ID.exec(item);
          if (id) tags.add(JSON.parse(id[1]) as string);
        } else if (isItem(item) && resource.identifier) tags.add(canonicalIri(resource, item));
      }
    }
  } else if (isItem(state.data)) {
    // Tags are paths, as writes name them, whatever urlGenerationStrategy wrote the IRI.
    if (state.iri) tags.add(iriPath(state.iri, state.path)); // written relative to the request under REL_PATH
    // Without an identifier an item has no IRI of its own: any write to the resource touches it.
    tags.add(resource.identifier ? canonicalIri(resource, state.data) : resource.collectionPath);
  }
  // A JSON:API compound document shows its included items too: a write to any of them touches it.
  for (const included of state.included ?? []) {
    tags.add(included.iri);
    tags.add(included.resource.collectionPath);
  }
  // Embedded items: a write to any of them (or the creation of one that was missing) touches it.
  if (state.embedded) {
    for (const iri of state.embedded.iris) tags.add(iri);
    for (const target of state.embedded.streamedTargets ?? []) tags.add(target.collectionPath);
  }
  return [...tags];
}

/** The tags a write of `item` touches (saved or removed). */
export function writeTags(resource: ResourceMetadata, item: Item): string[] {
  const tags = new Set<string>([resource.collectionPath]);
  if (resource.identifier) tags.add(canonicalIri(resource, item));
  for (const p of resource.properties) {
    if (!p.relation) continue;
    const value = item[p.name];
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') tags.add(v);
  }
  return [...tags];
}

const canonicalIri = (resource: ResourceMetadata, item: Item): string =>
  itemIri(resource, item, itemOperation(resource));

function linkedCollections(state: OperationState): string[] {
  const tags: string[] = [];
  for (const binding of uriBindings(state.api, state.operation))
    if ('from' in binding) tags.push(binding.from.collectionPath);
  return tags;
}
