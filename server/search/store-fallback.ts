/**
 * The collection an index-backed operation reads (docs/elasticsearch.md, docs/scopes.md): the search index, except
 * for a read whose conditions the engine is not asked (a row-level scope's `!=` or `== null`; on ZincSearch, a bound
 * it would not keep: query.ts), which the store answers with the same conditions, so that a scope is never widened.
 * A read that also holds a full-text condition has nowhere to go: it fails (UntranslatableCondition), it never
 * answers without the scope.
 */
import { ForwardingCollection } from '../store/forwarding-collection.js';
import type { Collection, Condition, Item, PageRows, Query } from '../store/types.js';
import type { IndexCollection } from './index-collection.js';
import { hasFullText } from './query.js';

export class IndexOrStore extends ForwardingCollection {
  constructor(
    private readonly index: IndexCollection,
    /** The store's collection of the same resource, asked lazily (it is opened after the index). */
    private readonly store: () => Collection | undefined,
  ) {
    super(index);
  }

  /** Who answers a read of `q` (`keyset`: a stream, which walks its sort by keyset bounds). */
  private async reader(q: Pick<Query, 'where' | 'sort' | 'after'>, keyset = false): Promise<Collection> {
    if (hasFullText(q.where) || (await this.index.answers(q, keyset))) return this.inner;
    return this.store() ?? this.inner;
  }

  override async find(q: Query): Promise<Item[]> {
    return (await this.reader(q)).find(q);
  }
  override async findPage(q: Query): Promise<PageRows> {
    return (await this.reader(q)).findPage(q);
  }
  override async *stream(q: Query): AsyncIterable<Item> {
    yield* (await this.reader(q, true)).stream(q);
  }
  override async exists(q: Query): Promise<boolean> {
    return (await this.reader(q)).exists(q);
  }
  override async count(where?: Condition[]): Promise<number> {
    return (await this.reader({ where })).count(where);
  }
}
