/**
 * Row-level scopes and to-many relations (docs/scopes.md, "To-many members"): a list of related items shows a
 * reader only the members in the read scope of their resource's item Get, on every face (the serialize stage leaves
 * the others out); a write that sends such a list back keeps the members its writer could not see.
 */
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import { iriResolver, itemOperation } from '../protocol/iri.js';
import type { Collection, Id, Item } from '../store/types.js';
import { operationScope } from './scopes.js';

/** A to-many relation whose members are read through their resource's read scope. */
export interface ScopedMembers {
  property: PropertyMetadata;
  target: ResourceMetadata;
}

const memberRelations = new WeakMap<ResourceMetadata, readonly ScopedMembers[]>();

/** The to-many relations of `resource` whose target's item Get has a read scope, found once per resource. */
export function scopedMemberRelations(api: ApiMetadata, resource: ResourceMetadata): readonly ScopedMembers[] {
  let found = memberRelations.get(resource);
  if (!found) {
    found = resource.properties.flatMap((property) => {
      const target = property.array && property.relation !== undefined ? api.resource(property.relation) : undefined;
      const get = target && itemOperation(target);
      return target && get && operationScope(get, api)?.read ? [{ property, target }] : [];
    });
    memberRelations.set(resource, found);
  }
  return found;
}

/**
 * The IRIs among the to-many members of `items` (of `resource`) that `collectionOf` does not find: outside the read
 * scope of their resource's item Get for this reader (docs/scopes.md, "To-many members"), or naming nothing. One
 * store query per relation; added to `into`.
 */
export async function unreadableMembers(
  api: ApiMetadata,
  collectionOf: (resource: ResourceMetadata) => Collection,
  resource: ResourceMetadata,
  items: readonly Item[],
  into = new Set<string>(),
): Promise<Set<string>> {
  const iris = iriResolver(api);
  for (const { property, target } of scopedMemberRelations(api, resource)) {
    const named = new Map<string, Id>();
    for (const item of items) {
      const value = item[property.name];
      if (!Array.isArray(value)) continue;
      for (const iri of value) {
        if (typeof iri !== 'string' || named.has(iri) || into.has(iri)) continue;
        const id = iris.identifierOf(target, iri);
        if (id === undefined) into.add(iri);
        else named.set(iri, id);
      }
    }
    if (!named.size) continue;
    const idName = target.identifier!.name;
    const read = await collectionOf(target).getMany([...new Set(named.values())]);
    const found = new Set(read.map((item) => String(item[idName])));
    for (const [iri, id] of named) if (!found.has(String(id))) into.add(iri);
  }
  return into;
}

/**
 * The rule of writes: a to-many list a write sets replaces only the members its writer can see (`collectionOf`
 * finds); the stored members it cannot see stay, after the ones sent. A write that leaves the list as stored
 * changes nothing of it.
 */
export async function keepUnreadableMembers(
  api: ApiMetadata,
  collectionOf: (resource: ResourceMetadata) => Collection,
  resource: ResourceMetadata,
  item: Item,
  previous: Item,
): Promise<void> {
  const relations = scopedMemberRelations(api, resource);
  if (!relations.length) return;
  const hidden = await unreadableMembers(api, collectionOf, resource, [previous]);
  if (!hidden.size) return;
  for (const { property } of relations) {
    const stored = previous[property.name];
    const kept = Array.isArray(stored) ? stored.filter((iri) => typeof iri === 'string' && hidden.has(iri)) : [];
    const value = item[property.name];
    const sent: unknown[] = Array.isArray(value) ? value : [];
    if (kept.length) item[property.name] = [...sent, ...kept.filter((iri) => !sent.includes(iri))];
  }
}

const reaching = new WeakMap<ResourceMetadata, boolean>();

/**
 * Whether the items of `resource` lead, through relations at any depth, to a resource whose item Get has a read
 * scope: what their documents show (members listed, items embedded) may then differ from one reader to the next,
 * so no shared or in-process cache may keep them (http/cached-route.ts, http/cache-headers.ts). Conservative: a
 * relation shown as an IRI alone counts too.
 */
export function reachesScopedItems(api: ApiMetadata, resource: ResourceMetadata): boolean {
  let found = reaching.get(resource);
  if (found === undefined) {
    const seen = new Set<ResourceMetadata>([resource]);
    const queue = [resource];
    found = false;
    while (queue.length && !found) {
      for (const property of queue.shift()!.properties) {
        const target = property.relation === undefined ? undefined : api.resource(property.relation);
        if (!target || seen.has(target)) continue;
        const get = itemOperation(target);
        if (get && operationScope(get, api)?.read) found = true;
        seen.add(target);
        queue.push(target);
      }
    }
    reaching.set(resource, found);
  }
  return found;
}
