/**
 * Storage that outlives one server, on the store the suite runs on: for tests whose data a second `serve`, several
 * instances or workers, or a later command (import, reindex) must find again. With `APIDSL_TEST_STORE=mongodb` or
 * `postgres`, a fresh database of that server (dropped at the end of the run, harness.ts); else a `--data` directory
 * of the embedded store.
 */
import { join } from 'node:path';
import { freshDatabaseUri } from '../support/mongodb.js';
import { freshPostgresUrl } from '../support/postgres.js';

/** Whether the suite runs on a database server (MongoDB or PostgreSQL) rather than the embedded store. */
export const suiteDatabase = (): boolean => ['mongodb', 'postgres'].includes(process.env.APIDSL_TEST_STORE ?? '');

/** `--db` a fresh database of the suite's server, or `--data dir/data`. `label` names the database. */
export async function lastingStore(dir: string, label = 'l'): Promise<string[]> {
  const suite = process.env.APIDSL_TEST_STORE;
  if (suite === 'mongodb') return ['--db', await freshDatabaseUri(label)];
  if (suite === 'postgres') return ['--db', await freshPostgresUrl(label)];
  return ['--data', join(dir, 'data')];
}

/**
 * Like `lastingStore`, for the embedded message queue, which lives in the embedded store or in PostgreSQL: a fresh
 * database on PostgreSQL's run, else (MongoDB has no such queue) `--data dir/label`.
 */
export async function queueStore(dir: string, label = 'data'): Promise<string[]> {
  if (process.env.APIDSL_TEST_STORE === 'postgres') return ['--db', await freshPostgresUrl('q')];
  return ['--data', join(dir, label)];
}
