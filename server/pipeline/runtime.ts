/**
 * What serves a loaded API beyond its metadata (`Runtime`) and what it holds: the transaction it runs writes in,
 * the feed of published changes, where rate-limit counts live. Made by open-runtime.ts; carried by every request's
 * state (state.ts).
 */
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { MessageBus } from '../messenger/index.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Publisher } from '../realtime/index.js';
import type { SearchIndex } from '../search/index.js';
import type { Collection } from '../store/types.js';

/** What a committed write did to an item. */
export type ChangeKind = 'saved' | 'removed';

/** Runs the writes of one delete, or of a write with nested documents, all together (a store transaction). */
export type Transaction = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * What serves a loaded API beyond its metadata, made once by `serve` (per loaded file) or `consume`
 * (open-runtime.ts) and carried by every request's state: nothing in the pipeline finds these through a registry.
 */
export interface Runtime {
  readonly api: ApiMetadata;
  /** The store collection of a resource (wrapped by the HTTP cache's invalidation where it is on). */
  collectionOf(resource: ResourceMetadata): Collection;
  /**
   * Runs a delete's writes (relations/referential-actions.ts), or a write's with its nested documents
   * (relations/nested-writes.ts), in one store transaction, where the store has them.
   */
  readonly transaction?: Transaction;
  /**
   * Runs the writes of a batch of items (an import's, pipeline/import.ts) together: in one store transaction
   * where the store has them, the search index and the HTTP cache told once it ended.
   */
  readonly batch: Transaction;
  /** Where the API's Mercure updates go; none: nothing publishes. */
  readonly publisher?: Publisher;
  /** The message bus of the operations with `messenger` (writes/dispatch.ts) and of the consumers. */
  readonly bus: MessageBus;
  readonly logger: Logger;
  /** Include stack traces of unexpected errors in their 500 documents (`serve --debug`). */
  readonly debug: boolean;
  /** Where the counts of the operations' rate limits live (rate-limit-stores.ts). */
  readonly rateLimits: RateLimitStore;
  /** Who hears the changes published to the hub, besides it (GraphQL subscriptions); none: no one. */
  readonly published?: ChangeFeed;
  /** The search index the `elasticsearch` operations read (server/search/); none: no operation reads one. */
  readonly search?: SearchIndex;
  /**
   * Closes what the runtime opened: the bus, then the search index (after the changes still waiting for it). The
   * store, the publisher and the link are its maker's to close.
   */
  close(): Promise<void>;
}

/** A committed change as it was published (writes/mercure-updates.ts): the item's resource and IRI (a path). */
export interface PublishedChange {
  resource: ResourceMetadata;
  iri: string;
  kind: ChangeKind;
  /** `scheme://host[:port]` of the request that made it, when a request did. */
  origin?: string;
}

/** The published changes of one runtime, told to whoever listens (in this process only). */
export class ChangeFeed {
  private readonly listeners = new Set<(change: PublishedChange) => void>();

  /** Calls `listener` for every change published from now on, until the returned function is called. */
  listen(listener: (change: PublishedChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tell(change: PublishedChange): void {
    for (const l of this.listeners) l(change);
  }
}

/** Where rate-limit counts live (rate-limit-stores.ts): in the process, the primary of workers, Redis. */
export interface RateLimitStore {
  /** The counter of `limit` requests per `seconds` seconds, its keys under `prefix` (one per limited operation). */
  counter(prefix: string, limit: number, seconds: number): RateLimiterAbstract;
}
