/**
 * Relations hold real items: every relation IRI a write sets must name a stored item of the
 * relation's resource, else the write answers 400 `Item not found for "<iri>".` (docs/behaviour.md,
 * "Relations"). IRIs of another resource or that match no item route were already refused by
 * denormalize(); values the write leaves as they were are not looked up again. An item the writer may not
 * attach (target-access.ts: read access, owned elsewhere) is answered exactly as an item that is not there.
 */
import { badRequest, type Violation } from '../../protocol/errors.js';
import { routeIdentifier } from '../../protocol/identifier.js';
import type { IriResolver } from '../../protocol/iri.js';
import type { ResourceMetadata } from '../../metadata/types.js';
import type { Collection, Id, Item } from '../../store/types.js';
import { relationViolation } from '../representation/denormalize.js';
import { typedValue } from './links.js';
import { mayAttach, type TargetAccess } from './target-access.js';

/**
 * Throws the 400 for the first dangling IRI, or, when `collected` is given (collectDenormalizationErrors),
 * adds a violation per dangling IRI to it. `planned`: the placeholders of nested documents (nested-writes.ts).
 * With `access`, an IRI of an item the writer may not attach (target-access.ts) is answered as a dangling one.
 */
export async function checkRelations(
  resource: ResourceMetadata,
  item: Item,
  previous: Item | null,
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Collection,
  collected?: Violation[],
  planned?: ReadonlySet<string>,
  access?: TargetAccess,
): Promise<void> {
  for (const property of resource.properties) {
    if (!property.relation) continue;
    const before = new Set(iriList(previous?.[property.name]));
    const value = item[property.name];
    for (const [index, iri] of (Array.isArray(value) ? value : [value]).entries()) {
      if (typeof iri !== 'string' || before.has(iri) || planned?.has(iri)) continue;
      const found = await storedItem(iri, iris, collectionOf);
      if (found && (!access || (await mayAttach(access, found.resource, iri, found.item)))) continue;
      const detail = notFound(iri);
      if (!collected) throw badRequest(detail);
      collected.push(
        relationViolation(
          Array.isArray(value) ? `${property.name}[${index}]` : property.name,
          property.relation,
          detail,
        ),
      );
    }
  }
}

/** The 400 detail of an IRI that names no stored item. */
const notFound = (iri: string): string => `Item not found for "${iri}".`;

const iriList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');

/** The stored item an IRI names, with its resource; undefined when it names none. */
async function storedItem(
  iri: string,
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Collection,
): Promise<{ resource: ResourceMetadata; item: Item } | undefined> {
  const key = itemKey(iri, iris);
  if (!key) return undefined;
  const [found] = await collectionOf(key.resource).find({
    where: [
      { op: 'eq', field: key.identifier, value: key.id },
      ...key.also.map(({ field, value }) => ({ op: 'eq' as const, field, value })),
    ],
    limit: 1,
  });
  return found && { resource: key.resource, item: found };
}

/** What an item IRI names: its resource, identifier value and the other route variables the item must hold. */
interface ItemKey {
  resource: ResourceMetadata;
  identifier: string;
  id: Id;
  also: { field: string; value: unknown }[];
}

/** The item an IRI names, or undefined when it can name none (no item route, a value of the wrong type). */
function itemKey(iri: string, iris: IriResolver): ItemKey | undefined {
  const match = iris.match(iri);
  const id = match?.resource.identifier;
  if (!match || !id) return undefined;
  const value = routeIdentifier(match.resource, match.variables[id.name] ?? '');
  if (value === undefined) return undefined;
  // Other route variables (`/authors/{authorId}/books/{id}`) must hold on the item as well.
  const also = Object.entries(match.variables)
    .filter(
      ([name]) => name !== id.name && match.resource.properties.some((p) => p.name === name && !p.relation && !p.array),
    )
    .map(([name, raw]) => ({
      field: name,
      value: typedValue(
        match.resource.properties.find((p) => p.name === name),
        raw,
      ),
    }));
  if (also.some((c) => c.value === undefined)) return undefined;
  return { resource: match.resource, identifier: id.name, id: value, also };
}

/**
 * The relations of a batch of new items (`apidsl import`), checked as checkRelations checks one POST but
 * with one `in` query per target resource for the whole batch. Items stored while the batch is written
 * (`add`) count from then on, so a record may name one stored earlier in the same batch.
 */
export interface RelationLookup {
  /** The 400 detail a POST of `item` would answer for its first IRI naming no item, else undefined. */
  dangling(item: Item): string | undefined;
  /** An item just stored, which later items may name. */
  add(resource: ResourceMetadata, item: Item): void;
}

export async function relationLookup(
  resource: ResourceMetadata,
  items: readonly Item[],
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Promise<Collection>,
): Promise<RelationLookup> {
  const relations = resource.properties.filter((p) => p.relation);
  const iriKeys = new Map<string, ItemKey | undefined>();
  const wanted = new Map<ResourceMetadata, Set<Id>>();
  for (const item of items) {
    for (const property of relations) {
      for (const iri of iriList(item[property.name])) {
        if (iriKeys.has(iri)) continue;
        const key = itemKey(iri, iris);
        iriKeys.set(iri, key);
        if (!key) continue;
        if (!wanted.has(key.resource)) wanted.set(key.resource, new Set());
        wanted.get(key.resource)!.add(key.id);
      }
    }
  }
  /** The stored items named, by resource then identifier value. */
  const stored = new Map<ResourceMetadata, Map<unknown, Item>>();
  for (const [target, ids] of wanted) {
    const identifier = target.identifier!.name;
    const found = await (await collectionOf(target)).getMany([...ids]);
    stored.set(target, new Map(found.map((item) => [item[identifier], item])));
  }
  const names = (iri: string): boolean => {
    const key = iriKeys.get(iri) ?? itemKey(iri, iris);
    const item = key && stored.get(key.resource)?.get(key.id);
    return item !== undefined && key!.also.every(({ field, value }) => item[field] === value);
  };
  return {
    dangling: (item) => {
      for (const property of relations) {
        const missing = iriList(item[property.name]).find((iri) => !names(iri));
        if (missing !== undefined) return notFound(missing);
      }
      return undefined;
    },
    add: (target, item) => {
      if (!target.identifier) return;
      if (!stored.has(target)) stored.set(target, new Map());
      stored.get(target)!.set(item[target.identifier.name], item);
    },
  };
}
