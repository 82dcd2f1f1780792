/**
 * The PostgreSQL server of the tests: the machine's (APIDSL_TEST_POSTGRES_URL, default
 * `postgres://postgres@127.0.0.1:5432`), a fresh database per store or server (`CREATE DATABASE … TEMPLATE
 * template0`), dropped when the store is closed or, for servers, at the end of the run (in parallel: each drop
 * waits for a checkpoint).
 */
import pg from 'pg';
import { openPostgresStore } from '../../server/store/postgres/store.js';
import type { Store } from '../../server/store/types.js';

export const HOW_TO_ENABLE_POSTGRES =
  'start PostgreSQL 15 on 127.0.0.1:5432 (pg_ctlcluster --skip-systemctl-redirect 15 main start) or set APIDSL_TEST_POSTGRES_URL';

/** The server's URL without a database. */
export const testPostgresUrl = (): string =>
  (process.env.APIDSL_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432').replace(/\/[^/@]*$/, (m) =>
    m.includes(':') ? m : '',
  );

const withDatabase = (name: string): string => `${testPostgresUrl().replace(/\/$/, '')}/${name}`;

let counter = 0;
const created = new Set<string>();

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase('postgres'), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

let reachable: Promise<boolean> | undefined;

/** Whether the test server answers (asked once per process). */
export const postgresReachable = (): Promise<boolean> => (reachable ??= admin(async () => true).catch(() => false));

/** The URL of a new, empty database on the test server. */
export async function freshPostgresUrl(label = 't'): Promise<string> {
  const name = `apidsl_${label}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await admin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`));
  created.add(name);
  return withDatabase(name);
}

/** Drops a database this process created. */
export async function dropPostgresDatabase(url: string): Promise<void> {
  const name = url.slice(url.lastIndexOf('/') + 1).split('?')[0]!;
  if (!created.delete(name)) return;
  await admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Drops every database this process created and has not dropped yet, in parallel. */
export async function dropCreatedPostgresDatabases(): Promise<void> {
  const urls = [...created].map(withDatabase);
  await Promise.all(urls.map((url) => dropPostgresDatabase(url).catch(() => undefined)));
}

let warned = false;

/** The server for a mocha test: skips it (after one loud line) when there is none, except under CI=true. */
export async function postgresOrSkip(ctx: Mocha.Context): Promise<void> {
  if (await postgresReachable()) return;
  if (process.env.CI === 'true')
    throw new Error(`CI=true and no PostgreSQL for the PostgreSQL tests: ${HOW_TO_ENABLE_POSTGRES}`);
  if (!warned) {
    warned = true;
    process.stderr.write(
      `\n!!! PostgreSQL store tests SKIPPED: no server answers. To run them, ${HOW_TO_ENABLE_POSTGRES}.\n\n`,
    );
  }
  ctx.skip();
}

/** What `usePostgresStore` gives each test: the store on a fresh database, and a plain client on it. */
export interface FreshPostgresStore {
  store: Store;
  sql: pg.Client;
  /** The fresh database's URL (for another store on it). */
  url: string;
}

/**
 * Per test of the suite it is called in: a fresh database, the store opened on it and a plain client (`sql`) to
 * read what the store made; all closed and dropped afterwards. Skips as `postgresOrSkip` does.
 */
export function usePostgresStore(label: string): FreshPostgresStore {
  const fresh = {} as FreshPostgresStore;
  let url: string | undefined;
  beforeEach(async function () {
    await postgresOrSkip(this);
    url = fresh.url = await freshPostgresUrl(label);
    fresh.store = await openPostgresStore({ url });
    fresh.sql = new pg.Client({ connectionString: url });
    await fresh.sql.connect();
  });
  afterEach(async () => {
    await fresh.sql?.end();
    await fresh.store?.close();
    if (url) await dropPostgresDatabase(url);
  });
  return fresh;
}
