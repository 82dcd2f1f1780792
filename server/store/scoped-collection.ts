// A collection seen through a row-level scope (docs/scopes.md): every read adds the scope's conditions to its
// query, so pages, counts, cursors, existence probes and item reads all see the same items. Writes pass through
// unchanged: the pipeline checks the write scope itself (pipeline/scopes.ts).
import { ForwardingCollection } from './forwarding-collection.js';
import type { Collection, CollectionSpec, Condition, Id, Item, PageRows, Query } from './types.js';

export class ScopedCollection extends ForwardingCollection {
  private conditions?: Promise<Condition[]>;

  constructor(
    inner: Collection,
    private readonly spec: CollectionSpec,
    /** The scope's conditions for this request, asked once (the first read). */
    private readonly scope: () => Promise<Condition[]>,
  ) {
    super(inner);
    if (inner.findRendered)
      (this as { findRendered?: Collection['findRendered'] }).findRendered = async (q) =>
        inner.findRendered!(await this.scoped(q));
    if (inner.findAndProbe)
      (this as { findAndProbe?: Collection['findAndProbe'] }).findAndProbe = async (q, probe) =>
        inner.findAndProbe!(await this.scoped(q), await this.scoped(probe));
  }

  /** The unscoped collection (what the scope hides still exists: a creating PUT must not overwrite it). */
  get unscoped(): Collection {
    return this.inner;
  }

  private where(): Promise<Condition[]> {
    return (this.conditions ??= this.scope());
  }

  private async scoped(q: Query): Promise<Query> {
    const where = await this.where();
    return where.length === 0 ? q : { ...q, where: [...(q.where ?? []), ...where] };
  }

  override async find(q: Query): Promise<Item[]> {
    return this.inner.find(await this.scoped(q));
  }
  override async findPage(q: Query, options?: { rendered?: boolean }): Promise<PageRows> {
    return this.inner.findPage(await this.scoped(q), options);
  }
  override async *stream(q: Query): AsyncIterable<Item> {
    yield* this.inner.stream(await this.scoped(q));
  }
  override async exists(q: Query): Promise<boolean> {
    return this.inner.exists(await this.scoped(q));
  }
  override async count(where?: Condition[]): Promise<number> {
    return this.inner.count((await this.scoped({ where: where ?? [] })).where);
  }
  override async get(id: Id): Promise<Item | null> {
    const where = await this.where();
    if (where.length === 0) return this.inner.get(id);
    const [item] = await this.inner.find({ where: [this.key(id), ...where], limit: 1 });
    return item ?? null;
  }
  override async getMany(ids: readonly Id[]): Promise<Item[]> {
    const where = await this.where();
    if (where.length === 0 || ids.length === 0) return this.inner.getMany(ids);
    const field = this.spec.identifier?.field;
    if (field === undefined) return [];
    return this.inner.find({ where: [{ op: 'in', field, values: [...ids] }, ...where] });
  }

  private key(id: Id): Condition {
    const field = this.spec.identifier?.field;
    // A collection without an identifier has no item reads by key: nothing matches.
    return field === undefined ? { op: 'or', conditions: [] } : { op: 'eq', field, value: id };
  }
}
