/**
 * `apidsl import FILE.api RESOURCE DATA.(json|ndjson|csv)`: streams the records of a data file into a
 * resource's store. Each record is checked as a POST body is (server/pipeline/record.ts); a refused one is
 * reported with its line (record for a JSON array) and skipped. Records are written in batches, each batch
 * one transaction on the embedded store, so an interrupted import keeps every finished batch and says the
 * `--skip N` that resumes it (docs/data.md).
 */
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { HttpError } from '../server/protocol/errors.js';
import { recordItem } from '../server/pipeline/record.js';
import { StoreConflictError, type Item } from '../server/store/types.js';
import { CommandError, findResource, openApiStore, openCollection, runCommand } from './data-command.js';
import { DATA_FORMATS, formatOfFile, readRecords, UnreadableRecord, type DataFormat } from './data-files.js';
import { startProgress } from './progress.js';
import type { StoreFlags } from './store-flags.js';

export interface ImportOptions extends StoreFlags {
  format?: DataFormat;
  batchSize: string;
  skip: string;
}

/** Refused records printed one by one; past this, only counted. */
const REPORTED_ERRORS = 100;

export function runImport(file: string, resourceName: string, dataFile: string, opts: ImportOptions): Promise<number> {
  return runCommand('import', async () => {
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
    try {
      const resource = findResource(api, resourceName);
      const collection = await openCollection(store, resource);
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
      /** The rank of the last record whose batch is committed: what --skip resumes from. */
      let committed = skip;
      const refuse = (where: string, message: string): void => {
        refused++;
        if (refused <= REPORTED_ERRORS)
          process.stderr.write(`${dataFile}:${where}: ${message.replaceAll('\n', '; ')}\n`);
        else if (refused === REPORTED_ERRORS + 1)
          process.stderr.write(`(more refused records are counted, not shown)\n`);
      };
      let batch: { item: Item; where: string }[] = [];
      let last = skip;
      const flush = async (): Promise<void> => {
        const write = async (): Promise<void> => {
          for (const { item, where } of batch) {
            try {
              await collection.insert(item);
              imported++;
            } catch (e) {
              if (!(e instanceof StoreConflictError)) throw e;
              refuse(where, `${e.message} (${JSON.stringify(item[resource.identifier?.name ?? ''])})`);
            }
          }
        };
        await (store.transaction ? store.transaction(write) : write());
        batch = [];
        committed = last;
      };
      try {
        for await (const record of readRecords(input, format, resource)) {
          if (record.n <= skip) continue;
          last = record.n;
          if (record.value instanceof UnreadableRecord) refuse(record.where, record.value.message);
          else {
            try {
              batch.push({ item: recordItem(api, resource, record.value), where: record.where });
            } catch (e) {
              if (!(e instanceof HttpError)) throw e;
              refuse(record.where, e.detail);
            }
          }
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
          `${dataFile}: ${(e as Error).message}${resumeHint(file, resourceName, dataFile, committed)}`,
        );
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
        input.destroy();
      }
      const summary = `${imported} ${resource.shortName} item${imported === 1 ? '' : 's'} imported, ${refused} record${refused === 1 ? '' : 's'} refused.`;
      progress.stop(
        interrupted ? `Interrupted: ${summary}${resumeHint(file, resourceName, dataFile, committed)}` : summary,
      );
      return refused > 0 || interrupted ? 1 : 0;
    } finally {
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

const resumeHint = (file: string, resource: string, dataFile: string, committed: number): string =>
  `\nThe first ${committed} records are done; to go on: apidsl import ${file} ${resource} ${dataFile} --skip ${committed}`;
