/**
 * The search index of a loaded API (docs/elasticsearch.md): one index per resource that some `elasticsearch`
 * operation reads, created with its mapping (mapping.ts) the first time it is needed; the collection its
 * operations read (index-collection.ts); what wraps the store's collections so that writes reach it (sync.ts).
 */
import type { Logger } from 'pino';
import { indexedResources, indexName } from '../metadata/search-index.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Collection } from '../store/types.js';
import { dialectOf, searchClient, type SearchClient } from './client.js';
import { IndexCollection } from './index-collection.js';
import { indexMapping } from './mapping.js';
import { heldBack, IndexWriter, SyncingCollection } from './sync.js';

export class SearchIndex {
  readonly client: SearchClient;
  readonly writer: IndexWriter;
  private readonly resources: ResourceMetadata[];
  private readonly reads = new Map<ResourceMetadata, IndexCollection>();
  private made: Promise<boolean> | undefined;

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

  /** The index of the resource, read as a collection. */
  collectionOf(resource: ResourceMetadata): Collection {
    let read = this.reads.get(resource);
    if (!read) this.reads.set(resource, (read = new IndexCollection(this.client, this.indexOf(resource), resource)));
    return read;
  }

  /** The store's collection of the resource, its writes sent to the index (unchanged when it is not indexed). */
  syncing(collection: Collection, resource: ResourceMetadata): Collection {
    return this.mirrors(resource)
      ? new SyncingCollection(collection, resource, this.indexOf(resource), this.writer)
      : collection;
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

  /** Sends what is waiting (each batch within the timeout), then closes the connections. */
  async close(): Promise<void> {
    await this.writer.drain();
    await this.client.close();
  }

  private async createIndexes(): Promise<void> {
    const dialect = await dialectOf(this.client);
    for (const resource of this.resources) {
      const index = this.indexOf(resource);
      if ((await this.client.indices.exists({ index })).body) continue;
      // ZincSearch's mapping flags (sortable…) are none of the client's types: the body goes as written.
      const body = { mappings: indexMapping(resource, dialect) as object as Record<string, never> };
      await this.client.indices.create({ index, body });
    }
  }
}
