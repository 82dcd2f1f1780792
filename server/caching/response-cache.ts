/**
 * The built-in response cache (`http_cache.in_process.max_bytes`, docs/behaviour.md "HTTP cache"): whole GET
 * responses kept in memory, bounded by bytes, least recently used dropped first (lru-cache), each filed under
 * its cache tags so that a write drops exactly the pages it touches.
 *
 * A response computed while an invalidation happened is not kept: it may have been read before the write and
 * finished after the write dropped the pages (the generation counter tells). Nothing is answered or kept while
 * the process does not hear the service's other processes (`vouches`, server/cluster/link.ts): it could miss
 * their writes.
 */
import { LRUCache } from 'lru-cache';

export interface CachedResponse {
  /** Every header of the response but the ones Node writes itself (cached-route.ts). */
  headers: Record<string, string | string[]>;
  body: Buffer;
  tags: string[];
  /** A response of a rate-limited operation: each hit is counted by its route, never answered before routing. */
  counted?: boolean;
}

/** Room taken by an entry besides its body: the key, headers and bookkeeping (an estimate). */
const OVERHEAD = 512;

export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse>;
  private readonly byTag = new Map<string, Set<string>>();
  /** Bumped by every invalidation. */
  private generation = 0;

  constructor(
    maxBytes: number,
    private readonly vouches: () => boolean = () => true,
  ) {
    this.entries = new LRUCache<string, CachedResponse>({
      maxSize: maxBytes,
      sizeCalculation: (entry, key) => entry.body.length + key.length + OVERHEAD,
      dispose: (entry, key) => this.unfile(entry, key),
    });
  }

  get(key: string): CachedResponse | undefined {
    return this.vouches() ? this.entries.get(key) : undefined;
  }

  /** A token to hand to `set`: the response computed after it is kept only if no invalidation came meanwhile. */
  begin(): number {
    return this.generation;
  }

  set(key: string, began: number, entry: CachedResponse): void {
    if (began !== this.generation || !this.vouches()) return;
    // An entry larger than the whole cache is refused by lru-cache; nothing to file then.
    if (entry.body.length + key.length + OVERHEAD > this.entries.maxSize) return;
    this.entries.set(key, entry);
    for (const tag of entry.tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Drops every response filed under any of `tags`. */
  invalidate(tags: readonly string[]): void {
    this.generation++;
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      for (const key of [...keys]) this.entries.delete(key);
    }
  }

  /** Drops every response. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private unfile(entry: CachedResponse, key: string): void {
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(tag);
    }
  }
}
