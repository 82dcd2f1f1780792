/**
 * `apidsl reindex FILE.api [RESOURCE]`: fills the search index of every `elasticsearch` resource (or of one) from
 * the store, and removes the documents the store no longer holds (server/search/reindex.ts): the way to fill an
 * index the first time, and to repair one after the engine was away during writes (docs/elasticsearch.md). A
 * progress bar on a terminal, a line every few seconds elsewhere.
 */
import { pino } from 'pino';
import { indexedResources } from '../server/metadata/search-index.js';
import type { ResourceMetadata } from '../server/metadata/types.js';
import { openCollection, searchIndexOf } from '../server/pipeline/open-runtime.js';
import { reindexResource } from '../server/search/reindex.js';
import { CommandError, findResource, openApiStore, runCommand } from './data-command.js';
import { startProgress } from './progress.js';
import type { StoreFlags } from './store-flags.js';

export function runReindex(file: string, resourceName: string | undefined, opts: StoreFlags): Promise<number> {
  return runCommand({ command: 'reindex', file, flags: opts }, async () => {
    const { api, store } = await openApiStore(file, opts, 'holds nothing to index');
    const logger = pino(pino.destination(2));
    const search = searchIndexOf(api, logger);
    try {
      const indexed = indexedResources(api);
      if (!search || indexed.length === 0)
        throw new CommandError(
          `no operation of ${file} reads a search index (elasticsearch: true on a Get or GetCollection).`,
        );
      let resources: ResourceMetadata[] = indexed;
      if (resourceName !== undefined) {
        const resource = findResource(api, resourceName);
        if (!indexed.includes(resource))
          throw new CommandError(`no operation of ${resource.shortName} reads the search index (elasticsearch: true).`);
        resources = [resource];
      }
      if (!(await search.ready()))
        throw new CommandError(`the search engine at ${api.settings.searchIndex.hosts.join(', ')} did not answer.`);
      for (const resource of resources) {
        const collection = await openCollection(store, resource);
        const total = await collection.count();
        const index = search.indexOf(resource);
        const progress = await startProgress(`reindexing ${resource.shortName} into ${index}`, total);
        try {
          const counts = await reindexResource(search, collection, resource, (n) => progress.update(n, n));
          progress.stop(
            `${resource.shortName}: ${counts.indexed} documents written to ${index}, ${counts.removed} removed that the store no longer holds.`,
          );
        } catch (e) {
          progress.stop(`${resource.shortName}: stopped.`);
          throw new CommandError(`reindexing ${resource.shortName} into ${index} failed: ${(e as Error).message}`);
        }
      }
      return 0;
    } finally {
      await search?.close();
      await store.close();
    }
  });
}
