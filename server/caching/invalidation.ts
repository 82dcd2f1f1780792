/**
 * Invalidation on every write (docs/behaviour.md, "HTTP cache"). Each resource's collection is wrapped so that
 * whatever writes through it — the pipeline's default write, custom code's `ctx.persist`/`ctx.remove`, message
 * handlers — calls `invalidate` with the tags the write touched (tags.ts) once the store committed it, and
 * the write returns only when the in-process caches of every process of the service dropped those pages
 * (server/cluster/link.ts) and the purge requests were answered (or timed out).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import type { WriteWrapper } from '../pipeline/open-runtime.js';
import { ForwardingCollection } from '../store/forwarding-collection.js';
import type { Collection, Condition, Id, Item } from '../store/types.js';
import type { PeerLink } from '../cluster/link.js';
import { resourceTag, writeTags } from './tags.js';
import { purger, type Purge } from './purgers.js';
import { ResponseCache } from './response-cache.js';

export type Invalidate = (tags: string[]) => Promise<void>;

/** The tags of writes made inside `heldBack`, waiting for its end. */
const held = new AsyncLocalStorage<Set<string>>();

/**
 * Runs `run` (a store transaction) with the invalidations of its writes held back, then makes them at once when
 * it settled. Inside a transaction nothing may wait for other processes: a worker told to drop pages may itself
 * be waiting for the store's write lock, which the transaction holds.
 */
export async function heldBack<T>(invalidate: Invalidate | undefined, run: () => Promise<T>): Promise<T> {
  if (!invalidate) return run();
  const tags = new Set<string>();
  try {
    return await held.run(tags, run);
  } finally {
    await invalidate([...tags]);
  }
}

/**
 * The one function every write path ends in: the caches of this process (of every file it loaded) and of the
 * service's other processes, through the link; the external caches.
 */
export function invalidation(link: PeerLink | undefined, purge: Purge | undefined): Invalidate {
  return async (tags) => {
    const holding = held.getStore();
    if (holding) return void tags.forEach((tag) => holding.add(tag));
    if (tags.length === 0) return;
    await Promise.all([link?.invalidate(tags), purge?.(tags)]);
  };
}

export class InvalidatingCollection extends ForwardingCollection {
  constructor(
    inner: Collection,
    private readonly resource: ResourceMetadata,
    private readonly invalidate: Invalidate,
  ) {
    super(inner);
  }

  override async insert(item: Item): Promise<Item> {
    const saved = await this.inner.insert(item);
    await this.invalidate(writeTags(this.resource, saved));
    return saved;
  }
  override async insertMany(items: Item[]): Promise<Item[]> {
    const saved = await this.inner.insertMany(items);
    // One invalidation for the whole batch: the tags every created item touches, each once.
    await this.invalidate([...new Set(saved.flatMap((item) => writeTags(this.resource, item)))]);
    return saved;
  }
  override async replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    const saved = await this.inner.replace(id, item, expected);
    if (saved) await this.invalidate(writeTags(this.resource, saved));
    return saved;
  }
  override async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const result = await this.inner.upsert(id, item);
    await this.invalidate(writeTags(this.resource, result.item));
    return result;
  }
  override async delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    // The item's IRI may take other fields than its identifier: read it before it goes.
    const before = expected ?? (await this.inner.get(id));
    const deleted = await this.inner.delete(id, expected, where);
    if (deleted) await this.invalidate(writeTags(this.resource, before ?? this.identified(id)));
    return deleted;
  }
  override async clear(): Promise<number> {
    const n = await this.inner.clear();
    // Every item went: every page of the resource, items included (their IRIs are unknown here).
    if (n > 0) await this.invalidate([this.resource.collectionPath, resourceTag(this.resource)]);
    return n;
  }

  private identified(id: Id): Item {
    return this.resource.identifier ? { [this.resource.identifier.name]: id } : {};
  }
}

/** The HTTP cache of a loaded API: the in-process cache (if any) and what wraps the runtime's writes (if anything caches). */
export interface HttpCaching {
  cache?: ResponseCache;
  writes?: WriteWrapper;
  /** Empties the cache and stops filing writes in it (the file was reloaded: another cache serves). */
  retire(): void;
}

/**
 * `serves: false` is a process that answers no request (`apidsl consume`): it keeps no cache, but its writes drop
 * the pages of the processes that do.
 */
export function httpCaching(api: ApiMetadata, logger: Logger, link: PeerLink, serves = true): HttpCaching {
  const settings = api.settings.httpCache;
  const cached = settings.inProcessMaxBytes > 0;
  const cache = cached && serves ? new ResponseCache(settings.inProcessMaxBytes, () => link.vouches()) : undefined;
  const purge = purger(settings.invalidation, logger);
  // Only when something caches: otherwise writes pay nothing.
  if (!cached && !purge) return { retire: () => undefined };
  const invalidate = invalidation(cached ? link : undefined, purge);
  const stopListening = cache
    ? link.listen({ dropPages: (tags) => (tags === 'all' ? cache.clear() : cache.invalidate(tags)) })
    : undefined;
  return {
    cache,
    writes: {
      collection: (collection, resource) => new InvalidatingCollection(collection, resource, invalidate),
      transaction: (run) => heldBack(invalidate, run),
    },
    retire: () => {
      stopListening?.();
      cache?.clear();
    },
  };
}
