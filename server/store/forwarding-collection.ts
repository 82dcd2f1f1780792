import type { Collection, Condition, Id, Item, PageRows, Query } from './types.js';

/**
 * A collection that hands every call to another one: the base of the decorators that add something to the writes
 * (the HTTP cache's invalidations, the search index's changes), which override only the writes they follow.
 */
export class ForwardingCollection implements Collection {
  readonly findRendered?: (q: Query) => Promise<string[] | undefined>;
  readonly findAndProbe?: Collection['findAndProbe'];

  constructor(protected readonly inner: Collection) {
    if (inner.findRendered) this.findRendered = (q) => inner.findRendered!(q);
    if (inner.findAndProbe) this.findAndProbe = (q, probe) => inner.findAndProbe!(q, probe);
  }

  find(q: Query): Promise<Item[]> {
    return this.inner.find(q);
  }
  findPage(q: Query, options?: { rendered?: boolean }): Promise<PageRows> {
    return this.inner.findPage(q, options);
  }
  stream(q: Query): AsyncIterable<Item> {
    return this.inner.stream(q);
  }
  exists(q: Query): Promise<boolean> {
    return this.inner.exists(q);
  }
  count(where?: Query['where']): Promise<number> {
    return this.inner.count(where);
  }
  get(id: Id): Promise<Item | null> {
    return this.inner.get(id);
  }
  getMany(ids: readonly Id[]): Promise<Item[]> {
    return this.inner.getMany(ids);
  }
  insert(item: Item): Promise<Item> {
    return this.inner.insert(item);
  }
  insertMany(items: Item[]): Promise<Item[]> {
    return this.inner.insertMany(items);
  }
  replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    return this.inner.replace(id, item, expected);
  }
  upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    return this.inner.upsert(id, item);
  }
  delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    return this.inner.delete(id, expected, where);
  }
  clear(): Promise<number> {
    return this.inner.clear();
  }
}
