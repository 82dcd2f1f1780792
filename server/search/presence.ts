/**
 * Which documents the engine holds now, asked with one `ids` search per index (a query Elasticsearch, OpenSearch
 * and ZincSearch share). It settles a delete the engine turned down: when the document is not there, the index
 * is as wanted (ZincSearch refuses the delete of a document it does not hold, with an error that says nothing).
 */
import { missingIndex, type SearchClient } from './client.js';
import type { IndexChange } from './index-change.js';

/** The `index/id` keys of these changes' documents that the engine holds; rejects when it cannot be asked. */
export async function heldByEngine(client: SearchClient, changes: IndexChange[]): Promise<Set<string>> {
  const byIndex = new Map<string, string[]>();
  for (const change of changes) byIndex.set(change.index, [...(byIndex.get(change.index) ?? []), change.id]);
  const held = new Set<string>();
  for (const [index, ids] of byIndex) {
    try {
      const { body } = await client.search({ index, body: { query: { ids: { values: ids } }, size: ids.length } });
      const hits = (body as { hits?: { hits?: { _id: string }[] } }).hits?.hits ?? [];
      for (const hit of hits) held.add(`${index}/${hit._id}`);
    } catch (err) {
      if (!missingIndex(err)) throw err; // no index: it holds nothing
    }
  }
  return held;
}
