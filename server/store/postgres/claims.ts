// Which resource or relation each table of the store is for. A resource's table and the join tables of to-many
// relations share one namespace: `Book.tags` (`book_tags`) and a resource `BookTags` (or one whose
// `stateOptions.table` is "book_tags"), or `Book.shelfTags` and `BookShelf.tags`, would meet in one table, each
// reading the other's rows as its own. The store refuses to open a collection whose tables another already holds:
// every command opens all of a file's collections at start, in any order, so a clash stops it before it serves.
// (Join tables keep the names `<owner>_<property>`, which a DBA reads and databases already hold; docs/postgresql.md.)
import { Refusal } from '../../refusal.js';
import type { CollectionSpec } from '../types.js';
import type { JoinList } from './join-tables.js';
import { tableOf } from './table.js';

const RENAME = 'rename the property or the resource, or name the resource\'s table (stateOptions: { table: "…" })';

interface Claim {
  /** The resource whose collection claimed it. */
  resource: string;
  /** What the table is, in words: `the table of resource Tag`, `the join table of Book.tags`. */
  what: string;
}

/** A collection's tables: its own, its lists' join tables, and its relations' targets' (made with it if missing). */
function tablesOf(spec: CollectionSpec): [string, Claim][] {
  const table = tableOf(spec);
  const resource = spec.name;
  const targets = [
    ...table.columns.flatMap((c) => (c.reference ? [c.reference.relation.target] : [])),
    ...table.lists.map((l) => l.reference.relation.target),
  ];
  return [
    [table.rawName, { resource, what: `the table of resource ${spec.name}` }],
    ...table.lists.map((l): [string, Claim] => [
      l.rawName,
      { resource, what: `the join table of ${spec.name}.${l.field}` },
    ]),
    ...targets.map((t): [string, Claim] => [tableOf(t).rawName, { resource, what: `the table of resource ${t.name}` }]),
  ];
}

export class TableClaims {
  private readonly claims = new Map<string, Claim>();

  /** Claims the collection's tables for it; refuses, claiming nothing, when one is another's. */
  claim(spec: CollectionSpec): void {
    const wanted = tablesOf(spec);
    // A collection opened again (its file changed) gives up what it claimed before.
    for (const [name, claim] of this.claims) if (claim.resource === spec.name) this.claims.delete(name);
    for (const [name, claim] of wanted) {
      const held = this.claims.get(name) ?? wanted.find(([n, c]) => n === name && c.what !== claim.what)?.[1];
      if (held && held.what !== claim.what)
        throw new Refusal(`PostgreSQL cannot keep ${held.what} and ${claim.what} in one table "${name}": ${RENAME}`);
    }
    for (const [name, claim] of wanted) this.claims.set(name, claim);
  }
}

/** A list's join table found without a join table's columns (`columns`): the name is another table's. */
export const notJoinTable = (spec: CollectionSpec, list: JoinList, columns: string[]): Refusal =>
  new Refusal(
    `PostgreSQL cannot keep the join table of ${spec.name}.${list.field} in the table "${list.rawName}": it is ` +
      `another table (it lacks the columns ${columns.map((c) => `"${c}"`).join(', ')}); ${RENAME}`,
  );
