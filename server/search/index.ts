/**
 * The search index of a loaded API (docs/elasticsearch.md): one index per resource that some `elasticsearch`
 * operation reads, created with its mapping (mapping.ts) the first time it is needed; the collection its
 * operations read (index-collection.ts); what wraps the store's collections so that writes reach it (index-sync.ts).
 */
import type { Logger } from 'pino';
import { indexedResources, indexName } from '../metadata/search-index.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import { collectionKeys } from '../store/references.js';
import type { Collection, CollectionSpec, Store } from '../store/types.js';
import { dialectOf, searchClient, type SearchClient } from './client.js';
import { IndexCollection } from './index-collection.js';
import { indexMapping, type Dialect } from './mapping.js';
import { PendingChanges } from './pending.js';
import { IndexOrStore } from './store-fallback.js';
import type { IndexChange } from './index-change.js';
import { heldBack, IndexWriter, SyncingCollection } from './index-sync.js';

export class SearchIndex {
  readonly client: SearchClient;
  readonly writer: IndexWriter;
  private readonly resources: ResourceMetadata[];
  private readonly reads = new Map<ResourceMetadata, Collection>();
  /** By index name: the store's collection of its resource, read again when a pending change is retried. */
  private readonly sources = new Map<string, { collection: Collection; resource: ResourceMetadata }>();
  private made: Promise<boolean> | undefined;
  private dialectAsked: Promise<Dialect> | undefined;
  /** The store's collection of each resource, by storage name: the index reads related keys there (`refers`). */
  private storeCollectionOf: (target: CollectionSpec) => Collection | undefined = () => undefined;

  constructor(
    private readonly api: ApiMetadata,
    private readonly logger: Logger,
  ) {
    const settings = api.settings.searchIndex;
    this.client = searchClient(settings);
    this.resources = indexedResources(api);
    this.writer = new IndexWriter(this.client, settings.timeout, logger, () => this.ready());
  }

  /** The index API Platform would read for the resource (`stateOptions.index`, else its short name tableized). */
  indexOf(resource: ResourceMetadata): string {
    return indexName(resource, this.api.settings.searchIndex.indexPrefix);
  }

  /** Whether writes of the resource go to the index. */
  mirrors(resource: ResourceMetadata): boolean {
    return this.resources.includes(resource);
  }

  /** The index of the resource, read as a collection (the store answers what the engine is not asked). */
  collectionOf(resource: ResourceMetadata): Collection {
    let read = this.reads.get(resource);
    if (!read) {
      const keys = collectionKeys((target) => this.storeCollectionOf(target));
      const index = new IndexCollection(this.client, this.indexOf(resource), resource, keys, () => this.dialect());
      read = new IndexOrStore(index, () => this.storeCollectionOf(resource.storage));
      this.reads.set(resource, read);
    }
    return read;
  }

  /** The store's collections: where the index reads the related items a condition names, and its fallback. */
  readRelatedFrom(collectionOf: (target: CollectionSpec) => Collection | undefined): void {
    this.storeCollectionOf = collectionOf;
  }

  /** The store's collection of the resource, its writes sent to the index (unchanged when it is not indexed). */
  syncing(collection: Collection, resource: ResourceMetadata): Collection {
    if (!this.mirrors(resource)) return collection;
    const index = this.indexOf(resource);
    this.sources.set(index, { collection, resource });
    return new SyncingCollection(collection, resource, index, this.writer);
  }

  /**
   * Keeps the changes the engine has not taken in the store (pending.ts), retried until it takes them; those a
   * previous run left are sent now. Called once the store's collections are wrapped (`syncing`).
   */
  async keepPendingIn(store: Store): Promise<void> {
    const pending = await PendingChanges.open(store);
    this.writer.keepIn({
      note: (changes) => pending.note(changes),
      settle: (changes) => pending.settle(changes),
      due: (limit) => pending.due(limit),
      current: (change) => this.current(change),
    });
  }

  /** The change as the store holds its document now (deleted when absent); undefined for an index no longer served. */
  private async current(change: IndexChange): Promise<IndexChange | undefined> {
    const source = this.sources.get(change.index);
    if (!source) return undefined;
    const id = source.resource.identifier!.type === 'int' ? Number(change.id) : change.id;
    const doc = await source.collection.get(id);
    return doc ? { ...change, doc } : { index: change.index, id: change.id, pending: change.pending };
  }

  /** Runs a store transaction; its writes reach the index once it committed. */
  transaction<T>(run: () => Promise<T>): Promise<T> {
    return heldBack(this.writer, run);
  }

  /**
   * Creates the missing indexes with their mappings, once; asked again after a failure (the engine was away).
   * Resolves false when the engine did not answer.
   */
  ready(): Promise<boolean> {
    this.made ??= this.createIndexes().then(
      () => true,
      (err: unknown) => {
        this.made = undefined;
        this.logger.warn({ err }, 'search index: the indexes could not be created (the engine did not answer)');
        return false;
      },
    );
    return this.made;
  }

  /** Sends what is waiting (each batch within the timeout), then closes the connections; what is pending stays. */
  async close(): Promise<void> {
    await this.writer.close();
    await this.client.close();
  }

  /** What speaks the engine's API, asked until it answers. */
  private dialect(): Promise<Dialect> {
    this.dialectAsked ??= dialectOf(this.client).catch((e: unknown) => {
      this.dialectAsked = undefined;
      throw e;
    });
    return this.dialectAsked;
  }

  private async createIndexes(): Promise<void> {
    const dialect = await this.dialect();
    for (const resource of this.resources) {
      const index = this.indexOf(resource);
      if ((await this.client.indices.exists({ index })).body) continue;
      // ZincSearch's mapping flags (sortable…) are none of the client's types: the body goes as written.
      const body = { mappings: indexMapping(resource, dialect) as object as Record<string, never> };
      await this.client.indices.create({ index, body });
    }
  }
}
