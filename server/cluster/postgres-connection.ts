/**
 * The connection a PostgreSQL link (postgres-link.ts) listens and notifies on: one of its own, apart from the
 * store's pool (a pooled connection is handed to others and may be closed while idle; LISTEN belongs to a
 * session). It reconnects by itself, every 0.2 s up to 2 s apart, and listens again to every channel before it
 * says it is up; it says at once when it broke, since what is notified until it listens again is lost to it.
 * Losing and regaining the server are logged once each, not at every attempt.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { poolSettings, redactPostgresUrl } from '../store/postgres/config.js';

/** How long a statement may take before it fails (the server may be frozen). */
const COMMAND_MS = 1000;
/** How long connecting may take. */
const CONNECT_MS = 2000;
/** The connection's name in `pg_stat_activity`, apart from the store's (`apidsl`). */
export const LINK_APPLICATION_NAME = 'apidsl cluster';

export interface ConnectionEvents {
  /** Connected and listening to every channel (again). */
  up(): void;
  /** The connection broke: notifications sent until it is up again are lost to this process. */
  down(): void;
  notified(channel: string, payload: string): void;
}

export class ListenConnection {
  private client: pg.Client | undefined;
  private closed = false;
  private attempts = 0;
  private unreachable = false;
  private readonly url: string;

  constructor(
    url: string,
    private readonly channels: readonly string[],
    private readonly events: ConnectionEvents,
    private readonly logger: Logger,
  ) {
    this.url = poolSettings(url).url;
    void this.connect();
  }

  get isUp(): boolean {
    return this.client !== undefined;
  }

  /** Runs a statement on this connection; fails at once while it is down. */
  async query(text: string, values?: unknown[]): Promise<unknown[][]> {
    if (!this.client) throw new Error('the cluster connection to PostgreSQL is down');
    return (await this.client.query({ text, values, rowMode: 'array' })).rows as unknown[][];
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: CONNECT_MS,
      query_timeout: COMMAND_MS,
      keepAlive: true,
      application_name: LINK_APPLICATION_NAME,
      // Nothing written here has to outlive a crash: a commit need not wait for the disk.
      options: '-c synchronous_commit=off',
    });
    client.on('error', () => undefined); // 'end' follows
    try {
      await client.connect();
      client.on('notification', (n) => this.events.notified(n.channel, n.payload ?? ''));
      for (const channel of this.channels) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (e) {
      void client.end().catch(() => undefined);
      return this.retry(e);
    }
    if (this.closed) return void client.end().catch(() => undefined);
    client.on('end', () => this.lost(client));
    this.client = client;
    this.attempts = 0;
    if (this.unreachable)
      this.logger.info({ postgres: redactPostgresUrl(this.url) }, 'cluster: PostgreSQL reachable again');
    this.unreachable = false;
    this.events.up();
  }

  /**
   * Breaks the connection (it reconnects as after any break): a statement whose fate is unknown (timed out) may
   * still be run by the server, and what follows it could be delayed without bound behind it.
   */
  reset(): void {
    const client = this.client;
    if (!client) return;
    this.lost(client);
    void client.end().catch(() => undefined);
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.events.down();
    this.retry(new Error('the connection closed'));
  }

  private retry(e: unknown): void {
    if (this.closed) return;
    if (!this.unreachable)
      this.logger.warn(
        { postgres: redactPostgresUrl(this.url), err: e instanceof Error ? e.message : String(e) },
        'cluster: PostgreSQL unreachable',
      );
    this.unreachable = true;
    this.attempts++;
    setTimeout(() => void this.connect(), Math.min(this.attempts * 200, 2000)).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
