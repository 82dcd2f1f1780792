// What is read off a PostgreSQL connection URL without loading the driver: whether a `--db` value is one, the
// URL without its password (for messages), and the store's own parameters (pool size and time limits), which
// are taken out of the URL before the driver reads the rest.

/** The connection URL cannot be used (malformed, or a parameter of ours with a bad value). */
export class PostgresConfigError extends Error {
  override readonly name = 'PostgresConfigError';
}

export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

/** The URL without its password, for messages and logs. */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/?]*):[^@/?]*@/i, '$1:***@');
}

/** The database named by the URL's path (the driver's default, the user's name, when there is none). */
export function postgresDatabaseName(url: string): string {
  const m = /^postgres(?:ql)?:\/\/[^/?]*\/([^?]*)/i.exec(url);
  return m?.[1] ? decodeURIComponent(m[1]) : '';
}

export interface PoolSettings {
  /** Connections the pool may open (`pool_max`, default 10). */
  max: number;
  /**
   * Milliseconds a query may wait for a connection and run before it fails as unavailable (`query_timeout`,
   * default 5000, as MongoDB's server selection): a server that is down or frozen answers 503 within it.
   */
  queryTimeoutMs: number;
  /** Milliseconds a new connection may take (`connect_timeout_ms`, default 5000). */
  connectTimeoutMs: number;
  /** Idle connections are closed after this long (`idle_timeout_ms`, default 30000). */
  idleTimeoutMs: number;
}

const DEFAULTS: PoolSettings = { max: 10, queryTimeoutMs: 5_000, connectTimeoutMs: 5_000, idleTimeoutMs: 30_000 };

const PARAMETERS: Record<string, keyof PoolSettings> = {
  pool_max: 'max',
  query_timeout: 'queryTimeoutMs',
  connect_timeout_ms: 'connectTimeoutMs',
  idle_timeout_ms: 'idleTimeoutMs',
};

/** The store's settings read from the URL's query, and the URL without them (for the driver). */
export function poolSettings(url: string): { settings: PoolSettings; url: string } {
  const [base, query] = url.split('?', 2) as [string, string | undefined];
  const settings = { ...DEFAULTS };
  const kept: string[] = [];
  for (const pair of query ? query.split('&') : []) {
    const [name, value = ''] = pair.split('=', 2) as [string, string | undefined];
    const key = PARAMETERS[name.toLowerCase()];
    if (!key) {
      kept.push(pair);
      continue;
    }
    const n = Number(decodeURIComponent(value));
    if (!Number.isSafeInteger(n) || n < 1)
      throw new PostgresConfigError(
        `${name} in the PostgreSQL URL must be a positive integer, got ${JSON.stringify(value)}`,
      );
    settings[key] = n;
  }
  return { settings, url: kept.length > 0 ? `${base}?${kept.join('&')}` : base };
}
