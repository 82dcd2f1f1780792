/**
 * `apidsl import FILE.api RESOURCE DATA.(json|ndjson|csv)`: streams the records of a data file into a
 * resource's store, each record checked as a POST of it would be (server/pipeline/record.ts): its body
 * denormalized, its relations looked up (one query per target resource and batch), its constraints. A
 * refused record, a malformed one included, is reported with its line (record for a JSON array) and
 * skipped. Records are written in batches, each batch one transaction on the embedded store, so an
 * interrupted import keeps every finished batch and prints the command that resumes it (docs/data.md).
 * Security rules do not apply: this is the administrator's command, run on the store itself.
 */
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { HttpError } from '../server/protocol/errors.js';
import { iriResolver } from '../server/protocol/iri.js';
import { checkRecordConstraints, recordItem } from '../server/pipeline/record.js';
import { relationLookup, type RelationLookup } from '../server/pipeline/relations/targets.js';
import type { ResourceMetadata } from '../server/metadata/types.js';
import { StoreConflictError, UniqueConflictError, type Collection, type Item } from '../server/store/types.js';
import { CommandError, findResource, openApiStore, runCommand } from './data-command.js';
import { openCollection, searchIndexOf } from '../server/pipeline/open-runtime.js';
import { pino } from 'pino';
import {
  DATA_FORMATS,
  formatOfFile,
  readRecords,
  UnreadableRecord,
  type DataFormat,
  type DataRecord,
} from './data-files.js';
import { startProgress } from './progress.js';
import type { StoreFlags } from './store-flags.js';

export interface ImportOptions extends StoreFlags {
  format?: DataFormat;
  batchSize: string;
  skip: string;
}

/** Refused records printed one by one; past this, only counted. */
const REPORTED_ERRORS = 100;

/** A record of the batch being read: the item it made, or why it is refused already. */
interface Entry {
  n: number;
  where: string;
  item?: Item;
  refusal?: string;
}

export function runImport(file: string, resourceName: string, dataFile: string, opts: ImportOptions): Promise<number> {
  return runCommand({ command: 'import', file, flags: opts }, async () => {
    const format = opts.format ?? formatOfFile(dataFile);
    if (!format)
      throw new CommandError(
        `cannot tell the format of ${dataFile}: name it .json, .ndjson or .csv, or give --format (${DATA_FORMATS.join(', ')}).`,
      );
    const batchSize = count(opts.batchSize, '--batch-size', 1);
    const skip = count(opts.skip, '--skip', 0);
    let size: number;
    try {
      size = statSync(dataFile).size;
    } catch (e) {
      throw new CommandError(`cannot read ${dataFile}: ${(e as Error).message}`);
    }
    const { api, store } = await openApiStore(
      file,
      opts,
      'would import into a store that is gone when the command ends',
    );
    /** The command that goes on from the first `done` records of the file. */
    const resume = (done: number): string =>
      shellCommand([
        'apidsl',
        'import',
        file,
        resourceName,
        dataFile,
        ...(opts.format ? ['--format', opts.format] : []),
        ...(opts.data ? ['--data', opts.data] : []),
        ...(opts.db ? ['--db', opts.db] : []),
        '--batch-size',
        String(batchSize),
        '--skip',
        String(done),
      ]);
    let closeSearch: () => Promise<void> | undefined = () => undefined;
    try {
      const resource = findResource(api, resourceName);
      const collections = new Map<ResourceMetadata, Promise<Collection>>();
      const collectionOf = (r: ResourceMetadata): Promise<Collection> => {
        if (!collections.has(r)) collections.set(r, openCollection(store, r));
        return collections.get(r)!;
      };
      // Each committed batch reaches the search index too, as an API write would (server/search/index-sync.ts).
      const search = searchIndexOf(api, pino(pino.destination(2)));
      closeSearch = () => search?.close();
      const stored = await collectionOf(resource);
      const collection = search ? search.syncing(stored, resource) : stored;
      const iris = iriResolver(api);
      /** Without transactions (MongoDB) each record's write stands on its own. */
      const atomic = store.transaction !== undefined;
      const input = createReadStream(dataFile);
      const progress = await startProgress(`importing ${basename(dataFile)}`, size);
      let interrupted = false;
      const interrupt = (): void => {
        interrupted = true;
      };
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);

      let imported = 0;
      let refused = 0;
      /** The rank of the last record whose write is committed (stored or refused): what --skip resumes from. */
      let committed = skip;
      const refuse = (where: string, message: string): void => {
        refused++;
        if (refused <= REPORTED_ERRORS)
          process.stderr.write(`${dataFile}:${where}: ${message.replaceAll('\n', '; ')}\n`);
        else if (refused === REPORTED_ERRORS + 1)
          process.stderr.write(`(more refused records are counted, not shown)\n`);
      };

      /** Stores the entry's item unless a POST of it would be refused; whether it was stored. */
      const write = async (entry: Entry, relations: RelationLookup): Promise<boolean> => {
        if (!entry.item) {
          refuse(entry.where, entry.refusal!);
          return false;
        }
        const item = entry.item;
        try {
          const dangling = relations.dangling(item);
          if (dangling !== undefined) throw new HttpError(400, dangling);
          checkRecordConstraints(api, resource, item);
          relations.add(resource, await collection.insert(item));
          return true;
        } catch (e) {
          if (e instanceof HttpError) refuse(entry.where, e.detail);
          else if (e instanceof UniqueConflictError)
            refuse(entry.where, `${e.fields[0]!}: This value is already used.`);
          else if (e instanceof StoreConflictError)
            refuse(entry.where, `${e.message} (${JSON.stringify(item[resource.identifier?.name ?? ''])})`);
          else throw e;
          return false;
        }
      };
      let batch: Entry[] = [];
      const flush = async (): Promise<void> => {
        if (batch.length === 0) return;
        const relations = await relationLookup(
          resource,
          batch.flatMap((e) => (e.item ? [e.item] : [])),
          iris,
          collectionOf,
        );
        let stored = 0;
        const writeAll = async (): Promise<void> => {
          for (const entry of batch) {
            const ok = await write(entry, relations);
            if (atomic) stored += ok ? 1 : 0;
            else {
              imported += ok ? 1 : 0;
              committed = entry.n;
            }
          }
        };
        const inStore = store.transaction ? () => store.transaction!(writeAll) : writeAll;
        await (search ? search.transaction(inStore) : inStore());
        imported += stored;
        committed = batch[batch.length - 1].n;
        batch = [];
      };

      const records = readRecords(input, format, resource)[Symbol.asyncIterator]();
      /** A data file that cannot be read on (a broken JSON array): the records before it are still stored. */
      let unreadable: Error | undefined;
      try {
        for (;;) {
          let next: IteratorResult<DataRecord>;
          try {
            next = await records.next();
          } catch (e) {
            unreadable = e as Error;
            break;
          }
          if (next.done) {
            interrupted = false; // a signal during the last batch stopped nothing
            break;
          }
          const record = next.value;
          if (record.n <= skip) continue;
          const entry: Entry = { n: record.n, where: record.where };
          if (record.value instanceof UnreadableRecord) entry.refusal = record.value.message;
          else {
            try {
              entry.item = await recordItem(api, resource, record.value);
            } catch (e) {
              if (!(e instanceof HttpError)) throw e;
              entry.refusal = e.detail;
            }
          }
          batch.push(entry);
          if (batch.length >= batchSize) {
            await flush();
            progress.update(input.bytesRead, imported);
            if (interrupted) break;
          }
        }
        if (!interrupted) await flush();
      } catch (e) {
        progress.stop(`${imported} ${resource.shortName} items imported before the error.`);
        throw new CommandError(
          `stopped by a store error: ${(e as Error).message}\nThe first ${committed} records of ${dataFile} are done; to go on: ${resume(committed)}`,
        );
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
        input.destroy();
      }
      const summary = `${imported} ${resource.shortName} item${imported === 1 ? '' : 's'} imported, ${refused} record${refused === 1 ? '' : 's'} refused.`;
      if (unreadable) {
        progress.stop(summary);
        throw new CommandError(
          `${dataFile}: ${unreadable.message}\nThe ${committed} records before the break are done; correct the file, then go on with: ${resume(committed)}`,
        );
      }
      progress.stop(
        interrupted
          ? `Interrupted: ${summary}\nThe first ${committed} records of ${dataFile} are done; to go on: ${resume(committed)}`
          : summary,
      );
      return refused > 0 || interrupted ? 1 : 0;
    } finally {
      await closeSearch();
      await store.close();
    }
  });
}

function count(text: string, flag: string, min: number): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min)
    throw new CommandError(`${flag} must be an integer of at least ${min} (got "${text}").`);
  return n;
}

/** Words as a POSIX shell command line: a word with characters the shell reads is single-quoted. */
const shellCommand = (words: string[]): string =>
  words.map((w) => (/^[\w./:=@%+,-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)).join(' ');
