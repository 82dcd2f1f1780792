// The store's connections: one pg pool, its type parsers (bigint as a number, timestamptz and date as the ISO text
// items hold), and transactions. A transaction holds one pooled client; every query made inside its `run` (found
// through AsyncLocalStorage, so concurrent requests outside it keep using the pool) goes to that client.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { PoolSettings } from './config.js';
import { StoreUnavailableError } from '../types.js';
import { isUnavailable, storeError } from './errors.js';
import { datetimeText } from './table.js';

const INT8 = 20;
const TIMESTAMPTZ = 1184;
const DATE = 1082;

const TYPES = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8) return (text: string) => Number(text);
    if (oid === TIMESTAMPTZ) return datetimeText;
    if (oid === DATE) return (text: string) => text;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

export type Row = unknown[];

/**
 * A write that may be refused (a taken key, a repeated unique value) inside a transaction, under a savepoint: a
 * refused statement is undone alone and the transaction goes on, as SQLite's does, where PostgreSQL would refuse
 * every later statement of it (an import's batch stores the records after a refused one).
 */
async function refusable(client: pg.PoolClient, text: string, values: unknown[]): Promise<pg.QueryResult> {
  await client.query('SAVEPOINT apidsl_write');
  try {
    const result = await client.query({ text, values, rowMode: 'array' });
    await client.query('RELEASE SAVEPOINT apidsl_write');
    return result;
  } catch (e) {
    await client.query('ROLLBACK TO SAVEPOINT apidsl_write').catch(() => undefined);
    throw e;
  }
}

export class Connection {
  readonly pool: pg.Pool;
  private readonly inTransaction = new AsyncLocalStorage<pg.PoolClient>();
  /** Set inside a transaction that any refused write ends (`allOrNone`): its writes need no savepoint. */
  private readonly whole = new AsyncLocalStorage<boolean>();

  constructor(url: string, settings: PoolSettings) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: settings.max,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      idleTimeoutMillis: settings.idleTimeoutMs,
      // A query not answered in time fails (503) whatever it waits for: a frozen server included.
      query_timeout: settings.queryTimeoutMs,
      statement_timeout: settings.queryTimeoutMs,
      application_name: 'apidsl',
      options: '-c TimeZone=UTC -c DateStyle=ISO',
      types: TYPES,
    });
    // An idle connection the server closed (a restart): the pool drops it; the next query opens another.
    this.pool.on('error', () => undefined);
    // A connection lost while checked out (a transaction, a cursor) emits 'error' on its client, which the pool
    // listens to only while idle: unheard, it would end the process. Its query in flight and every later one fail
    // (503), and the client is released as broken.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** The rows of a statement, each an array of its columns; errors as store errors (`conflicts` says how). */
  async rows(text: string, values: unknown[] = [], conflicts?: (e: unknown) => unknown): Promise<Row[]> {
    return (await this.run(text, values, conflicts)).rows as Row[];
  }

  /** How many rows a statement changed. */
  async changed(text: string, values: unknown[] = [], conflicts?: (e: unknown) => unknown): Promise<number> {
    return (await this.run(text, values, conflicts)).rowCount ?? 0;
  }

  private async run(text: string, values: unknown[], conflicts?: (e: unknown) => unknown): Promise<pg.QueryResult> {
    const client = this.inTransaction.getStore();
    try {
      if (client && conflicts && !this.whole.getStore()) return await refusable(client, text, values);
      return await (client ?? this.pool).query({ text, values, rowMode: 'array' });
    } catch (e) {
      throw conflicts ? conflicts(e) : storeError(e);
    }
  }

  /** Runs `run` in a transaction (or in the one already open around it): committed when it resolves. */
  async transaction<T>(run: () => Promise<T>, isolation = 'READ COMMITTED'): Promise<T> {
    if (this.inTransaction.getStore()) return run();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw storeError(e);
    }
    let broken: unknown;
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      const result = await this.inTransaction.run(client, run);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      // A lost or stuck connection is closed rather than sent a ROLLBACK that would wait its own query timeout
      // (a frozen server: twice the bound); the server rolls back the transaction of a closed connection.
      if (e instanceof StoreUnavailableError || isUnavailable(e)) broken = e;
      else await client.query('ROLLBACK').catch((lost: unknown) => (broken = lost));
      throw storeError(e);
    } finally {
      // A client whose connection failed is not given back to the pool.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /**
   * Runs `run` in a transaction that a refused write rolls back whole (a bulk insert): its writes skip the
   * savepoint each would take otherwise (three statements less per row). Inside a transaction already open, whose
   * code may go on after a refused write, the writes keep their savepoints.
   */
  allOrNone<T>(run: () => Promise<T>): Promise<T> {
    if (this.inTransaction.getStore()) return run();
    return this.transaction(() => this.whole.run(true, run));
  }

  /**
   * Runs `run`, a write of several statements, as one: in a transaction of its own, or in the one open around it
   * under a savepoint, so that a write refused part way is undone whole while that transaction goes on (as
   * `refusable` does for one statement). In a transaction that a refused write ends (`allOrNone`), it is just run.
   */
  async atomic<T>(run: () => Promise<T>): Promise<T> {
    const client = this.inTransaction.getStore();
    if (!client) return this.transaction(run);
    if (this.whole.getStore()) return run();
    try {
      await client.query('SAVEPOINT apidsl_item');
    } catch (e) {
      throw storeError(e);
    }
    try {
      const result = await run();
      await client.query('RELEASE SAVEPOINT apidsl_item');
      return result;
    } catch (e) {
      await client.query('ROLLBACK TO SAVEPOINT apidsl_item').catch(() => undefined);
      throw storeError(e);
    }
  }

  /** A client of its own, for a cursor (released by the caller). */
  async client(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw storeError(e);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
