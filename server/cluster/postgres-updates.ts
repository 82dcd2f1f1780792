/**
 * Updates of the built-in hub between instances on one PostgreSQL database (postgres-link.ts): a notification
 * holds less than 8000 bytes and is lost to an instance that is not listening at that moment, so an update is a
 * row of `_apidsl_hub_updates` (the last `KEPT` of the database kept), and a notification on the service's
 * updates channel only says there is one. Each instance reads the rows after the last it read: after a
 * reconnection it delivers what it missed, as the Redis link's stream does. This runs on a connection of its
 * own, so that the link's heartbeats and invalidations never wait behind it.
 *
 * The rows are added one at a time under a transaction lock, so their numbers commit in order and a reader that
 * saw row N has seen every row before it. Updates that cannot be added (the connection is down) are kept, up to
 * `QUEUED`, and added in order once it is back.
 */
import type { Logger } from 'pino';
import type { SharedUpdate } from './link.js';
import { ListenConnection } from './postgres-connection.js';

export const UPDATES_TABLE = '_apidsl_hub_updates';
/** Rows kept in the table (about: the older rows of every service on the database are deleted as rows are added). */
const KEPT = 10_000;
/** Updates kept while the connection is down, oldest dropped first. */
const QUEUED = 10_000;
/** Rows read at once. */
const BATCH = 500;
/** The transaction lock that orders the additions (any number: it only has to be the same in every instance). */
const APPEND_LOCK = 7_346_112_905;

const CREATE = `BEGIN;
SELECT pg_advisory_xact_lock(${APPEND_LOCK});
CREATE TABLE IF NOT EXISTS ${UPDATES_TABLE} (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel text NOT NULL,
  origin text NOT NULL,
  body text NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now()
);
COMMIT;`;

// One statement: the lock is taken before the row's number is drawn, and held until the commit.
const APPEND = `WITH locked AS (SELECT pg_advisory_xact_lock(${APPEND_LOCK})),
added AS (INSERT INTO ${UPDATES_TABLE} (channel, origin, body) SELECT $1, $2, $3 FROM locked RETURNING seq),
trimmed AS (DELETE FROM ${UPDATES_TABLE} WHERE seq <= (SELECT seq FROM added) - ${KEPT})
SELECT pg_notify($1, '') FROM added`;

const READ = `SELECT seq, origin, body FROM ${UPDATES_TABLE} WHERE channel = $1 AND seq > $2 ORDER BY seq LIMIT ${BATCH}`;

export class HubUpdates {
  private readonly connection: ListenConnection;
  /** The number of the last row read; unknown until the first connection (then: the table's end). */
  private last: number | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  /** Updates not added yet, in order. */
  private readonly queued: SharedUpdate[] = [];
  private adding = false;

  constructor(
    url: string,
    private readonly channel: string,
    private readonly origin: string,
    private readonly deliver: (update: SharedUpdate) => void,
    private readonly logger: Logger,
  ) {
    this.connection = new ListenConnection(
      url,
      [channel],
      { up: () => void this.connected(), down: () => undefined, notified: () => this.read() },
      logger,
    );
  }

  /** The connection is (again) up: makes the table when missing, adds the updates kept meanwhile, reads what was missed. */
  private async connected(): Promise<void> {
    try {
      await this.connection.query(CREATE);
      if (this.last === undefined)
        this.last = Number((await this.connection.query(`SELECT coalesce(max(seq), 0) FROM ${UPDATES_TABLE}`))[0]![0]);
    } catch {
      return; // down again: the next connection tries again
    }
    void this.addQueued();
    this.read();
  }

  share(update: SharedUpdate): void {
    this.queued.push(update);
    if (this.queued.length > QUEUED) {
      this.queued.shift();
      this.logger.warn('cluster: PostgreSQL unreachable for long; the oldest queued hub update was dropped');
    }
    void this.addQueued();
  }

  /** Adds the queued updates in order, until none is left or one cannot be added (kept for the next connection). */
  private async addQueued(): Promise<void> {
    if (this.adding || this.last === undefined) return;
    this.adding = true;
    try {
      while (this.queued.length > 0 && this.connection.isUp) {
        await this.connection.query(APPEND, [this.channel, this.origin, JSON.stringify(this.queued[0])]);
        this.queued.shift();
      }
    } catch {
      // kept; a statement that timed out may still have been run: the connection starts again, then adds the rest
      this.connection.reset();
    } finally {
      this.adding = false;
    }
  }

  /** Reads the rows added since the last read (once more when asked while reading). */
  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readAll().finally(() => {
      this.reading = undefined;
      if (this.readAgain) {
        this.readAgain = false;
        this.read();
      }
    });
  }

  private async readAll(): Promise<void> {
    for (let more = this.last !== undefined; more;) {
      let rows: unknown[][];
      try {
        rows = await this.connection.query(READ, [this.channel, this.last]);
      } catch {
        return; // read again once the connection is back (`connected`)
      }
      for (const [seq, origin, body] of rows) {
        this.last = Number(seq);
        if (origin !== this.origin) this.deliverRow(body as string);
      }
      more = rows.length === BATCH;
    }
  }

  private deliverRow(body: string): void {
    try {
      this.deliver(JSON.parse(body) as SharedUpdate);
    } catch {
      // not an update of ours
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
