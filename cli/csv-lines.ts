/**
 * CSV rows as `apidsl import` reports them (cli/data-files.ts reads the file with csv-parse): the line each
 * row starts on, and what is wrong with a row csv-parse skipped as malformed.
 */
import type { CsvError } from 'csv-parse';

/** What is wrong with a row csv-parse skipped, in words that do not repeat its line number. */
export function malformedMessage(error: CsvError): string {
  const e = error as CsvError & { record?: unknown[]; columns?: { name: string }[]; column?: string | number };
  switch (error.code) {
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
      return `this row has ${e.record?.length} cells, the header row ${e.columns?.length} (${e.columns?.map((c) => c.name).join(', ')}).`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted cell is not closed: the rest of the file was read as part of this row.';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `a quoted cell's closing quote is followed by ${/got "(.*?)"/.exec(error.message)?.[0].slice(4) ?? 'text'} (write a quote inside a quoted cell twice: "").`;
    case 'INVALID_OPENING_QUOTE':
      return `a quote inside the unquoted cell ${JSON.stringify(e.column)} (quote the whole cell and write the quote twice: "").`;
    default:
      return error.message;
  }
}

const BREAK = /\r\n|\r|\n/g;
const breaks = (text: string): number => text.match(BREAK)?.length ?? 0;
const crLfs = (text: string): number => text.match(/\r\n/g)?.length ?? 0;

/**
 * The line each row starts on, from what csv-parse reports as a row ends (its line counter) and the row's
 * raw text. csv-parse counts a CR LF inside a quoted cell as two lines (its raw text shows it whole, while it
 * shows a CR LF row delimiter as its CR alone), so that excess is taken off as it accumulates.
 */
export class LineCounter {
  /** The lines csv-parse counted twice so far. */
  private excess = 0;
  /** The raw text read so far of the last malformed row (csv-parse may report more errors in it). */
  private open = '';

  /** The first line of a row read whole. */
  record(parserLine: number, raw: string): number {
    this.close();
    const line = this.start(parserLine, raw);
    this.excess += crLfs(raw);
    return line;
  }

  /** The first line of a malformed row, or undefined when the error is another one in the row just reported. */
  malformed(parserLine: number, raw: string): number | undefined {
    if (this.open !== '' && raw.startsWith(this.open)) {
      this.open = raw;
      return undefined;
    }
    this.close();
    this.open = raw;
    return this.start(parserLine, raw);
  }

  /** The number of empty lines just before the row last counted. */
  emptyBefore = 0;

  private start(parserLine: number, raw: string): number {
    const excess = this.excess + crLfs(raw);
    // The raw text starts with the empty lines skipped before the row and ends with its delimiter.
    const empty = /^(\r\n|\r|\n)+/.exec(raw)?.[0] ?? '';
    this.emptyBefore = breaks(empty);
    const text = raw.slice(empty.length).replace(/(\r\n|\r|\n)$/, '');
    return parserLine - excess - breaks(text);
  }

  /** Counts the excess of the row read before (the part of a malformed row csv-parse showed). */
  private close(): void {
    this.excess += crLfs(this.open);
    this.open = '';
  }
}
