/**
 * When this process last sent each kind of change of each document (docs/elasticsearch.md, "A change is trusted
 * once the document is quiet"). An engine can apply the writes it acknowledged later than it answered, and not in
 * the order it took them: ZincSearch appends a `_bulk` request's operations to a write-ahead log that a loop
 * applies every `ZINC_WAL_SYNC_INTERVAL`, merging each round's operations per target shard in a Go map, so an
 * indexing (addressed to every shard) and a delete (addressed to the shard that holds the document) taken in one
 * round are applied in random order: a delete applied first leaves the document indexed for good, an indexing
 * applied first is undone. So the engine's acceptance of a change is trusted only once no change of the other
 * kind of that document has been sent for `quiet` ms; until then the change stays pending and is sent again.
 */
import type { IndexChange } from './index-change.js';

/** How long after a change was sent the engine is taken to have applied it (milliseconds). */
export const QUIET = 10_000;

interface Sent {
  index?: number;
  delete?: number;
}

export class RecentChanges {
  /** `index/id` to the times its last indexing and last delete were sent, least recently sent first. */
  private readonly last = new Map<string, Sent>();

  constructor(
    private readonly quiet = QUIET,
    private readonly now = () => Date.now(),
  ) {}

  /** These changes were just sent, or their request just ended (one given up on may still be applied). */
  mark(changes: IndexChange[]): void {
    const at = this.now();
    for (const change of changes) {
      const key = keyOf(change);
      const sent = this.last.get(key) ?? {};
      sent[change.doc ? 'index' : 'delete'] = at;
      this.last.delete(key); // set again, last: the map stays in the order of sending
      this.last.set(key, sent);
    }
    for (const [key, sent] of this.last) {
      if (at - Math.max(sent.index ?? 0, sent.delete ?? 0) < this.quiet) break;
      this.last.delete(key);
    }
  }

  /** Milliseconds before the engine's acceptance of this change can be trusted (0: now). */
  wait(change: IndexChange): number {
    const sent = this.last.get(keyOf(change));
    const other = change.doc ? sent?.delete : sent?.index;
    return other === undefined ? 0 : Math.max(0, other + this.quiet - this.now());
  }
}

const keyOf = (change: IndexChange): string => `${change.index}/${change.id}`;
