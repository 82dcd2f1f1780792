/**
 * A worker for the queued messages of a `.api` file (`apidsl consume`): consumes the asynchronous transports in
 * use until stopped, on the runtime of a process that serves no HTTP (background-runtime.ts).
 */
import type { Logger } from 'pino';
import { startBackgroundRuntime } from './background-runtime.js';
import { MessengerConfigError } from './messenger/index.js';
import { loadApi } from './load-api.js';
import type { Storage } from './storage.js';

export interface RunningConsumer {
  stop(): Promise<void>;
}

export async function startConsumer(options: {
  file: string;
  storage: Storage;
  logger: Logger;
}): Promise<RunningConsumer> {
  const api = await loadApi(options.file);
  const { runtime, close } = await startBackgroundRuntime(api, options.storage, options.logger);
  try {
    if (!runtime.bus.hasQueues())
      throw new MessengerConfigError(
        'no message goes through a queue (messenger.transport and messenger.routing are all "sync"): nothing to consume',
      );
    const consumer = await runtime.bus.consume();
    return {
      stop: async () => {
        await consumer.stop();
        await close();
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}
