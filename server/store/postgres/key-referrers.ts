// The tables referring to a table whose identifier's type changed (key-change.ts). `DROP TABLE … CASCADE` takes
// the foreign keys naming it, while the columns they were on (a to-one relation's, a join table's member column, a
// DBA's own) keep the old key's type. The table being empty, each such column holds no key (its foreign key saw to
// it): it is converted to the new key's type and its foreign key added again as it was, in the transaction that makes
// the table again, so that the change applies whole. A column that holds keys anyway (loaded past the foreign keys)
// refuses the change before anything runs.
import { Refusal } from '../../refusal.js';
import type { Connection } from './connection.js';
import { quoteIdent, type Table } from './table.js';

/** A single-column foreign key naming the changed table's key, from another table. */
export interface Referrer {
  /** The referring table as SQL (`"book_tags"`, schema-qualified when needed) and as the catalogue names it. */
  table: string;
  rawTable: string;
  /** Its column, unquoted; the foreign key's name and definition (`FOREIGN KEY (…) REFERENCES …`). */
  column: string;
  constraint: string;
  definition: string;
}

/** The foreign keys naming `table`'s key, from tables other than itself and those dropped with it (`dropped`). */
export async function referrersOf(connection: Connection, table: Table, dropped: string[]): Promise<Referrer[]> {
  const rows = await connection.rows(
    `SELECT CASE WHEN NOT pg_table_is_visible(r.oid) THEN n.nspname::text END, r.relname::text, a.attname::text, c.conname::text, pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] JOIN pg_attribute k ON k.attrelid = c.confrelid AND k.attnum = c.confkey[1] WHERE c.contype = 'f' AND c.confrelid = to_regclass($1) AND c.conrelid <> c.confrelid AND cardinality(c.conkey) = 1 AND k.attname = $2 AND NOT (c.conrelid = ANY (SELECT to_regclass(d) FROM unnest($3::text[]) AS d)) ORDER BY 2, 4`,
    [table.name, table.key.rawName, dropped],
  );
  return rows.map(([schema, rawTable, column, constraint, definition]) => ({
    table: `${schema === null ? '' : `${quoteIdent(schema as string)}.`}${quoteIdent(rawTable as string)}`,
    rawTable: rawTable as string,
    column: column as string,
    constraint: constraint as string,
    definition: definition as string,
  }));
}

/** Refuses the change when a referring column holds a key (of the old type: it would name no item of the new). */
export async function refuseHeld(connection: Connection, table: Table, referrers: Referrer[]): Promise<void> {
  for (const r of referrers) {
    const [row] = await connection.rows(`SELECT count(*) FROM ${r.table} WHERE ${quoteIdent(r.column)} IS NOT NULL`);
    const count = Number(row![0]);
    if (count === 0) continue;
    const rows = count === 1 ? '1 row' : `${count} rows`;
    throw new Refusal(
      `${table.spec.name}: the identifier type changed to ${table.key.type}, so its table is made again, but ${rows} ` +
        `of the table "${r.rawTable}" ${count === 1 ? 'holds' : 'hold'} keys of the old type in "${r.column}" ` +
        `(foreign key "${r.constraint}"): remove them first`,
    );
  }
}

/** What runs once the table is made again: each referring column given the new key's type, its foreign key added. */
export function referrerStatements(table: Table, referrers: Referrer[]): string[] {
  const type = table.key.type === 'int' ? 'bigint' : 'text';
  return referrers.flatMap((r) => {
    const column = quoteIdent(r.column);
    return [
      // Every value is NULL (or the table empty): the cast through text converts nothing, it only states the type.
      `ALTER TABLE ${r.table} ALTER COLUMN ${column} TYPE ${type} USING ${column}::text::${type}`,
      `ALTER TABLE ${r.table} ADD CONSTRAINT ${quoteIdent(r.constraint)} ${r.definition}`,
    ];
  });
}
