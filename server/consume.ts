/**
 * A worker for the queued messages of a `.api` file (`apidsl consume`): the same metadata, store and
 * handlers as the service, consuming the asynchronous transports in use until stopped. Updates of items
 * that handlers persist go to an external Mercure hub when one is set (a built-in hub lives in `serve`).
 */
import type { Logger } from 'pino';
import { createBus, closeBuses, MessengerConfigError } from './messenger/index.js';
import { storePersistence } from './pipeline/writes/message-persistence.js';
import { deleteTransaction } from './pipeline/relations/referential-actions.js';
import { usePublisher } from './pipeline/writes/mercure-updates.js';
import { storageSpec } from './pipeline/representation/rendering.js';
import { closePublishers, publisherFor } from './realtime/index.js';
import { loadApi, openStore, type Storage } from './serve.js';
import type { Collection } from './store/types.js';

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
  try {
    const collections = new Map<string, Collection>();
    for (const r of api.resources) collections.set(r.shortName, await store.collection(storageSpec(r)));
    if (api.settings.mercure?.hub !== 'builtin') usePublisher(api, publisherFor(api, options.logger));
    const bus = createBus(
      api,
      store,
      storePersistence(api, collections, options.logger, deleteTransaction(store)),
      options.logger,
    );
    if (!bus.hasQueues())
      throw new MessengerConfigError(
        'no message goes through a queue (messenger.transport and messenger.routing are all "sync"): nothing to consume',
      );
    const consumer = await bus.consume();
    return {
      stop: async () => {
        await consumer.stop();
        await closePublishers();
        await closeBuses();
        await store.close();
      },
    };
  } catch (e) {
    await closeBuses();
    await store.close().catch(() => undefined);
    throw e;
  }
}
