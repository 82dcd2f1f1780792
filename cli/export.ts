/**
 * `apidsl export FILE.api RESOURCE [--format json|ndjson|csv] [--out F]`: streams a resource's stored items
 * (identifier first, then the properties as stored) to a file or stdout, in identifier order. What it writes
 * imports back with `apidsl import`.
 */
import { basename } from 'node:path';
import type { Item } from '../server/store/types.js';
import { CommandError, findResource, openApiStore, runCommand } from './data-command.js';
import { openCollection } from '../server/pipeline/open-runtime.js';
import { formatOfFile, recordWriter, type DataFormat } from './data-files.js';
import { startProgress } from './progress.js';
import type { StoreFlags } from './store-flags.js';

export interface ExportOptions extends StoreFlags {
  format?: DataFormat;
  out?: string;
}

export function runExport(file: string, resourceName: string, opts: ExportOptions): Promise<number> {
  return runCommand({ command: 'export', file, flags: opts }, async () => {
    const format = opts.format ?? (opts.out ? formatOfFile(opts.out) : 'json');
    if (!format)
      throw new CommandError(
        `cannot tell the format of ${opts.out}: name it .json, .ndjson or .csv, or give --format.`,
      );
    const { api, store } = await openApiStore(file, opts, 'would export a store that is empty at every start');
    try {
      const resource = findResource(api, resourceName);
      const collection = await openCollection(store, resource);
      const id = resource.identifier?.name;
      const total = await collection.count();
      const writer = await recordWriter(opts.out, format, resource);
      // Progress only when the data goes to a file: on stdout it would mix with the data on a terminal.
      const progress = opts.out ? await startProgress(`exporting to ${basename(opts.out)}`, total) : undefined;
      let written = 0;
      for await (const item of collection.stream(id ? { sort: [{ field: id, direction: 'asc' }] } : {})) {
        await writer.write(ordered(item, id));
        written++;
        if (written % 1000 === 0) progress?.update(written, written);
      }
      await writer.end();
      const summary = `${written} ${resource.shortName} item${written === 1 ? '' : 's'} exported${opts.out ? ` to ${opts.out}` : ''}.`;
      if (progress) progress.stop(summary);
      else process.stderr.write(`${summary}\n`);
      return 0;
    } finally {
      await store.close();
    }
  });
}

/** The identifier first, as a reader expects it. */
const ordered = (item: Item, id: string | undefined): Item =>
  id === undefined || !Object.hasOwn(item, id) ? item : { [id]: item[id], ...item };
