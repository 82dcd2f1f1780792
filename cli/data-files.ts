/**
 * The data files `apidsl import` reads and `apidsl export` writes, as streams (memory stays bounded
 * whatever the file's size): a JSON array (stream-json), NDJSON (one JSON object per line) and CSV with a
 * header row (csv-parse / csv-stringify). CSV cells are text: they are typed from the resource's
 * properties before the record meets the same checks as a POST body.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { DuplexOptions, Readable, Writable } from 'node:stream';
import type { CsvError } from 'csv-parse';
import type { PropertyMetadata, ResourceMetadata } from '../server/metadata/types.js';
import type { Item } from '../server/store/types.js';
import { LineCounter, malformedMessage } from './csv-lines.js';

export type DataFormat = 'json' | 'ndjson' | 'csv';
export const DATA_FORMATS: readonly DataFormat[] = ['json', 'ndjson', 'csv'];

/** One record of a file and where it is, for error messages ("line 12", "record 3"). */
export interface DataRecord {
  value: unknown;
  where: string;
  /** The record's rank in the file (1-based). */
  n: number;
}

/** The format a file name says (.json, .ndjson or .jsonl, .csv), else undefined. */
export function formatOfFile(file: string): DataFormat | undefined {
  const ext = extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.csv') return 'csv';
  return undefined;
}

/** A record that cannot be read (an NDJSON line that is not JSON, a malformed CSV row): reported, the others still read. */
export class UnreadableRecord {
  constructor(readonly message: string) {}
}

/**
 * The records of a file, in order. A record that cannot be parsed is yielded as an UnreadableRecord when
 * the rest of the file can still be read (an NDJSON line, a CSV row); a broken JSON array or CSV header throws.
 */
export async function* readRecords(
  input: Readable,
  format: DataFormat,
  resource: ResourceMetadata,
): AsyncGenerator<DataRecord> {
  if (format === 'ndjson') yield* readNdjson(input);
  else if (format === 'json') yield* readJsonArray(input);
  else yield* readCsv(input, resource);
}

async function* readNdjson(input: Readable): AsyncGenerator<DataRecord> {
  const lines = createInterface({ input: input.setEncoding('utf8'), crlfDelay: Infinity });
  let line = 0;
  let n = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    n++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      value = new UnreadableRecord(`not JSON (${(e as Error).message})`);
    }
    yield { value, where: `line ${line}`, n };
  }
}

async function* readJsonArray(input: Readable): AsyncGenerator<DataRecord> {
  const { default: streamArray } = await import('stream-json/streamers/stream-array.js');
  // Not destroyed by a parse error, so that the records parsed before it are still read (then the error);
  // the options reach the Duplex, which its type does not say.
  const streamOptions: DuplexOptions = { autoDestroy: false };
  const items = input.pipe(streamArray.withParserAsStream(streamOptions as object));
  let n = 0;
  try {
    for await (const { value } of items as AsyncIterable<{ key: number; value: unknown }>) {
      n++;
      yield { value, where: `record ${n}`, n };
    }
  } catch (e) {
    throw new Error(`not a JSON array (after record ${n}): ${(e as Error).message}`);
  }
}

/**
 * CSV rows with the line each starts on. A malformed row (a wrong number of cells, a stray or unclosed
 * quote) does not stop the reading: csv-parse skips it (`skip_records_with_error`) and it comes out in its
 * place as an UnreadableRecord saying what is wrong. Only a malformed header row stops it.
 */
async function* readCsv(input: Readable, resource: ResourceMetadata): AsyncGenerator<DataRecord> {
  const { parse } = await import('csv-parse');
  const byName = new Map(resource.properties.map((p) => [p.name, p]));
  const lines = new LineCounter();
  /** Malformed rows, in file order, waiting for the records before them to be yielded. */
  const malformed: { line: number; message: string; last?: number }[] = [];
  /** A row starts on `line`: a malformed row before it that swallowed the lines between says so. */
  const starts = (line: number): number => {
    const before = malformed.at(-1);
    if (before && before.last === undefined) before.last = line - lines.emptyBefore - 1;
    return line;
  };
  const parser = input.pipe(
    parse({
      columns: true,
      bom: true,
      skip_empty_lines: true,
      raw: true,
      skip_records_with_error: true,
      on_skip: (error, raw) => {
        if (!error) return undefined;
        // Without its header row the file's columns are unknown: it cannot be read on.
        if ((error as CsvError & { header?: boolean }).header) throw new Error(`the header row: ${error.message}`);
        const line = lines.malformed(Number(error.lines), raw ?? '');
        if (line !== undefined) malformed.push({ line: starts(line), message: malformedMessage(error) });
        return undefined;
      },
      on_record: (read: { record: Record<string, string>; raw: string }, info) => ({
        record: read.record,
        line: starts(lines.record(info.lines, read.raw)),
      }),
    }),
  );
  let n = 0;
  const unreadable = (row: { line: number; message: string; last?: number }): DataRecord => ({
    value: new UnreadableRecord(
      row.last !== undefined && row.last > row.line
        ? `${row.message.replace(/\.$/, '')}; lines ${row.line} to ${row.last} were read as this row.`
        : row.message,
    ),
    where: `line ${row.line}`,
    n: ++n,
  });
  for await (const { record, line } of parser as AsyncIterable<{ record: Record<string, string>; line: number }>) {
    while (malformed.length > 0 && malformed[0].line < line) yield unreadable(malformed.shift()!);
    const value: Record<string, unknown> = {};
    for (const [column, cell] of Object.entries(record)) {
      // An empty cell is an absent value (CSV cannot tell an empty string from nothing).
      if (cell !== '') value[column] = cellValue(byName.get(column), cell);
    }
    yield { value, where: `line ${line}`, n: ++n };
  }
  for (const row of malformed) yield unreadable(row);
}

/** A CSV cell as the JSON value a POST body would hold; text that does not fit stays text (and is then refused). */
function cellValue(property: PropertyMetadata | undefined, cell: string): unknown {
  if (!property) return cell;
  if (property.array || property.type === 'json') return parseJson(cell);
  if (property.type === 'int' || property.type === 'number')
    return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(cell.trim()) ? Number(cell) : cell;
  if (property.type === 'bool' && (cell === 'true' || cell === 'false')) return cell === 'true';
  return cell;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Writes items to a file (or stdout) in a format, honouring back-pressure. */
export interface RecordWriter {
  write(item: Item): Promise<void>;
  end(): Promise<void>;
}

export async function recordWriter(
  out: string | undefined,
  format: DataFormat,
  resource: ResourceMetadata,
): Promise<RecordWriter> {
  const sink: Writable = out ? createWriteStream(out) : process.stdout;
  const put = async (text: string): Promise<void> => {
    if (!sink.write(text)) await once(sink, 'drain');
  };
  const finish = async (): Promise<void> => {
    if (sink === process.stdout) return;
    sink.end();
    await once(sink, 'finish');
  };
  if (format === 'ndjson') return { write: (item) => put(`${JSON.stringify(item)}\n`), end: finish };
  if (format === 'json') {
    let first = true;
    return {
      write: (item) => {
        const text = `${first ? '[\n' : ',\n'}${JSON.stringify(item)}`;
        first = false;
        return put(text);
      },
      end: async () => {
        await put(first ? '[]\n' : '\n]\n');
        await finish();
      },
    };
  }
  const { stringify } = await import('csv-stringify');
  const columns = resource.properties.map((p) => p.name);
  const csv = stringify({ header: true, columns });
  csv.pipe(sink, { end: false });
  return {
    write: async (item) => {
      const row = Object.fromEntries(columns.map((c) => [c, cellText(item[c])]));
      if (!csv.write(row)) await once(csv, 'drain');
    },
    end: async () => {
      csv.end();
      await once(csv, 'end');
      await finish();
    },
  };
}

/** A value as a CSV cell: objects and arrays as JSON, nothing as an empty cell. */
const cellText = (value: unknown): string =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value ?? '');
