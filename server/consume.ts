/**
 * A worker for the queued messages of a `.api` file (`apidsl consume`): the same metadata, store and
 * handlers as the service, consuming the asynchronous transports in use until stopped. Updates of items
 * that handlers persist go to an external Mercure hub when one is set; with `cluster.redis`, to the built-in
 * hubs of the serving instances, and the handlers' writes drop the pages of their in-process caches.
 */
import type { Logger } from 'pino';
import { httpCaching } from './http/cache-invalidation.js';
import { MessengerConfigError } from './messenger/index.js';
import { startRuntime } from './pipeline/runtime.js';
import type { Runtime } from './pipeline/state.js';
import { Publishers } from './realtime/index.js';
import { loadApi, openStore, peerLink, type Storage } from './serve.js';

export interface RunningConsumer {
  stop(): Promise<void>;
}

export async function startConsumer(options: {
  file: string;
  storage: Storage;
  logger: Logger;
}): Promise<RunningConsumer> {
  const api = await loadApi(options.file);
  const store = await openStore(options.storage);
  const link = peerLink(api, options.storage, options.logger);
  const shared = api.settings.cluster.redisUrl !== undefined;
  const publishers = new Publishers(options.logger, link, false);
  let runtime: Runtime | undefined;
  try {
    runtime = await startRuntime(api, store, {
      logger: options.logger,
      // Without Redis, no process hears what a built-in hub would publish here.
      publisher: api.settings.mercure?.hub !== 'builtin' || shared ? publishers.of(api) : undefined,
      writes: httpCaching(api, options.logger, link, false).writes,
    });
    if (!runtime.bus.hasQueues())
      throw new MessengerConfigError(
        'no message goes through a queue (messenger.transport and messenger.routing are all "sync"): nothing to consume',
      );
    const consumer = await runtime.bus.consume();
    const bus = runtime.bus;
    return {
      stop: async () => {
        await consumer.stop();
        await publishers.close();
        await bus.close();
        await link.close();
        await store.close();
      },
    };
  } catch (e) {
    await publishers.close();
    await runtime?.bus.close();
    await link.close();
    await store.close().catch(() => undefined);
    throw e;
  }
}
