/**
 * The related items a response embeds (representation/embedding.ts), read before it is written: level by level
 * from the response's items, one store query per embedded relation and level (`getMany`: the target's items by
 * identifier) for the IRIs not read yet, so that a page of 30 talks reads its speakers in one query, not 30. Each
 * read item's hidden properties (property `security` of its resource) are found as it is read.
 */
import type { ResourceMetadata } from '../../metadata/types.js';
import { iriResolver } from '../../protocol/iri.js';
import type { Item } from '../../store/types.js';
import type { HiddenProperties } from '../guards.js';
import { EMBEDDING_LEVELS, type EmbeddedItems, type EmbeddingPlan } from '../representation/embedding.js';
import type { OperationMetadata } from '../../metadata/types.js';
import type { Runtime } from '../runtime.js';

/** The items read for one response (or one batch of a streamed one). */
export class ReadEmbeddedItems implements EmbeddedItems {
  /** By IRI as stored: the item, or null when the IRI names none. */
  private readonly byIri = new Map<string, Item | null>();
  private readonly hiddenOf = new WeakMap<Item, ReadonlySet<string>>();
  private readonly byResource = new Map<ResourceMetadata, Item[]>();

  item(iri: string): Item | null | undefined {
    return this.byIri.get(iri);
  }

  hidden(item: Item): ReadonlySet<string> | undefined {
    return this.hiddenOf.get(item);
  }

  /** The items read, by resource. */
  itemsByResource(): ReadonlyMap<ResourceMetadata, readonly Item[]> {
    return this.byResource;
  }

  /** Every IRI looked up, found or not (a response's cache tags: creating a missing item changes it too). */
  iris(): IterableIterator<string> {
    return this.byIri.keys();
  }

  /**
   * Reads what `op`'s responses embed of `items`: each level's embedded relations, one query per relation, then
   * the relations of the items just read, down to `EMBEDDING_LEVELS`.
   */
  async read(
    runtime: Pick<Runtime, 'api' | 'collectionOf'>,
    plan: EmbeddingPlan,
    op: OperationMetadata,
    items: readonly Item[],
    hiddenOf: HiddenProperties,
  ): Promise<this> {
    let level = new Map<ResourceMetadata, Item[]>([[op.resource, [...items]]]);
    for (let depth = 1; depth <= EMBEDDING_LEVELS && level.size; depth++) {
      const next = new Map<ResourceMetadata, Item[]>();
      for (const [resource, sources] of level) {
        for (const { target, property } of plan.relationsOf(resource).values()) {
          const found = await this.readRelation(runtime, target, property.name, sources, hiddenOf);
          if (found.length) next.set(target, [...(next.get(target) ?? []), ...found]);
        }
      }
      level = next;
    }
    return this;
  }

  /** The items of `target` that `sources`' relation `name` names and were not read yet, in one query. */
  private async readRelation(
    runtime: Pick<Runtime, 'api' | 'collectionOf'>,
    target: ResourceMetadata,
    name: string,
    sources: readonly Item[],
    hiddenOf: HiddenProperties,
  ): Promise<Item[]> {
    const idName = target.identifier?.name;
    const wanted = new Map<string, { id: number | string; iris: string[] }>(); // by the identifier as text
    for (const source of sources) {
      const value = source[name];
      for (const iri of Array.isArray(value) ? value : [value]) {
        if (typeof iri !== 'string' || this.byIri.has(iri)) continue;
        // A dangling IRI stays an IRI; the ones read below replace it.
        this.byIri.set(iri, null);
        const id = idName === undefined ? undefined : iriResolver(runtime.api).identifierOf(target, iri);
        if (id === undefined) continue;
        const entry = wanted.get(String(id));
        if (entry) entry.iris.push(iri);
        else wanted.set(String(id), { id, iris: [iri] });
      }
    }
    if (!wanted.size || idName === undefined) return [];
    const values = [...wanted.values()].map((w) => w.id);
    const found = await runtime.collectionOf(target).getMany(values);
    const guarded = target.properties.some((p) => p.security);
    const read: Item[] = [];
    for (const item of found) {
      const entry = wanted.get(String(item[idName]));
      if (!entry) continue;
      for (const iri of entry.iris) this.byIri.set(iri, item);
      if (guarded) this.hiddenOf.set(item, await hiddenOf(target, item));
      read.push(item);
    }
    if (read.length) this.byResource.set(target, [...(this.byResource.get(target) ?? []), ...read]);
    return read;
  }
}

/** Mercure's reader: subscribers are not the writer, so every property with `security` is hidden (fail closed). */
export const everyGuardedHidden: HiddenProperties = async (resource) =>
  new Set(resource.properties.filter((p) => p.security).map((p) => p.name));
