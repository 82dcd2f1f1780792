/** `apidsl consume FILE.api [--data DIR | --memory | --db URI]`: handles queued messages until stopped. */
import { startConsumer } from '../server/consume.js';
import { serveLogger } from './request-log.js';
import { boundTheStop, stopRequested, stopping } from './signals.js';
import { startFailure } from './start-failure.js';
import { storageFor, type StoreFlags } from './store-flags.js';

export async function runConsume(file: string, opts: StoreFlags): Promise<number> {
  const storage = storageFor('consume', file, opts);
  if (!storage) return 1;
  if (stopping()) return 0;
  // A stop during the start lets it finish, then stops at once.
  const stop = stopRequested();
  void stop.then(() => boundTheStop('consume', 'the message being handled is'));
  let consumer;
  try {
    consumer = await startConsumer({ file, storage, logger: serveLogger() });
  } catch (e) {
    return startFailure({ command: 'consume', file, flags: opts }, e);
  }
  if (!stopping()) process.stdout.write(`apidsl consuming the messages of ${file}\n`);
  await stop;
  await consumer.stop();
  return 0;
}
