/**
 * A resource's search index read as a store collection (server/store/types.ts): what the default provider of an
 * `elasticsearch` operation reads instead of the store, so pagination, cursors, sub-resource links, security and
 * serialization run unchanged on what it returns. Each item is the document's `_source` (the stored item as last
 * written), without the `@timestamp` ZincSearch adds. It only reads: writes go to the store, and the index follows
 * (index-sync.ts).
 */
import type { ResourceMetadata } from '../metadata/types.js';
import { resolveQuery, type KeyReader } from '../store/references.js';
import type { Collection, Condition, Id, Item, PageRows, Query } from '../store/types.js';
import { indexUnavailable, missingIndex, type SearchClient } from './client.js';
import type { Dialect } from './mapping.js';
import { askable, QueryTranslator } from './query.js';

/** Items read at once by `stream` (a keyset scan, never a deep `from`). */
const STREAM_BATCH = 500;
/** The engine's default window (`index.max_result_window`, ZincSearch's ZINC_MAX_RESULTS): `from + size` past it fails. */
const MAX_WINDOW = 10_000;

interface Hits {
  total: number;
  items: Item[];
}

export class IndexCollection implements Collection {
  private translator?: QueryTranslator;

  constructor(
    private readonly client: SearchClient,
    private readonly index: string,
    private readonly resource: ResourceMetadata,
    /** Reads the keys of related items from the store: a `refers` condition (a scope's path) becomes an `in`. */
    private readonly readKeys: KeyReader,
    /** The engine's dialect, asked of it once (its queries differ: query.ts). */
    private readonly dialect: () => Promise<Dialect>,
  ) {}

  /** Whether the engine answers `q` as the store would (store-fallback.ts); `keyset`: a stream's reads too. */
  async answers(q: Pick<Query, 'where' | 'sort' | 'after'>, keyset = false): Promise<boolean> {
    return askable(q.where) && (await this.translation()).answers(q, keyset);
  }

  /** The translator for the engine's dialect; a 503 while the engine does not say which it speaks. */
  private async translation(): Promise<QueryTranslator> {
    this.translator ??= new QueryTranslator(
      this.resource,
      await this.dialect().catch(() => {
        throw indexUnavailable();
      }),
    );
    return this.translator;
  }

  async find(q: Query): Promise<Item[]> {
    return (await this.search(q, false)).items;
  }

  async findPage(q: Query): Promise<PageRows> {
    return this.search(q, true);
  }

  async *stream(q: Query): AsyncIterable<Item> {
    const sort = q.sort ?? [];
    let after = q.after;
    for (;;) {
      const { items } = await this.search({ ...q, sort, after, offset: undefined, limit: STREAM_BATCH }, false);
      yield* items;
      if (items.length < STREAM_BATCH) return;
      const last = items[items.length - 1];
      after = { values: sort.map((s) => last[s.field] ?? null) };
    }
  }

  async exists(q: Query): Promise<boolean> {
    return (await this.search({ ...q, limit: 1 }, false)).items.length > 0;
  }

  async count(where?: Condition[]): Promise<number> {
    return (await this.search({ where, limit: 0 }, true)).total;
  }

  async get(id: Id): Promise<Item | null> {
    return (await this.getMany([id]))[0] ?? null;
  }

  async getMany(ids: readonly Id[]): Promise<Item[]> {
    if (ids.length === 0) return [];
    const body = { query: { ids: { values: ids.map(String) } }, size: ids.length };
    return (await this.request(body)).items;
  }

  insert(): Promise<Item> {
    return this.readOnly();
  }
  insertMany(): Promise<Item[]> {
    return this.readOnly();
  }
  replace(): Promise<Item | null> {
    return this.readOnly();
  }
  upsert(): Promise<{ item: Item; created: boolean }> {
    return this.readOnly();
  }
  delete(): Promise<boolean> {
    return this.readOnly();
  }
  clear(): Promise<number> {
    return this.readOnly();
  }

  private readOnly(): never {
    throw new Error(`the search index of ${this.resource.shortName} is read-only: writes go to the store`);
  }

  private async search(query: Query, total: boolean): Promise<Hits> {
    const q = await resolveQuery(query, this.readKeys);
    const from = q.offset ?? 0;
    const size = Math.min(q.limit ?? MAX_WINDOW, Math.max(0, MAX_WINDOW - from));
    const translator = await this.translation();
    const body: Record<string, unknown> = { query: translator.query(q), from, size };
    const sort = translator.sort(q.sort);
    if (sort.length) body.sort = sort;
    if (total) body.track_total_hits = true;
    return this.request(body);
  }

  private async request(body: Record<string, unknown>): Promise<Hits> {
    let response;
    try {
      response = await this.client.search({ index: this.index, body });
    } catch (e) {
      if (missingIndex(e)) return { total: 0, items: [] };
      throw indexUnavailable();
    }
    const hits = (response.body as { hits?: { total?: { value?: number } | number; hits?: { _source?: Item }[] } })
      .hits;
    const total = typeof hits?.total === 'number' ? hits.total : (hits?.total?.value ?? 0);
    return { total, items: (hits?.hits ?? []).map((h) => sourceItem(h._source ?? {})) };
  }
}

/** The stored item a document holds: its `_source` without the engine's own fields. */
function sourceItem(source: Item): Item {
  const { ['@timestamp']: _timestamp, ...item } = source;
  return item;
}
