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
import type { MessageQueue, QueuedMessage } from '../types.js';

export const QUEUE_TABLE = '_apidsl_messages';

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${QUEUE_TABLE} (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE INDEX IF NOT EXISTS ${QUEUE_TABLE}_next ON ${QUEUE_TABLE} (queue, available_at, id);`;

/** `beforeWrite` closes the connection's open read cursors (see store.ts). */
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
    `UPDATE ${QUEUE_TABLE} SET queue = ?, body = ?, delivered_at = NULL, attempts = attempts + 1, available_at = ? WHERE id = ?`,
  );
  const restoreTo = db.prepare(
    `UPDATE ${QUEUE_TABLE} SET queue = ?, body = ?, delivered_at = NULL, attempts = 0, available_at = ? WHERE id = ? AND queue = ?`,
  );
  const removeFrom = db.prepare(`DELETE FROM ${QUEUE_TABLE} WHERE id = ? AND queue = ?`);
  const listOf = db.prepare(`SELECT id, body FROM ${QUEUE_TABLE} WHERE queue = ? ORDER BY id`);
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
    async push(queue, body, delayMs = 0) {
      beforeWrite();
      insert.run(queue, body, Date.now() + delayMs);
    },
    async take(queue, redeliverAfterMs) {
      beforeWrite();
      return takeTx.immediate(queue, redeliverAfterMs);
    },
    async keepAlive(id) {
      beforeWrite();
      stamp.run(Date.now(), id);
    },
    async ack(id) {
      beforeWrite();
      remove.run(id);
    },
    async retry(id, delayMs) {
      beforeWrite();
      putBack.run(Date.now() + delayMs, id);
    },
    async move(id, queue, body) {
      beforeWrite();
      moveTo.run(queue, body, Date.now(), id);
    },
    async restore(id, from, queue, body) {
      beforeWrite();
      return restoreTo.run(queue, body, Date.now(), id, from).changes > 0;
    },
    async remove(id, queue) {
      beforeWrite();
      return removeFrom.run(id, queue).changes > 0;
    },
    async list(queue) {
      return listOf.all(queue) as { id: number; body: string }[];
    },
    async count(queue) {
      return (count.get(queue) as { n: number }).n;
    },
  };
}
