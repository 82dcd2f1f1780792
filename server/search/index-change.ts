/** One change of a search index's document, as the writer (index-sync.ts) sends it and the journal (pending.ts) keeps it. */
import type { Item } from '../store/types.js';

/**
 * One change of a document: its new state, or none (deleted). A pending change (pending.ts) carries its record;
 * `reread` ones take their document from the store just before they are sent (a retry: the newest state wins).
 */
export type IndexChange = { index: string; id: string; pending?: Item; reread?: boolean } & (
  { doc: Item } | { doc?: undefined }
);
