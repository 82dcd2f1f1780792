/**
 * What the tests of the PostgreSQL store's schema changes share (test/store/postgres/migrate-plan, table-names,
 * key-change, key-referrers, retargeted): a Book and Tag API, `apidsl migrate` run in this process with what it
 * prints, the statements a run sends to PostgreSQL, and a refusal's message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { runMigrate } from '../../cli/migrate.js';
import { Refusal } from '../../server/refusal.js';

export const TAG =
  'resource Tag {\n  properties { code: string { identifier: true } }\n  operations { Post, Get }\n}\n';

/** A Book with `properties` (its identifier first) and `extra` declarations before it. */
export const bookApi = (properties: string, extra = '', operations = 'GetCollection, Post, Get'): string =>
  `${TAG}${extra}\nresource Book {\n  properties {\n${properties}\n  }\n  operations { ${operations} }\n}\n`;

/** A value as the plan writes it (store.ts `sqlValue`; the keys of a list as an ARRAY). */
const literal = (v: unknown): string => {
  if (v === null) return 'NULL';
  if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(', ')}]`;
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
};

/**
 * The statements a run sends that change the database, with their parameters written in, on one line each; not
 * catalogue reads, transaction control and savepoints, nor the store's own bookkeeping (its layouts, sequences).
 */
export async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; values?: unknown[] };
    const text = typeof q === 'string' ? q : q?.text;
    const values = (typeof q === 'string' ? (args[1] as unknown[]) : q?.values) ?? [];
    if (text) sent.push(text.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1])));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent
    .map((s) => s.replace(/\n\s*/g, ' '))
    .filter((s) => !/^(SELECT|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/.test(s) && !s.includes('"_apidsl_layouts"'));
}

/** Runs `apidsl migrate` in this process: its exit code, what it printed. */
export async function migrate(
  file: string,
  url: string,
  dryRun = false,
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write;
  try {
    const code = await runMigrate(file, { db: url, dryRun });
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}

export const planned = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('sql '))
    .map((l) => l.replace(/^sql +/, '').replace(/;$/, ''));

/** The message of the Refusal `opening` ends with (it fails the test when it resolves or throws another error). */
export async function refusal(opening: Promise<unknown>): Promise<string> {
  const error = await opening.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(Refusal);
  return (error as Error).message;
}

/** A temporary folder for the suite's .api files (made before it, removed after): `write` gives a file's path. */
export function apiFolder(prefix: string): (name: string, text: string) => string {
  let dir: string | undefined;
  before(() => void (dir = mkdtempSync(join(tmpdir(), prefix))));
  after(() => dir && rmSync(dir, { recursive: true, force: true }));
  return (name, text) => {
    const file = join(dir!, name);
    writeFileSync(file, text);
    return file;
  };
}
