/** `apidsl consume FILE.api [--data DIR | --memory | --db URI]`: handles queued messages until stopped. */
import { startConsumer } from '../server/consume.js';
import { MessengerConfigError } from '../server/messenger/index.js';
import { CodeLoadError } from '../server/metadata/code.js';
import { CheckFailed } from '../server/serve.js';
import { printCheckFailure } from './report.js';
import { serveLogger } from './request-log.js';
import type { ServeCliOptions } from './serve.js';
import { boundTheStop, stopRequested, stopping } from './signals.js';
import { storageFor } from './store-flags.js';

export async function runConsume(file: string, opts: Pick<ServeCliOptions, 'data' | 'memory' | 'db'>): Promise<number> {
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
    if (e instanceof CheckFailed) {
      printCheckFailure(file, e.result);
      process.stderr.write(`apidsl consume: ${file} has errors; not starting.\n`);
      return 1;
    }
    if (
      e instanceof MessengerConfigError ||
      e instanceof CodeLoadError ||
      (e as NodeJS.ErrnoException).code === 'ENOENT' ||
      (e as NodeJS.ErrnoException).code === 'ECONNREFUSED'
    ) {
      process.stderr.write(`apidsl consume: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
  if (!stopping()) process.stdout.write(`apidsl consuming the messages of ${file}\n`);
  await stop;
  await consumer.stop();
  return 0;
}
