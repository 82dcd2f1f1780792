/**
 * The runtime of a loaded API (state.ts, `Runtime`): made once by `serve` (per loaded file) or `consume`, then
 * carried by every request's state. Its collections are opened through `openCollections`, the one way every
 * command opens them (with the member rendering a resource's pages may be served from).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import { MessageBus } from '../messenger/index.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Publisher } from '../realtime/index.js';
import { indexedResources } from '../metadata/search-index.js';
import { SearchIndex } from '../search/index.js';
import type { Collection, Store } from '../store/types.js';
import { deleteTransaction } from './relations/referential-actions.js';
import { storageSpec } from './representation/rendering.js';
import { processStore } from './rate-limit-stores.js';
import { ChangeFeed, type RateLimitStore, type Runtime, type Transaction } from './runtime.js';
import { storePersistence } from './writes/persist.js';

/**
 * A resource's collection, the one way every command opens it: with the member rendering its pages may be
 * served from (representation/rendering.ts). Opening applies the file's layout to the store and records it.
 */
export const openCollection = (store: Store, resource: ResourceMetadata): Promise<Collection> =>
  store.collection(storageSpec(resource));

/** Every resource's collection, by its short name. */
export async function openCollections(api: ApiMetadata, store: Store): Promise<Map<string, Collection>> {
  const collections = new Map<string, Collection>();
  for (const r of api.resources) collections.set(r.shortName, await openCollection(store, r));
  return collections;
}

/**
 * What wraps every write path: the HTTP cache's invalidation (server/caching/invalidation.ts); the search
 * index's sync (server/search/index-sync.ts) is the wrapper inside it.
 */
export interface WriteWrapper {
  collection(collection: Collection, resource: ResourceMetadata): Collection;
  /** Around a delete's transaction: what the writes inside it must not do before it ends. */
  transaction<T>(run: () => Promise<T>): Promise<T>;
}

export interface RuntimeOptions {
  logger: Logger;
  debug?: boolean;
  publisher?: Publisher;
  writes?: WriteWrapper;
  /** Where rate-limit counts live (rate-limit-stores.ts: Redis, say); default: `processStore()`. */
  rateLimits?: RateLimitStore;
}

export async function startRuntime(api: ApiMetadata, store: Store, options: RuntimeOptions): Promise<Runtime> {
  const search = searchIndexOf(api, options.logger);
  const writes = search ? within(searchWrites(search), options.writes) : options.writes;
  const collections = await openCollections(api, store);
  if (writes)
    for (const r of api.resources) collections.set(r.shortName, writes.collection(collections.get(r.shortName)!, r));
  await search?.keepPendingIn(store);
  search?.readRelatedFrom((target) => {
    const resource = api.resources.find((r) => r.storage.name === target.name);
    return resource && collections.get(resource.shortName);
  });
  const inStore = deleteTransaction(store);
  const transaction: Transaction | undefined = reentrant(
    inStore && writes ? (run) => writes.transaction(() => inStore(run)) : inStore,
  );
  const inBatch: Transaction = inStore ?? ((run) => run());
  const base: Omit<Runtime, 'bus' | 'close'> = {
    api,
    collectionOf: (resource) => collections.get(resource.shortName)!,
    transaction,
    batch: writes ? (run) => writes.transaction(() => inBatch(run)) : inBatch,
    publisher: options.publisher,
    logger: options.logger,
    debug: options.debug ?? false,
    rateLimits: options.rateLimits ?? processStore(),
    published: new ChangeFeed(),
    search,
  };
  // The bus's message handlers persist through the same collections and publisher.
  const bus = new MessageBus(api, store, storePersistence(base), options.logger);
  return {
    ...base,
    bus,
    close: async () => {
      await bus.close();
      await search?.close();
    },
  };
}

/**
 * A transaction that a run already inside it joins: custom code runs in one (writes/custom-writes.ts), and the
 * deletes and nested writes it makes would otherwise queue behind it for ever.
 */
function reentrant(transaction: Transaction | undefined): Transaction | undefined {
  if (!transaction) return undefined;
  const inside = new AsyncLocalStorage<true>();
  return (run) => (inside.getStore() ? run() : transaction(() => inside.run(true, run)));
}

/** The search index of the API's `elasticsearch` resources; undefined when no operation reads one. */
export const searchIndexOf = (api: ApiMetadata, logger: Logger): SearchIndex | undefined =>
  indexedResources(api).length > 0 ? new SearchIndex(api, logger) : undefined;

/** The index's sync as a write wrapper: every write of an indexed resource reaches the index after it committed. */
export const searchWrites = (search: SearchIndex): WriteWrapper => ({
  collection: (collection, resource) => search.syncing(collection, resource),
  transaction: (run) => search.transaction(run),
});

/** `inner` wrapped by `outer`: outer's work on a write comes after inner's (the index is told before caches drop). */
function within(inner: WriteWrapper, outer: WriteWrapper | undefined): WriteWrapper {
  if (!outer) return inner;
  return {
    collection: (collection, resource) => outer.collection(inner.collection(collection, resource), resource),
    transaction: (run) => outer.transaction(() => inner.transaction(run)),
  };
}
