/**
 * The embedded message queue: one table in the embedded store's SQLite database, shared by every process
 * that opens the same file (WAL lets a server and `apidsl consume` work on it together).
 *
 * A consumer takes a message by stamping `delivered_at` in an IMMEDIATE transaction, so two consumers never
 * take the same row; it deletes the row once handled (the acknowledgement). A row whose stamp is older than
 * the redelivery timeout belongs to a consumer that died mid-handler and is taken again: delivery is
 * at-least-once. A live consumer refreshes its stamp while its handler runs.
 */
import type Database from 'better-sqlite3';

export const QUEUE_TABLE = '_apidsl_messages';

export interface QueuedMessage {
  id: number;
  body: string;
  /** Failed deliveries before this one (retries). */
  attempts: number;
  /** Taken before by a consumer that never answered (it died mid-handler). */
  redelivered: boolean;
}

export interface MessageQueue {
  /** Stored (on disk with the file store) when it returns. */
  push(queue: string, body: string, delayMs?: number): void;
  /** Takes the next available message, or undefined. */
  take(queue: string, redeliverAfterMs: number): QueuedMessage | undefined;
  /** Refreshes the stamp of a message being handled. */
  keepAlive(id: number): void;
  /** Handled: removed. */
  ack(id: number): void;
  /** Put back, available after `delayMs`, its delivery counted. */
  retry(id: number, delayMs: number): void;
  /** Moved to another queue (the failure queue), delivery counted. */
  move(id: number, queue: string): void;
  count(queue: string): number;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${QUEUE_TABLE} (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE INDEX IF NOT EXISTS ${QUEUE_TABLE}_next ON ${QUEUE_TABLE} (queue, available_at, id);`;

/** `beforeWrite` closes the connection's open read cursors (see sqlite.ts). */
export function sqliteMessageQueue(db: Database.Database, beforeWrite: () => void): MessageQueue {
  beforeWrite();
  db.exec(SCHEMA);
  const insert = db.prepare(`INSERT INTO ${QUEUE_TABLE} (queue, body, available_at) VALUES (?, ?, ?)`);
  const next = db.prepare(
    `SELECT id, body, attempts, delivered_at IS NOT NULL AS redelivered FROM ${QUEUE_TABLE} WHERE queue = ? AND available_at <= ? AND (delivered_at IS NULL OR delivered_at < ?) ORDER BY available_at, id LIMIT 1`,
  );
  const stamp = db.prepare(`UPDATE ${QUEUE_TABLE} SET delivered_at = ? WHERE id = ?`);
  const remove = db.prepare(`DELETE FROM ${QUEUE_TABLE} WHERE id = ?`);
  const putBack = db.prepare(
    `UPDATE ${QUEUE_TABLE} SET delivered_at = NULL, attempts = attempts + 1, available_at = ? WHERE id = ?`,
  );
  const moveTo = db.prepare(
    `UPDATE ${QUEUE_TABLE} SET queue = ?, delivered_at = NULL, attempts = attempts + 1, available_at = ? WHERE id = ?`,
  );
  const count = db.prepare(`SELECT count(*) AS n FROM ${QUEUE_TABLE} WHERE queue = ?`);
  const takeTx = db.transaction((queue: string, redeliverAfterMs: number): QueuedMessage | undefined => {
    const now = Date.now();
    const row = next.get(queue, now, now - redeliverAfterMs) as
      (Omit<QueuedMessage, 'redelivered'> & { redelivered: number }) | undefined;
    if (!row) return undefined;
    stamp.run(now, row.id);
    return { ...row, redelivered: row.redelivered === 1 };
  });
  return {
    push(queue, body, delayMs = 0) {
      beforeWrite();
      insert.run(queue, body, Date.now() + delayMs);
    },
    take(queue, redeliverAfterMs) {
      beforeWrite();
      return takeTx.immediate(queue, redeliverAfterMs);
    },
    keepAlive(id) {
      beforeWrite();
      stamp.run(Date.now(), id);
    },
    ack(id) {
      beforeWrite();
      remove.run(id);
    },
    retry(id, delayMs) {
      beforeWrite();
      putBack.run(Date.now() + delayMs, id);
    },
    move(id, queue) {
      beforeWrite();
      moveTo.run(queue, Date.now(), id);
    },
    count(queue) {
      return (count.get(queue) as { n: number }).n;
    },
  };
}
