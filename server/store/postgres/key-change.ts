// An identifier whose type changed, on an empty table: the table is made again with the new key, and its join
// tables too (their owner column has the old key's type). Only the owner's own join tables are dropped, each known
// by its columns and its foreign key to the owner's table, and empty: a table of that name that is another's (a
// leftover of another owner, a DBA's own) is kept and the change refused, so that no data is ever lost. The tables
// referring to it are converted with it (key-referrers.ts).
import { Refusal } from '../../refusal.js';
import type { Connection } from './connection.js';
import type { JoinList } from './join-tables.js';
import { referrersOf, referrerStatements, refuseHeld } from './key-referrers.js';
import { rawOf } from './schema.js';
import type { Table } from './table.js';

/**
 * What a key change runs: `drops` before the table is made again, `remade` after (the referrers converted);
 * `dropped`: the tables `drops` drops, as SQL.
 */
export interface KeyChange {
  drops: string[];
  remade: string[];
  dropped: string[];
}

/**
 * The statements that drop the table whose key type changed and its join tables made (none for a list whose join
 * table is missing), and those that convert the tables referring to it once it is made again. Refused when a table
 * of a join table's name is no join table of this list or holds rows, or when a referring column holds keys.
 * `counted`: the caller found the table empty (the store, which runs it); a plan (false) leaves rows to the layout
 * check, which refuses a key change over stored items. `gone`: the tables
 * a plan dropped before this (their foreign keys go with them, so they refer to nothing then).
 */
export async function keyChange(
  connection: Connection,
  table: Table,
  counted = true,
  gone: string[] = [],
): Promise<KeyChange> {
  const drops: string[] = [];
  const dropped: string[] = [];
  for (const list of table.lists) {
    const lacks = await notOwnJoinTable(connection, table, list);
    if (lacks === undefined) continue;
    if (lacks)
      throw refused(
        table,
        `the table "${list.rawName}" is not the join table of ${where(table, list)} (it lacks ${lacks})`,
      );
    const rows = counted ? Number((await connection.rows(`SELECT count(*) FROM ${list.name}`))[0]![0]) : 0;
    if (rows > 0) throw refused(table, `the join table "${list.rawName}" of ${where(table, list)} holds ${rows} rows`);
    drops.push(`DROP TABLE ${list.name}`);
    dropped.push(list.name);
  }
  const referrers = await referrersOf(connection, table, [...dropped, ...gone]);
  // Counted, the table is empty (store.ts keptTable refused it otherwise). A plan may read one over stored items, which
  // the layout check refuses itself: the truer reason, so the referrers are not looked at then.
  if (counted || !(await holdsRows(connection, table))) await refuseHeld(connection, table, referrers);
  // CASCADE: the foreign keys naming it go too; the referrers' are added again once it is made.
  return {
    drops: [...drops, `DROP TABLE ${table.name} CASCADE`],
    remade: referrerStatements(table, referrers),
    dropped: [...dropped, table.name],
  };
}

const holdsRows = async (connection: Connection, table: Table): Promise<boolean> =>
  (await connection.rows(`SELECT EXISTS (SELECT 1 FROM ${table.name})`))[0]![0] as boolean;

const where = (table: Table, list: JoinList): string => `${table.spec.name}.${list.field}`;

const refused = (table: Table, why: string): Refusal =>
  new Refusal(
    `${table.spec.name}: the identifier type changed to ${table.spec.identifier?.type ?? 'int'}, so its tables are ` +
      `made again, but ${why}: it is kept; rename or drop it by hand`,
  );

/**
 * What a list's join table made lacks to be this owner's: its columns (exactly the owner's key, the position and
 * the member's key) or its foreign key from the owner column to the owner's table; '' when it is, undefined when
 * no table has its name.
 */
async function notOwnJoinTable(connection: Connection, table: Table, list: JoinList): Promise<string | undefined> {
  const columns = [list.owner, list.position, list.member].map((name) => rawOf({ name }));
  const rows = await connection.rows(
    `SELECT (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped), EXISTS (SELECT 1 FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] WHERE c.conrelid = r.oid AND c.contype = 'f' AND c.confrelid = to_regclass($2) AND cardinality(c.conkey) = 1 AND a.attname = $3) FROM pg_class r WHERE r.oid = to_regclass($1)`,
    [list.name, table.name, columns[0]],
  );
  if (rows.length === 0) return undefined;
  const [has, keyed] = rows[0]! as [string[], boolean];
  if ([...columns].sort().join() !== has.join()) return 'its columns';
  return keyed ? '' : `its foreign key to "${table.rawName}"`;
}
