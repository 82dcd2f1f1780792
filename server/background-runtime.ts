/**
 * The runtime of a process that writes but serves no HTTP (`apidsl consume`, `apidsl mcp`): the same metadata,
 * store and pipeline as the service. Updates of what it writes go to an external Mercure hub when one is set;
 * with `cluster.redis` or on a PostgreSQL store, to the built-in hubs of the serving instances, and its writes drop
 * the pages of their in-process caches.
 */
import type { Logger } from 'pino';
import { httpCaching } from './caching/invalidation.js';
import type { ApiMetadata } from './metadata/types.js';
import { startRuntime } from './pipeline/open-runtime.js';
import type { Runtime } from './pipeline/runtime.js';
import { Publishers } from './realtime/index.js';
import { openStorage, sharedAcrossInstances, type Storage } from './storage.js';

export interface BackgroundRuntime {
  runtime: Runtime;
  /** Closes the publishers, the runtime, the link to the other processes and the store. */
  close(): Promise<void>;
}

export async function startBackgroundRuntime(
  api: ApiMetadata,
  storage: Storage,
  logger: Logger,
): Promise<BackgroundRuntime> {
  const opened = await openStorage(api, storage, logger);
  const shared = sharedAcrossInstances(api, storage);
  const publishers = new Publishers(logger, opened.link, false);
  let runtime: Runtime | undefined;
  const close = async (): Promise<void> => {
    await publishers.close();
    await runtime?.close();
    await opened.close().catch(() => undefined);
  };
  try {
    runtime = await startRuntime(api, opened.store, {
      logger,
      // Without Redis or PostgreSQL, no process hears what a built-in hub would publish here.
      publisher: api.settings.mercure?.hub !== 'builtin' || shared ? publishers.of(api) : undefined,
      writes: httpCaching(api, logger, opened.link, false).writes,
    });
    return { runtime, close };
  } catch (e) {
    await close();
    throw e;
  }
}
