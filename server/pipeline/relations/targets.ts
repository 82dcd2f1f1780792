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
import { attachesFreely, mayAttach, type TargetAccess } from './target-access.js';

/**
 * Throws the 400 for the first dangling IRI, or, when `collected` is given (collectDenormalizationErrors),
 * adds a violation per dangling IRI to it. `targets`: where the IRIs are looked up (`storeTargets`, or a batch's
 * `readAhead`). `planned`: the placeholders of nested documents (nested-writes.ts). With `access`, an IRI of an
 * item the writer may not attach (target-access.ts) is answered as a dangling one.
 */
export async function checkRelations(
  resource: ResourceMetadata,
  item: Item,
  previous: Item | null,
  targets: StoredTargets,
  collected?: Violation[],
  planned?: ReadonlySet<string>,
  access?: TargetAccess,
): Promise<void> {
  for (const property of resource.properties) {
    if (!property.relation) continue;
    const value = item[property.name];
    if (value === undefined) continue;
    const before = previous ? new Set(iriList(previous[property.name])) : undefined;
    for (const [index, iri] of (Array.isArray(value) ? value : [value]).entries()) {
      if (typeof iri !== 'string' || before?.has(iri) || planned?.has(iri)) continue;
      // A read-ahead answers at once: no promise per IRI of a batch.
      let found = targets.itemAt(iri);
      if (found instanceof Promise) found = await found;
      if (found && (!access || attachesFreely(access, found.resource))) continue;
      if (found && access && (await mayAttach(access, found.resource, iri, found.item))) continue;
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

/** Where a write's relation IRIs are looked up: the stored item an IRI names, with its resource. */
export interface StoredTargets {
  itemAt(iri: string): StoredTarget | undefined | Promise<StoredTarget | undefined>;
}

export interface StoredTarget {
  resource: ResourceMetadata;
  item: Item;
}

/**
 * The store itself, one query per IRI (a request's write). `settled`: each target read once a write in flight on it
 * committed (store/types.ts `Query.settled`), for the look a write takes once it is stored.
 */
export const storeTargets = (
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Collection,
  settled = false,
): StoredTargets => ({ itemAt: (iri) => storedItem(iri, iris, collectionOf, settled) });

/** The 400 detail of an IRI that names no stored item. */
export const notFound = (iri: string): string => `Item not found for "${iri}".`;

const iriList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');

/** The stored item an IRI names, with its resource; undefined when it names none. */
async function storedItem(
  iri: string,
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Collection,
  settled = false,
): Promise<StoredTarget | undefined> {
  const key = itemKey(iri, iris);
  if (!key) return undefined;
  const [found] = await collectionOf(key.resource).find({
    where: [
      { op: 'eq', field: key.identifier, value: key.id },
      ...key.also.map(({ field, value }) => ({ op: 'eq' as const, field, value })),
    ],
    limit: 1,
    ...(settled && { settled }),
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
 * The targets of a batch of new items (`apidsl import`): the items the relation values of `bodies` name, read
 * ahead with one `getMany` per target resource, then looked up as `storeTargets` would find them. An IRI the
 * read-ahead did not cover (a body's value in a form it did not foresee) is asked of the store. Items stored while
 * the batch is written (`add`) count from then on, so an item may name one stored earlier in the same batch.
 */
export class ReadAhead implements StoredTargets {
  /** The stored items named, by resource then identifier value; an identifier read ahead and absent maps to null. */
  private readonly stored = new Map<ResourceMetadata, Map<unknown, Item | null>>();
  /** What each IRI of the bodies names (undefined: no item route, a malformed identifier). */
  private readonly keys = new Map<string, ItemKey | undefined>();

  private constructor(
    private readonly iris: IriResolver,
    private readonly collectionOf: (resource: ResourceMetadata) => Collection,
  ) {}

  static async of(
    resource: ResourceMetadata,
    bodies: readonly unknown[],
    iris: IriResolver,
    collectionOf: (resource: ResourceMetadata) => Collection,
  ): Promise<ReadAhead> {
    const ahead = new ReadAhead(iris, collectionOf);
    const wanted = new Map<ResourceMetadata, Set<Id>>();
    const relations = resource.properties.filter((p) => p.relation);
    for (const body of bodies) {
      if (typeof body !== 'object' || body === null) continue;
      for (const property of relations)
        for (const iri of iriList((body as Item)[property.name])) {
          if (ahead.keys.has(iri)) continue;
          const key = itemKey(iri, iris);
          ahead.keys.set(iri, key);
          if (key) wanted.set(key.resource, (wanted.get(key.resource) ?? new Set()).add(key.id));
        }
    }
    for (const [target, ids] of wanted) {
      const identifier = target.identifier!.name;
      const known = new Map<unknown, Item | null>([...ids].map((id) => [id, null]));
      for (const item of await collectionOf(target).getMany([...ids])) known.set(item[identifier], item);
      ahead.stored.set(target, known);
    }
    return ahead;
  }

  itemAt(iri: string): StoredTarget | undefined | Promise<StoredTarget | undefined> {
    const key = this.keys.has(iri) ? this.keys.get(iri) : itemKey(iri, this.iris);
    const known = key && this.stored.get(key.resource)?.get(key.id);
    if (known === undefined) return storedItem(iri, this.iris, this.collectionOf);
    if (known === null || !key!.also.every(({ field, value }) => known[field] === value)) return undefined;
    return { resource: key!.resource, item: known };
  }

  /** An item just stored, which later items may name. */
  add(resource: ResourceMetadata, item: Item): void {
    if (!resource.identifier) return;
    if (!this.stored.has(resource)) this.stored.set(resource, new Map());
    this.stored.get(resource)!.set(item[resource.identifier.name], item);
  }
}
