/**
 * Owned items (docs/behaviour.md, "Owned items"): a to-many relation declared `owned: true` (Doctrine's
 * orphanRemoval) lists items that belong to the item listing them. Another item may not list them (an IRI or
 * `@id` of an item owned elsewhere is refused as an unknown IRI is, so that its existence does not show); an
 * item dropped from the list by an update is deleted (writes/persist.ts), and deleting the owner deletes them
 * (referential-actions.ts). What is read here only reads: the writes are the callers'.
 */
import { iriResolver } from '../../protocol/iri.js';
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Collection, Id, Item } from '../../store/types.js';

/** An owned relation: the owner's resource and its property listing the owned items. */
export interface Ownership {
  owner: ResourceMetadata;
  property: PropertyMetadata;
}

/** The item asking (the owner being written), to tell its own items from another's. */
export interface OwnerItem {
  resource: ResourceMetadata;
  /** Undefined for an item not stored yet (a POST): every owner is another then. */
  id: Id | undefined;
}

const byTarget = new WeakMap<ApiMetadata, Map<ResourceMetadata, Ownership[]>>();

/** The owned relations whose items are of `target`, across the API (computed once per API). */
export function ownershipsOf(api: ApiMetadata, target: ResourceMetadata): Ownership[] {
  let map = byTarget.get(api);
  if (!map) {
    map = new Map();
    for (const owner of api.resources) {
      for (const property of owner.properties) {
        const to = property.owned && property.relation ? api.resource(property.relation) : undefined;
        if (to) map.set(to, [...(map.get(to) ?? []), { owner, property }]);
      }
    }
    byTarget.set(api, map);
  }
  return map.get(target) ?? [];
}

/** The IRIs a relation's value holds. */
export const listedIris = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');

/** Whether an item other than `self` lists the item `iri` of `target` in an owned relation. */
export async function ownedElsewhere(
  api: ApiMetadata,
  collectionOf: (resource: ResourceMetadata) => Collection,
  target: ResourceMetadata,
  iri: string,
  self: OwnerItem | undefined,
): Promise<boolean> {
  for (const { owner, property } of ownershipsOf(api, target)) {
    const idName = owner.identifier?.name;
    // On a to-many field `in` matches element-wise (an index lookup on both stores).
    const found = await collectionOf(owner).find({
      where: [{ op: 'in', field: property.name, values: [iri] }],
      limit: 2,
    });
    const isSelf = (o: Item): boolean =>
      self?.resource === owner && self.id !== undefined && idName !== undefined && o[idName] === self.id;
    if (found.some((o) => !isSelf(o))) return true;
  }
  return false;
}

/** The IRIs an update of `resource` drops from its owned relations, with the resource of their items. */
export function droppedOwned(
  api: ApiMetadata,
  resource: ResourceMetadata,
  saved: Item,
  previous: Item,
): { target: ResourceMetadata; iri: string }[] {
  const out: { target: ResourceMetadata; iri: string }[] = [];
  for (const property of resource.properties) {
    const target = property.owned && property.relation ? api.resource(property.relation) : undefined;
    if (!target) continue;
    const kept = new Set(listedIris(saved[property.name]));
    for (const iri of listedIris(previous[property.name])) if (!kept.has(iri)) out.push({ target, iri });
  }
  return out;
}

/** The stored items the item's owned relations list, by resource (one query per relation). */
export async function ownedItems(
  api: ApiMetadata,
  collectionOf: (resource: ResourceMetadata) => Collection,
  resource: ResourceMetadata,
  item: Item,
): Promise<{ resource: ResourceMetadata; item: Item }[]> {
  const iris = iriResolver(api);
  const out: { resource: ResourceMetadata; item: Item }[] = [];
  for (const property of resource.properties) {
    const target = property.owned && property.relation ? api.resource(property.relation) : undefined;
    if (!target?.identifier) continue;
    const ids = listedIris(item[property.name])
      .map((iri) => iris.identifierOf(target, iri))
      .filter((id): id is Id => id !== undefined);
    if (ids.length === 0) continue;
    for (const found of await collectionOf(target).getMany(ids)) out.push({ resource: target, item: found });
  }
  return out;
}
