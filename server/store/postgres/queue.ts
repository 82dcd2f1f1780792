// The embedded message queue on PostgreSQL (docs/messenger.md): one table of the store's database,
// `_apidsl_messages`, shared by every process on it (servers, `apidsl consume`, on any machine), as the SQLite
// store's queue (sqlite/queue.ts) is by the processes of one machine.
//
// A consumer takes a message by stamping `delivered_at` in one statement that locks the row it picks and skips
// the rows others locked (`FOR UPDATE SKIP LOCKED`), so two consumers never take the same one; it deletes the row
// once handled. A row whose stamp is older than the redelivery timeout belongs to a consumer that died
// mid-handler and is taken again: delivery is at-least-once. Times are the server's (`clock_timestamp()`), the one
// clock every machine's consumers share.
import type { MessageQueue, QueuedMessage } from '../types.js';
import type { Connection } from './connection.js';

export const QUEUE_TABLE = '_apidsl_messages';

export const QUEUE_SCHEMA = `CREATE TABLE IF NOT EXISTS ${QUEUE_TABLE} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue text NOT NULL,
  body text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  available_at timestamptz NOT NULL,
  delivered_at timestamptz
);
CREATE INDEX IF NOT EXISTS ${QUEUE_TABLE}_next ON ${QUEUE_TABLE} (queue, available_at, id)`;

/** `$n` milliseconds from now on the server's clock. */
const after = (n: number): string => `clock_timestamp() + make_interval(secs => $${n}::double precision / 1000)`;

const TAKE = `WITH next AS (
  SELECT id, delivered_at IS NOT NULL AS redelivered FROM ${QUEUE_TABLE}
  WHERE queue = $1 AND available_at <= clock_timestamp()
    AND (delivered_at IS NULL OR delivered_at < clock_timestamp() - make_interval(secs => $2::double precision / 1000))
  ORDER BY available_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
)
UPDATE ${QUEUE_TABLE} m SET delivered_at = clock_timestamp() FROM next WHERE m.id = next.id
RETURNING m.id, m.body, m.attempts, next.redelivered`;

/** The queue of the store on `connection`; `create` makes its table (once, on first use, again after a failure). */
export function postgresMessageQueue(connection: Connection, create: () => Promise<void>): MessageQueue {
  let made: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (made ??= create().catch((e: unknown) => {
      made = undefined;
      throw e;
    }));
  const rows = async (text: string, values: unknown[]): Promise<unknown[][]> => {
    await ready();
    return connection.rows(text, values);
  };
  const changed = async (text: string, values: unknown[]): Promise<number> => {
    await ready();
    return connection.changed(text, values);
  };
  return {
    async push(queue, body, delayMs = 0) {
      await changed(`INSERT INTO ${QUEUE_TABLE} (queue, body, available_at) VALUES ($1, $2, ${after(3)})`, [
        queue,
        body,
        delayMs,
      ]);
    },
    async take(queue, redeliverAfterMs) {
      const [row] = await rows(TAKE, [queue, redeliverAfterMs]);
      if (!row) return undefined;
      const [id, body, attempts, redelivered] = row as [number, string, number, boolean];
      return { id, body, attempts, redelivered } satisfies QueuedMessage;
    },
    async keepAlive(id) {
      await changed(`UPDATE ${QUEUE_TABLE} SET delivered_at = clock_timestamp() WHERE id = $1`, [id]);
    },
    async ack(id) {
      await changed(`DELETE FROM ${QUEUE_TABLE} WHERE id = $1`, [id]);
    },
    async retry(id, delayMs) {
      await changed(
        `UPDATE ${QUEUE_TABLE} SET delivered_at = NULL, attempts = attempts + 1, available_at = ${after(2)} WHERE id = $1`,
        [id, delayMs],
      );
    },
    async move(id, queue, body) {
      await changed(
        `UPDATE ${QUEUE_TABLE} SET queue = $2, body = $3, delivered_at = NULL, attempts = attempts + 1, available_at = clock_timestamp() WHERE id = $1`,
        [id, queue, body],
      );
    },
    async restore(id, from, queue, body) {
      const n = await changed(
        `UPDATE ${QUEUE_TABLE} SET queue = $3, body = $4, delivered_at = NULL, attempts = 0, available_at = clock_timestamp() WHERE id = $1 AND queue = $2`,
        [id, from, queue, body],
      );
      return n > 0;
    },
    async remove(id, queue) {
      return (await changed(`DELETE FROM ${QUEUE_TABLE} WHERE id = $1 AND queue = $2`, [id, queue])) > 0;
    },
    async list(queue) {
      const found = await rows(`SELECT id, body FROM ${QUEUE_TABLE} WHERE queue = $1 ORDER BY id`, [queue]);
      return found.map(([id, body]) => ({ id: id as number, body: body as string }));
    },
    async count(queue) {
      return (await rows(`SELECT count(*) FROM ${QUEUE_TABLE} WHERE queue = $1`, [queue]))[0]![0] as number;
    },
  };
}
