/**
 * `apidsl reset FILE.api [--yes]`: deletes every item of every resource the file declares, in the store
 * chosen by the same flags as `serve`. On a terminal it asks first; elsewhere it needs --yes.
 */
import { createInterface } from 'node:readline/promises';
import { CommandError, openApiStore, runCommand } from './data-command.js';
import { openCollection } from '../server/pipeline/open-runtime.js';
import { storageDescription, type StoreFlags } from './store-flags.js';

export interface ResetOptions extends StoreFlags {
  yes?: boolean;
}

export function runReset(file: string, opts: ResetOptions): Promise<number> {
  return runCommand({ command: 'reset', file, flags: opts }, async () => {
    const { api, storage, store } = await openApiStore(file, opts, 'has nothing to reset');
    try {
      const collections = await Promise.all(
        api.resources.map(async (r) => ({ name: r.shortName, collection: await openCollection(store, r) })),
      );
      const counts = await Promise.all(collections.map(({ collection }) => collection.count()));
      const total = counts.reduce((a, b) => a + b, 0);
      const what = `${total} item${total === 1 ? '' : 's'} of ${collections.map((c) => c.name).join(', ')} (${storageDescription(storage)})`;
      if (!opts.yes) {
        if (!process.stdin.isTTY || !process.stderr.isTTY) {
          throw new CommandError(
            `this deletes ${what}; not on a terminal, so nothing was deleted: add --yes to confirm.`,
          );
        }
        const ask = createInterface({ input: process.stdin, output: process.stderr });
        const answer = await ask.question(`Delete ${what}? [y/N] `);
        ask.close();
        if (!/^y(es)?$/i.test(answer.trim())) {
          process.stderr.write('Nothing deleted.\n');
          return 1;
        }
      }
      for (const { name, collection } of collections) {
        const n = await collection.clear();
        process.stderr.write(`${name}: ${n} item${n === 1 ? '' : 's'} deleted\n`);
      }
      return 0;
    } finally {
      await store.close();
    }
  });
}
