/**
 * Filling and repairing a resource's index from the store (`apidsl reindex`, docs/elasticsearch.md): every stored
 * item is written to the index in `_bulk` batches, then the documents the store no longer holds are removed (each
 * looked up in the store again just before, so an item created meanwhile is kept). Unlike the writes' sync, a
 * failure here stops the command: it is the repair.
 */
import type { ResourceMetadata } from '../metadata/types.js';
import type { Collection, Item } from '../store/types.js';
import type { SearchIndex } from './index.js';

/** Items per `_bulk` request. */
const BATCH = 500;

export interface ReindexCounts {
  indexed: number;
  removed: number;
}

/** The engine refused some documents of a batch (a mapping conflict, say). */
export class ReindexRefused extends Error {
  override readonly name = 'ReindexRefused';
}

export async function reindexResource(
  search: SearchIndex,
  store: Collection,
  resource: ResourceMetadata,
  progress: (indexed: number) => void,
): Promise<ReindexCounts> {
  const index = search.indexOf(resource);
  const idName = resource.identifier!.name;
  const sort = [{ field: idName, direction: 'asc' as const }];
  const held = new Set<string>();
  let batch: Item[] = [];
  let indexed = 0;
  const send = async (): Promise<void> => {
    if (batch.length === 0) return;
    await bulk(
      search,
      batch.flatMap((item) => [{ index: { _index: index, _id: String(item[idName]) } }, item]),
    );
    indexed += batch.length;
    batch = [];
    progress(indexed);
  };
  for await (const item of store.stream({ sort })) {
    held.add(String(item[idName]));
    batch.push(item);
    if (batch.length >= BATCH) await send();
  }
  await send();

  let removed = 0;
  let candidates: Item[] = [];
  const sweep = async (): Promise<void> => {
    if (candidates.length === 0) return;
    // Created in the store since it was read: kept.
    const since = new Set(
      (await store.getMany(candidates.map((c) => c[idName] as string | number))).map((i) => String(i[idName])),
    );
    const gone = candidates.map((c) => String(c[idName])).filter((id) => !since.has(id));
    if (gone.length)
      await bulk(
        search,
        gone.map((id) => ({ delete: { _index: index, _id: id } })),
      );
    removed += gone.length;
    candidates = [];
  };
  for await (const doc of search.collectionOf(resource).stream({ sort })) {
    if (held.has(String(doc[idName]))) continue;
    candidates.push(doc);
    if (candidates.length >= BATCH) await sweep();
  }
  await sweep();
  return { indexed, removed };
}

async function bulk(search: SearchIndex, lines: Record<string, unknown>[]): Promise<void> {
  const { body } = await search.client.bulk({ body: lines });
  const result = body as { errors?: boolean; items?: Record<string, { status?: number; error?: unknown }>[] };
  const refused = (result.items ?? []).flatMap((item) =>
    Object.values(item).filter((r) => r.error !== undefined && r.status !== 404),
  );
  if (refused.length > 0)
    throw new ReindexRefused(`the engine refused ${refused.length} documents: ${JSON.stringify(refused[0].error)}`);
}
