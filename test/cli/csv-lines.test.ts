/**
 * The CSV rows `apidsl import` reads carry the line they start on, whatever the line endings (LF, CR LF,
 * breaks inside quoted cells), the empty lines between rows and the way the file arrives in chunks; a
 * malformed row comes out in its place as an unreadable record and the rows after it are still read.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { readRecords, UnreadableRecord } from '../../cli/data-files.js';
import type { ResourceMetadata } from '../../server/metadata/types.js';

const NOTE = {
  shortName: 'Note',
  properties: [
    { name: 'id', type: 'int', array: false, identifier: true },
    { name: 'title', type: 'string', array: false, identifier: false },
  ],
} as unknown as ResourceMetadata;

type Row =
  | { kind: 'ok'; parts: string[] } // a quoted title whose parts are joined by line breaks
  | { kind: 'short' | 'long' | 'stray' | 'empty' };

const row: fc.Arbitrary<Row> = fc.oneof(
  fc.record({
    kind: fc.constant('ok' as const),
    parts: fc.array(fc.stringMatching(/^[a-z ,"]{0,6}$/), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constantFrom('short' as const, 'long' as const, 'stray' as const, 'empty' as const) }),
);

describe('CLI: CSV rows and their lines', () => {
  it('gives every row the line it starts on and every malformed row its place, in any line ending and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.constantFrom('\n', '\r\n'),
        fc.integer({ min: 1, max: 40 }),
        async (rows, eol, inner, chunk) => {
          let text = `id,title${eol}`;
          let line = 2;
          const expected: { where: string; value: unknown }[] = [];
          rows.forEach((r, i) => {
            const id = i + 1;
            if (r.kind === 'empty') text += eol;
            else if (r.kind === 'ok') {
              const title = r.parts.join(inner);
              text += `${id},"${title.replaceAll('"', '""')}"${eol}`;
              expected.push({ where: `line ${line}`, value: title === '' ? { id } : { id, title } });
              line += r.parts.length - 1;
            } else {
              text += { short: `${id}`, long: `${id},a,b`, stray: `${id},a"b` }[r.kind] + eol;
              expected.push({ where: `line ${line}`, value: 'unreadable' });
            }
            line++;
          });
          const bytes = Buffer.from(text);
          const chunks: Buffer[] = [];
          for (let at = 0; at < bytes.length; at += chunk) chunks.push(bytes.subarray(at, at + chunk));
          const read: { where: string; value: unknown; n: number }[] = [];
          for await (const record of readRecords(Readable.from(chunks), 'csv', NOTE)) read.push(record);
          expect(read.map((r) => r.n)).to.deep.equal(read.map((_, i) => i + 1));
          expect(
            read.map((r) => ({ where: r.where, value: r.value instanceof UnreadableRecord ? 'unreadable' : r.value })),
          ).to.deep.equal(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
