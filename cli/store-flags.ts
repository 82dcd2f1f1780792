/**
 * The store options shared by `serve`, `import`, `export` and `reset`: `--data DIR`, `--memory`, `--db URI`
 * (MongoDB or PostgreSQL) and the APIDSL_DB or APIDSL_DATABASE_URL environment variables, resolved to one Storage
 * (or a message saying why not).
 */
import { defaultDataDir, type Storage } from '../server/storage.js';
import { redactUri } from '../server/store/mongodb/config.js';
import { isPostgresUrl, redactPostgresUrl } from '../server/store/postgres/config.js';
import { refuse } from './start-failure.js';

export interface StoreFlags {
  data?: string;
  memory?: boolean;
  db?: string;
}

/** The chosen storage, or the error message to print (prefixed with the command's name by the caller). */
export function storageOf(file: string, opts: StoreFlags): Storage | string {
  if ([opts.memory, opts.data, opts.db].filter(Boolean).length > 1) return 'choose one of --data, --memory and --db.';
  // APIDSL_DB (or APIDSL_DATABASE_URL) is the default store; --data and --memory still choose the embedded one.
  const variable = process.env.APIDSL_DB ? 'APIDSL_DB' : 'APIDSL_DATABASE_URL';
  const db = opts.db ?? (opts.memory || opts.data ? undefined : process.env[variable] || undefined);
  if (db && isPostgresUrl(db)) return { kind: 'postgres', url: db };
  if (db !== undefined && !/^mongodb(\+srv)?:\/\//i.test(db)) {
    return `${opts.db ? '--db' : variable} must be a MongoDB connection string (mongodb://host:port/name) or a PostgreSQL URL (postgres://user@host:5432/name).`;
  }
  if (db) return { kind: 'mongodb', uri: db };
  return opts.memory ? { kind: 'memory' } : { kind: 'file', dir: opts.data ?? defaultDataDir(file) };
}

/** The chosen storage for `command`, or undefined after printing why the flags are wrong. */
export function storageFor(command: string, file: string, opts: StoreFlags): Storage | undefined {
  const storage = storageOf(file, opts);
  if (typeof storage !== 'string') return storage;
  refuse(command, storage);
  return undefined;
}

/** Where a storage keeps its data, in words: for banners and messages. */
export function storageDescription(storage: Storage): string {
  if (storage.kind === 'memory') return 'in memory (lost when the process stops)';
  if (storage.kind === 'mongodb') return `MongoDB at ${redactUri(storage.uri)}`;
  if (storage.kind === 'postgres') return `PostgreSQL at ${redactPostgresUrl(storage.url)}`;
  return `embedded SQLite store in ${storage.dir}`;
}
