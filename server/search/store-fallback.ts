/**
 * The collection an index-backed operation reads (docs/elasticsearch.md, docs/scopes.md): the search index, except
 * for a read whose conditions the engine is not asked (a row-level scope's `!=` or `== null`: query.ts), which the
 * store answers with the same conditions, so that a scope is never widened. A read that also holds a full-text
 * condition has nowhere to go: it fails (UntranslatableCondition), it never answers without the scope.
 */
import { ForwardingCollection } from '../store/forwarding-collection.js';
import type { Collection, Condition, Item, PageRows, Query } from '../store/types.js';
import { hasFullText, translatable } from './query.js';

export class IndexOrStore extends ForwardingCollection {
  constructor(
    index: Collection,
    /** The store's collection of the same resource, asked lazily (it is opened after the index). */
    private readonly store: () => Collection | undefined,
  ) {
    super(index);
  }

  /** Who answers a read with these conditions. */
  private reader(where: readonly Condition[] | undefined): Collection {
    if (translatable(where) || hasFullText(where)) return this.inner;
    return this.store() ?? this.inner;
  }

  override find(q: Query): Promise<Item[]> {
    return this.reader(q.where).find(q);
  }
  override findPage(q: Query): Promise<PageRows> {
    return this.reader(q.where).findPage(q);
  }
  override stream(q: Query): AsyncIterable<Item> {
    return this.reader(q.where).stream(q);
  }
  override exists(q: Query): Promise<boolean> {
    return this.reader(q.where).exists(q);
  }
  override count(where?: Condition[]): Promise<number> {
    return this.reader(where).count(where);
  }
}
