// A stream of the embedded store (Collection.stream): rows read through better-sqlite3 iterators in batches, letting
// the event loop run between them. better-sqlite3 refuses every write on a connection while one of its iterators is
// open, so before each write the store closes the open cursors (Connection.quiesce); a stream whose cursor was
// closed reopens it strictly after the last row it read (keyset on the total order: sort, then key).
import type Database from 'better-sqlite3';
import type { CollectionSpec, Item, Query } from '../types.js';
import { rowItem, type Connection, type Row } from './connection.js';
import { compileStream, type StreamResume } from './query.js';

/** Rows a stream reads synchronously before it lets the event loop run (setImmediate). */
const STREAM_BATCH = 500;

export async function* streamItems(
  connection: Connection,
  spec: CollectionSpec,
  q: Query,
): AsyncGenerator<Item, void, undefined> {
  // A generator's body starts at the first next(): that is where an invalid query rejects.
  const first = compileStream(spec, q);
  let statement: Database.Statement | undefined; // the resumed query: its text is the same at every resume
  let resume: StreamResume | undefined;
  let rows: IterableIterator<Record<string, unknown>> | null = null;
  const close = (): void => {
    rows?.return?.();
    rows = null;
  };
  try {
    for (;;) {
      if (rows === null) {
        if (resume === undefined) {
          // Not a cached statement: a concurrent find with the same text would find it locked.
          rows = connection.db.prepare(first.sql).iterate(...first.params) as IterableIterator<Record<string, unknown>>;
        } else {
          if (q.limit !== undefined && resume.read >= q.limit) return;
          const next = compileStream(spec, q, resume);
          statement ??= connection.db.prepare(next.sql);
          rows = statement.iterate(...next.params) as IterableIterator<Record<string, unknown>>;
        }
        connection.cursors.add(close);
      }
      const batch: Item[] = [];
      let last: Record<string, unknown> | undefined;
      let done = false;
      while (batch.length < STREAM_BATCH) {
        const next = rows.next();
        if (next.done) {
          done = true;
          break;
        }
        last = next.value;
        batch.push(rowItem(spec, last as unknown as Row));
      }
      if (last) resume = { values: first.orderColumns.map((c) => last![c]), read: (resume?.read ?? 0) + batch.length };
      if (done) {
        connection.cursors.delete(close);
        rows = null;
      }
      // The consumer runs between these yields and may write, which closes the cursor: the batch is already read.
      for (const item of batch) yield item;
      if (done) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    close();
    connection.cursors.delete(close);
  }
}
