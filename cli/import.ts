/**
 * `apidsl import FILE.api RESOURCE DATA.(json|ndjson|csv)`: streams the records of a data file into a
 * resource's store, each through the stages of a POST of it (server/pipeline/import.ts: its body denormalized,
 * its relations looked up, one query per target resource and batch, its constraints). A refused record, a
 * malformed one included, is reported with its line (record for a JSON array) and skipped. Records are written
 * in batches, each batch one transaction on the embedded store, so an interrupted import keeps every finished
 * batch and prints the command that resumes it (docs/data.md). Security rules do not apply: this is the
 * administrator's command, run on the store itself.
 */
import { createReadStream, statSync, type ReadStream } from 'node:fs';
import { basename } from 'node:path';
import { pino } from 'pino';
import type { ResourceMetadata } from '../server/metadata/types.js';
import { RecordImport, type RecordOutcome, type WriteRecord } from '../server/pipeline/import.js';
import { CommandError, findResource, openApiStore, runCommand } from './data-command.js';
import {
  DATA_FORMATS,
  formatOfFile,
  readRecords,
  UnreadableRecord,
  type DataFormat,
  type DataRecord,
} from './data-files.js';
import { startProgress, type Progress } from './progress.js';
import type { StoreFlags } from './store-flags.js';

export interface ImportOptions extends StoreFlags {
  format?: DataFormat;
  batchSize: string;
  skip: string;
}

/** Refused records printed one by one; past this, only counted. */
const REPORTED_ERRORS = 100;

/** What `run` needs of the command line, checked. */
interface ImportArgs {
  file: string;
  dataFile: string;
  format: DataFormat;
  batchSize: number;
  skip: number;
  /** The command that goes on from the first `done` records of the file. */
  resume: (done: number) => string;
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
    let records: RecordImport | undefined;
    try {
      const resource = findResource(api, resourceName);
      // Each committed batch reaches the search index too, as an API write would (server/search/index-sync.ts).
      records = await RecordImport.open(api, store, resource, pino(pino.destination(2)));
      const progress = await startProgress(`importing ${basename(dataFile)}`, size);
      const args = { file, dataFile, format, batchSize, skip, resume };
      return await new ImportRun(args, resource, records, progress).run();
    } finally {
      await records?.close();
      await store.close();
    }
  });
}

/** A record of the batch being read: its raw value, or why it cannot be read. */
interface Entry {
  n: number;
  where: string;
  value: unknown;
}

/** One run of the command: the records read, written batch by batch, refusals printed, the counts kept. */
class ImportRun {
  private imported = 0;
  private refused = 0;
  /** The rank of the last record whose write is committed (stored or refused): what --skip resumes from. */
  private committed: number;
  private interrupted = false;
  private readonly interrupt = (): void => {
    this.interrupted = true;
  };

  constructor(
    private readonly args: ImportArgs,
    private readonly resource: ResourceMetadata,
    private readonly records: RecordImport,
    private readonly progress: Progress,
  ) {
    this.committed = args.skip;
  }

  async run(): Promise<number> {
    const { dataFile, resume } = this.args;
    const input = createReadStream(dataFile);
    process.once('SIGINT', this.interrupt);
    process.once('SIGTERM', this.interrupt);
    /** A data file that cannot be read on (a broken JSON array): the records before it are still stored. */
    let unreadable: Error | undefined;
    try {
      unreadable = await this.readAndWrite(input);
    } catch (e) {
      this.progress.stop(`${this.imported} ${this.resource.shortName} items imported before the error.`);
      throw new CommandError(
        `stopped by a store error: ${(e as Error).message}\nThe first ${this.committed} records of ${dataFile} are done; to go on: ${resume(this.committed)}`,
      );
    } finally {
      process.off('SIGINT', this.interrupt);
      process.off('SIGTERM', this.interrupt);
      input.destroy();
    }
    const { imported, refused, committed } = this;
    const summary = `${imported} ${this.resource.shortName} item${imported === 1 ? '' : 's'} imported, ${refused} record${refused === 1 ? '' : 's'} refused.`;
    if (unreadable) {
      this.progress.stop(summary);
      throw new CommandError(
        `${dataFile}: ${unreadable.message}\nThe ${committed} records before the break are done; correct the file, then go on with: ${resume(committed)}`,
      );
    }
    this.progress.stop(
      this.interrupted
        ? `Interrupted: ${summary}\nThe first ${committed} records of ${dataFile} are done; to go on: ${resume(committed)}`
        : summary,
    );
    return refused > 0 || this.interrupted ? 1 : 0;
  }

  /** Reads the records and writes them batch by batch; the error that stopped the reading, if any. */
  private async readAndWrite(input: ReadStream): Promise<Error | undefined> {
    const { format, batchSize, skip } = this.args;
    const records = readRecords(input, format, this.resource)[Symbol.asyncIterator]();
    let batch: Entry[] = [];
    for (;;) {
      let next: IteratorResult<DataRecord>;
      try {
        next = await records.next();
      } catch (e) {
        await this.write(batch);
        return e as Error;
      }
      if (next.done) {
        this.interrupted = false; // a signal during the last batch stopped nothing
        break;
      }
      if (next.value.n <= skip) continue;
      batch.push(next.value);
      if (batch.length >= batchSize) {
        await this.write(batch);
        batch = [];
        this.progress.update(input.bytesRead, this.imported);
        if (this.interrupted) return undefined;
      }
    }
    await this.write(batch);
    return undefined;
  }

  /** Writes a batch: stored whole or not at all where the store has transactions, else record by record. */
  private async write(batch: readonly Entry[]): Promise<void> {
    if (batch.length === 0) return;
    const atomic = this.records.atomic;
    const readable = batch.flatMap((e) => (e.value instanceof UnreadableRecord ? [] : [e.value]));
    let stored = 0;
    await this.records.batch(readable, async (write: WriteRecord) => {
      for (const entry of batch) {
        const ok = await this.settle(entry, write);
        if (atomic) stored += ok ? 1 : 0;
        else {
          this.imported += ok ? 1 : 0;
          this.committed = entry.n;
        }
      }
    });
    this.imported += stored;
    this.committed = batch[batch.length - 1].n;
  }

  /** Writes one record, printing why it is refused; whether it was stored. */
  private async settle(entry: Entry, write: WriteRecord): Promise<boolean> {
    if (entry.value instanceof UnreadableRecord) {
      this.refuse(entry.where, entry.value.message);
      return false;
    }
    const outcome: RecordOutcome = await write(entry.value);
    if (!outcome.refusal) return true;
    const { detail, status } = outcome.refusal;
    // A taken identifier (only a record holding one is stored): the answer names no value, the line says which.
    const idName = this.resource.identifier?.name ?? '';
    const taken = status === 409 ? ` (${JSON.stringify((entry.value as Record<string, unknown>)[idName])})` : '';
    this.refuse(entry.where, detail + taken);
    return false;
  }

  private refuse(where: string, message: string): void {
    this.refused++;
    if (this.refused <= REPORTED_ERRORS)
      process.stderr.write(`${this.args.dataFile}:${where}: ${message.replaceAll('\n', '; ')}\n`);
    else if (this.refused === REPORTED_ERRORS + 1)
      process.stderr.write(`(more refused records are counted, not shown)\n`);
  }
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
