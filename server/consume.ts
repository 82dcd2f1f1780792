/**
 * A worker for the queued messages of a `.api` file (`apidsl consume`): the same metadata, store and
 * handlers as the service, consuming the asynchronous transports in use until stopped. Updates of items
 * that handlers persist go to an external Mercure hub when one is set (a built-in hub lives in `serve`).
 */
import type { Logger } from 'pino';
import { aloneLink } from './cluster/link.js';
import { MessengerConfigError } from './messenger/index.js';
import { startRuntime } from './pipeline/runtime.js';
import type { Runtime } from './pipeline/state.js';
import { Publishers } from './realtime/index.js';
import { loadApi, openStore, type Storage } from './serve.js';

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
  const publishers = new Publishers(options.logger, aloneLink());
  let runtime: Runtime | undefined;
  try {
    runtime = await startRuntime(api, store, {
      logger: options.logger,
      publisher: api.settings.mercure?.hub !== 'builtin' ? publishers.of(api) : undefined,
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
        await store.close();
      },
    };
  } catch (e) {
    await publishers.close();
    await runtime?.bus.close();
    await store.close().catch(() => undefined);
    throw e;
  }
}
