// Which resource or relation each table and index of the store is for. PostgreSQL keeps tables, indexes and
// sequences under one namespace, and the resources' tables share it with the join tables of to-many relations, the
// indexes the store makes and its own tables (`_apidsl_layouts`, `_apidsl_messages`, …): `Book.tags` (`book_tags`)
// and a resource `BookTags` (or one whose `stateOptions.table` is "book_tags"), `Book.shelfTags` and
// `BookShelf.tags`, or Book's index `book_title_idx` and a resource `BookTitleIdx`, would meet under one name, the
// second refused by the database half way or reading the first's rows as its own. The store refuses to open a
// collection whose names another already holds, or the database holds as something else (`refuseTaken`): every
// command inspects all of a file's collections at start, in any order, so a clash stops it before anything is made.
// (Join tables keep the names `<owner>_<property>`, which a DBA reads and databases already hold; docs/postgresql.md.)
import { Refusal } from '../../refusal.js';
import type { CollectionSpec } from '../types.js';
import type { Connection } from './connection.js';
import type { JoinList } from './join-tables.js';
import { indexDefinitions } from './schema.js';
import { tableOf } from './table.js';

const RENAME = 'rename the property or the resource, or name the resource\'s table (stateOptions: { table: "…" })';

interface Claim {
  /** The resource whose collection claimed it. */
  resource: string;
  /** What the name is, in words: `the table of resource Tag`, `an index of the join table of Book.tags`. */
  what: string;
  /** The table an index or a sequence is for (unquoted); undefined for a table. */
  on?: string;
  /** Named by PostgreSQL (a primary key's index, an identity's sequence), which picks another name when taken. */
  auto?: boolean;
}

/** The store's own tables, indexes and sequences are named so (queue.ts, schema.ts, cluster/postgres-updates.ts). */
const STORE_OWN = /^_apidsl_/i;

/**
 * A collection's own names: its table, its lists' join tables, the indexes the store makes on them, and the names
 * PostgreSQL gives their primary keys' indexes and the integer key's sequence (`book_pkey`, `book_id_seq`: taken
 * first by a table, they are named otherwise, but a table made after them is refused by the database).
 */
function ownNames(spec: CollectionSpec): [string, Claim][] {
  const table = tableOf(spec);
  const resource = spec.name;
  const own = `the table of resource ${spec.name}`;
  const join = (l: JoinList): string => `the join table of ${spec.name}.${l.field}`;
  const named = (name: string, what: string, on: string): [string, Claim][] =>
    Buffer.byteLength(name) <= 63 ? [[name, { resource, what, on, auto: true }]] : [];
  return [
    [table.rawName, { resource, what: own }],
    ...table.lists.map((l): [string, Claim] => [l.rawName, { resource, what: join(l) }]),
    ...named(`${table.rawName}_pkey`, `the primary key's index of ${own}`, table.rawName),
    ...(table.key.type === 'int'
      ? named(`${table.rawName}_${table.key.rawName}_seq`, `the key sequence of ${own}`, table.rawName)
      : []),
    ...table.lists.flatMap((l) => named(`${l.rawName}_pkey`, `the primary key's index of ${join(l)}`, l.rawName)),
    ...indexDefinitions(spec).map((i): [string, Claim] => [
      i.name,
      { resource, what: `an index of ${own}`, on: table.rawName },
    ]),
    ...table.lists.map((l): [string, Claim] => [
      l.memberIndex,
      { resource, what: `an index of ${join(l)}`, on: l.rawName },
    ]),
  ];
}

/** A collection's names: its own, and its relations' targets' tables (made with it if missing). */
function namesOf(spec: CollectionSpec): [string, Claim][] {
  const table = tableOf(spec);
  const targets = [
    ...table.columns.flatMap((c) => (c.reference ? [c.reference.relation.target] : [])),
    ...table.lists.map((l) => l.reference.relation.target),
  ];
  const resource = spec.name;
  return [
    ...ownNames(spec),
    ...targets.map((t): [string, Claim] => [tableOf(t).rawName, { resource, what: `the table of resource ${t.name}` }]),
  ];
}

/** Why two claims cannot share `name`. */
function clash(name: string, held: Claim, claim: Claim): Refusal {
  if (held.on === undefined && claim.on === undefined)
    return new Refusal(`PostgreSQL cannot keep ${held.what} and ${claim.what} in one table "${name}": ${RENAME}`);
  return new Refusal(
    `PostgreSQL cannot name both ${held.what} and ${claim.what} "${name}": tables, indexes and sequences share one namespace; ${RENAME}`,
  );
}

export class TableClaims {
  private readonly claims = new Map<string, Claim>();

  /** Claims the collection's tables and indexes for it; refuses, claiming nothing, when one is another's. */
  claim(spec: CollectionSpec): void {
    const wanted = namesOf(spec);
    for (const [name, claim] of wanted)
      if (STORE_OWN.test(name) && claim.on === undefined)
        throw new Refusal(
          `PostgreSQL cannot keep ${claim.what} in "${name}": names starting with _apidsl_ are the store's own tables; ${RENAME}`,
        );
    // A collection opened again (its file changed) gives up what it claimed before.
    for (const [name, claim] of this.claims) if (claim.resource === spec.name) this.claims.delete(name);
    for (const [name, claim] of wanted) {
      const held = this.claims.get(name) ?? wanted.find(([n, c]) => n === name && c.what !== claim.what)?.[1];
      if (held && held.what !== claim.what) throw clash(name, held, claim);
    }
    for (const [name, claim] of wanted) this.claims.set(name, claim);
  }
}

/** What a relation kind of the catalogue (pg_class.relkind) is, in words. */
const KINDS: Record<string, string> = {
  r: 'a table',
  p: 'a table',
  i: 'an index',
  I: 'an index',
  S: 'a sequence',
  v: 'a view',
  m: 'a materialized view',
  f: 'a foreign table',
};

/**
 * Refuses a collection whose table or join table the database holds as something else than a table (an index, a
 * sequence, a view: a DBA's, or another table's), or one of whose indexes it holds as something else than that
 * index of that table: the store would read an index as a table, or be refused half way.
 */
export async function refuseTaken(connection: Connection, spec: CollectionSpec): Promise<void> {
  const wanted = ownNames(spec).filter(([, claim]) => !claim.auto);
  const rows = await connection.rows(
    `SELECT n.name, c.relkind::text, t.relname FROM unnest($1::text[]) AS n(name) JOIN pg_class c ON c.oid = to_regclass(quote_ident(n.name)) LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = i.indrelid`,
    [wanted.map(([name]) => name)],
  );
  for (const [name, kind, on] of rows as [string, string, string | null][]) {
    const claim = wanted.find(([n]) => n === name)![1];
    const table = kind === 'r' || kind === 'p';
    if (claim.on === undefined ? table : kind === 'i' && on === claim.on) continue;
    const held = `${KINDS[kind] ?? 'a relation'}${on === null ? '' : ` of the table "${on}"`}`;
    const wants = claim.on === undefined ? `keep ${claim.what} in "${name}"` : `name ${claim.what} "${name}"`;
    throw new Refusal(
      `PostgreSQL cannot ${wants}: the database has ${held} of that name (tables, indexes and sequences share one namespace); ${RENAME}`,
    );
  }
}

/** A list's join table found without a join table's columns (`columns`): the name is another table's. */
export const notJoinTable = (spec: CollectionSpec, list: JoinList, columns: string[]): Refusal =>
  new Refusal(
    `PostgreSQL cannot keep the join table of ${spec.name}.${list.field} in the table "${list.rawName}": it is ` +
      `another table (it lacks the columns ${columns.map((c) => `"${c}"`).join(', ')}); ${RENAME}`,
  );
