/**
 * The related items an expression reads through to-one relations (`object.shop.owner`, two levels:
 * `object.order.shop.owner`). An item holds its relations as IRIs; the item an expression sees is a copy whose
 * relations on the paths it reads through are the related items themselves (copies too, down the path), each
 * carrying its IRI for `iri(…)`; a to-one relation the item does not hold reads as null, as a PHP entity's
 * would (`object.shop?.owner` is then null). Reads are batched: `prefetch` reads what a page of items needs in one store
 * query per relation and level, and every item read is kept for the rest of the request. An IRI that names no
 * item stays an IRI: reading a member of it fails, so the expression denies (fail closed).
 */
import { ITEM_IRI, type MemberPaths } from '../expression/evaluate.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import { iriResolver } from '../protocol/iri.js';
import type { Collection, Id, Item } from '../store/types.js';

/** Member names, each to what is read of it next (empty: read, not read through). */
type PathTree = Map<string, PathTree>;

const isItem = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);

function treeOf(paths: MemberPaths[keyof MemberPaths]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    let at = root;
    for (const name of path) {
      let next = at.get(name);
      if (!next) at.set(name, (next = new Map()));
      at = next;
    }
  }
  return root;
}

/** An item with the IRI it was read by, which `iri(…)` answers (a symbol: no member access reaches it). */
export function withIri(item: Item, iri: string): Item {
  Object.defineProperty(item, ITEM_IRI, { value: iri, enumerable: false });
  return item;
}

export class RelationReads {
  /** By IRI as stored: the item, or null when the IRI names none. */
  private readonly byIri = new Map<string, Item | null>();

  constructor(
    private readonly api: ApiMetadata,
    private readonly collectionOf: (resource: ResourceMetadata) => Pick<Collection, 'getMany'>,
  ) {}

  /** Reads, for all `items` of `resource` at once, the related items `paths` read through. */
  async prefetch(
    resource: ResourceMetadata,
    items: readonly unknown[],
    paths: MemberPaths[keyof MemberPaths],
  ): Promise<void> {
    if (paths.length) await this.readLevel(resource, items.filter(isItem), treeOf(paths));
  }

  /** What an expression reading `paths` sees of `value` (an item of `resource`); `value` itself if no relation is read. */
  async view(resource: ResourceMetadata, value: unknown, paths: MemberPaths[keyof MemberPaths]): Promise<unknown> {
    if (!paths.length || !isItem(value)) return value;
    const tree = treeOf(paths);
    await this.readLevel(resource, [value], tree);
    return this.expand(resource, value, tree);
  }

  /** The to-one relation `name` of `resource`'s target; undefined for anything else (read as stored). */
  private targetOf(resource: ResourceMetadata, name: string): ResourceMetadata | undefined {
    const property = resource.properties.find((p) => p.name === name);
    return property?.relation && !property.array ? this.api.resource(property.relation) : undefined;
  }

  /** The item with the relations on `tree` read (a copy; the item itself when none of them is a relation). */
  private expand(resource: ResourceMetadata, item: Item, tree: PathTree): Item {
    let copy: Item | undefined;
    for (const [name, next] of tree) {
      const target = this.targetOf(resource, name);
      if (!target) continue;
      const iri = item[name];
      copy ??= { ...item };
      if (iri === undefined || iri === null) copy[name] = null;
      const related = next.size && typeof iri === 'string' ? this.byIri.get(iri) : undefined;
      if (related) copy[name] = withIri({ ...this.expand(target, related, next) }, iri as string);
    }
    return copy ?? item;
  }

  /** One level: per relation read through, the related items not read yet in one query; then their next level. */
  private async readLevel(resource: ResourceMetadata, items: readonly Item[], tree: PathTree): Promise<void> {
    for (const [name, next] of tree) {
      const target = next.size ? this.targetOf(resource, name) : undefined;
      if (!target) continue;
      const iris = new Set<string>();
      for (const item of items) {
        const iri = item[name];
        if (typeof iri === 'string') iris.add(iri);
      }
      await this.read(
        target,
        [...iris].filter((iri) => !this.byIri.has(iri)),
      );
      const related = [...iris].map((iri) => this.byIri.get(iri)).filter(isItem);
      if (related.length) await this.readLevel(target, related, next);
    }
  }

  private async read(target: ResourceMetadata, iris: readonly string[]): Promise<void> {
    const idName = target.identifier?.name;
    const wanted = new Map<string, { id: Id; iris: string[] }>(); // by the identifier as text
    for (const iri of iris) {
      this.byIri.set(iri, null);
      const id = idName === undefined ? undefined : iriResolver(this.api).identifierOf(target, iri);
      if (id === undefined) continue;
      const entry = wanted.get(String(id));
      if (entry) entry.iris.push(iri);
      else wanted.set(String(id), { id, iris: [iri] });
    }
    if (!wanted.size || idName === undefined) return;
    const found = await this.collectionOf(target).getMany([...wanted.values()].map((w) => w.id));
    for (const item of found) {
      for (const iri of wanted.get(String(item[idName]))?.iris ?? []) this.byIri.set(iri, item);
    }
  }
}
