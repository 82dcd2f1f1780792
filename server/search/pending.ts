/**
 * The index changes not yet accepted by the engine, kept in the store itself (docs/elasticsearch.md, "Changes
 * the engine did not take"): one record per document (`index/id`), written after the store committed the item
 * and before the change is sent, removed once the engine accepted it. A write of the same document meanwhile
 * replaces the record with a new token, so the acceptance of an older change never removes a newer one. What
 * stays is retried with backoff and replayed at start-up; a retry re-reads the item from the store, so the
 * newest state wins (indexed when the store holds it, deleted from the index when it does not).
 */
import { randomUUID } from 'node:crypto';
import type { Collection, CollectionSpec, Item, Store } from '../store/types.js';
import type { IndexChange } from './index-change.js';

/** The store collection of pending changes (a name no `.api` resource is expected to take; docs say so). */
export const PENDING_SPEC: CollectionSpec = {
  name: '_search_index_pending',
  identifier: { field: 'key', type: 'string' },
  fields: { key: 'string', index: 'string', id: 'string', token: 'string' },
  indexes: [],
};

export class PendingChanges {
  constructor(private readonly records: Collection) {}

  static async open(store: Store): Promise<PendingChanges> {
    return new PendingChanges(await store.collection(PENDING_SPEC));
  }

  /** Records the changes (each gets its record, which `settle` removes once the engine took it). */
  async note(changes: IndexChange[]): Promise<void> {
    for (const change of changes) {
      const record = { key: `${change.index}/${change.id}`, index: change.index, id: change.id, token: randomUUID() };
      await this.records.upsert(record.key, record);
      change.pending = record;
    }
  }

  /** The engine took these changes: their records go, unless a newer change of the same document replaced them. */
  async settle(changes: IndexChange[]): Promise<void> {
    for (const change of changes)
      if (change.pending) await this.records.delete(change.pending.key as string, change.pending);
  }

  /** Up to `limit` pending changes, to be sent again as the store now holds their documents. */
  async due(limit: number): Promise<IndexChange[]> {
    const records = await this.records.find({ sort: [{ field: 'key', direction: 'asc' }], limit });
    return records.map((r: Item) => ({ index: r.index as string, id: r.id as string, reread: true, pending: r }));
  }
}
