// To-many relations (a list of IRIs) to a stored collection are join tables a person can read: `book_tags` for
// Book.tags, one row per member, with the owner's key, the member's position in the list (so that the list reads
// back in order) and the member's key, a foreign key to each side and an index on the member. The database
// enforces both sides: the owner's rows go with it (ON DELETE CASCADE); a member's row is refused a delete of its
// item when the relation restricts, and dropped with it otherwise (cascade, setNull: the pipeline has already
// deleted the owners, or taken the member out of their lists, by then). Items still hold lists of IRIs: the
// collection writes the rows with the item (same transaction) and reads them back aggregated, one sub-query per row
// of the one statement that reads a page.
import type { CollectionSpec } from '../types.js';
import { iriOf, keyOf, type Reference } from './references.js';

/** A value as a SQL literal (what a plan shows of a statement run with parameters: `apidsl migrate`, `apidsl diff`). */
export const sqlLiteral = (v: unknown): string =>
  typeof v === 'number' || typeof v === 'boolean' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;

export interface JoinList {
  field: string;
  reference: Reference;
  /** The join table, unquoted (for the catalogue) and quoted. */
  rawName: string;
  name: string;
  /** Its columns, quoted: the owner's key, the member's position (from 1), the member's key. */
  owner: string;
  position: string;
  member: string;
  ownerKeyType: 'int' | 'string';
  /** The foreign keys' and the member index's names, unquoted. */
  ownerForeignKey: string;
  memberForeignKey: string;
  memberIndex: string;
  /** The column the list was kept in as a jsonb list of IRIs before join tables, unquoted (converted: `convert`). */
  legacyColumn: string;
}

type Namer = (name: string) => string;

/** The join table of a to-many relation of `owner` (a table's name and key), undefined when it keeps jsonb. */
export function joinListOf(
  spec: CollectionSpec,
  field: string,
  owner: { rawName: string; key: { rawName: string; type: 'int' | 'string' } },
  column: string,
  target: (spec: CollectionSpec) => { rawName: string; key: { rawName: string; type: 'int' | 'string' } },
  names: { short: Namer; quote: Namer },
): JoinList | undefined {
  const relation = spec.relations?.[field];
  if (!relation?.many || spec.fields[field] !== 'array' || !relation.target.identifier) return undefined;
  const t = target(relation.target);
  const reference: Reference = { relation, table: t.rawName, keyColumn: t.key.rawName, keyType: t.key.type };
  const { short, quote } = names;
  const rawName = short(`${owner.rawName}_${column}`);
  const ownerColumn = short(`${owner.rawName}_${owner.key.rawName}`);
  let memberColumn = short(`${t.rawName}_${t.key.rawName}`);
  // A relation of a resource to itself (`book_related`): the member column is named by the property.
  if (memberColumn === ownerColumn) memberColumn = short(`${column}_${t.key.rawName}`);
  return {
    field,
    reference,
    rawName,
    name: quote(rawName),
    owner: quote(ownerColumn),
    position: quote('position'),
    member: quote(memberColumn),
    ownerKeyType: owner.key.type,
    ownerForeignKey: short(`${rawName}_${ownerColumn}_fkey`),
    memberForeignKey: short(`${rawName}_${memberColumn}_fkey`),
    memberIndex: short(`${rawName}_${memberColumn}_idx`),
    legacyColumn: column,
  };
}

const sqlType = (type: 'int' | 'string'): string => (type === 'int' ? 'bigint' : 'text');

/**
 * The member side's ON DELETE: a restricting relation refuses (checked at commit: the pipeline deletes an owner's
 * `owned` members before the owner, in one transaction, and the owner's rows go only with it), the others lose the
 * member.
 */
const memberAction = (list: JoinList): string =>
  list.reference.relation.onDelete === 'restrict' ? 'NO ACTION DEFERRABLE INITIALLY DEFERRED' : 'CASCADE';
/** The catalogue's letter of it (pg_constraint.confdeltype). */
export const memberActionCode = (list: JoinList): string =>
  list.reference.relation.onDelete === 'restrict' ? 'a' : 'c';

/** The member side's foreign key, as a table constraint. */
export const memberForeignKey = (list: JoinList): string =>
  `CONSTRAINT "${list.memberForeignKey}" FOREIGN KEY (${list.member}) REFERENCES "${list.reference.table}" ("${list.reference.keyColumn}") ON DELETE ${memberAction(list)}`;

/** The statements that make a join table (once the owner's and the target's tables exist). */
export function joinTableStatements(ownerTable: { name: string; key: { name: string } }, list: JoinList): string[] {
  const columns = [
    `${list.owner} ${sqlType(list.ownerKeyType)} NOT NULL`,
    `${list.position} integer NOT NULL`,
    `${list.member} ${sqlType(list.reference.keyType)} NOT NULL`,
    `PRIMARY KEY (${list.owner}, ${list.position})`,
    `CONSTRAINT "${list.ownerForeignKey}" FOREIGN KEY (${list.owner}) REFERENCES ${ownerTable.name} (${ownerTable.key.name}) ON DELETE CASCADE`,
    memberForeignKey(list),
  ];
  return [
    `CREATE TABLE ${list.name} (\n  ${columns.join(',\n  ')}\n)`,
    `CREATE INDEX "${list.memberIndex}" ON ${list.name} (${list.member})`,
  ];
}

/**
 * What moves a jsonb list of IRIs (the relation's column before join tables) into the new join table: a row per
 * member (the key after the target's prefix; an IRI of another form is cast as it is, so that the cast or the
 * foreign key refuses it, and the start with this SQL, rather than losing it), an empty list kept among the extra
 * members (a join table holds no row for it), and the column dropped.
 */
export function convertStatements(
  ownerTable: { name: string; key: { name: string }; extra: string },
  list: JoinList,
): string[] {
  const column = `o."${list.legacyColumn.replace(/"/g, '""')}"`;
  const prefix = sqlLiteral(list.reference.relation.keyPrefix);
  const key = `CASE WHEN starts_with(e.iri, ${prefix}) THEN substr(e.iri, char_length(${prefix}) + 1) ELSE e.iri END`;
  const extra = `coalesce(${ownerTable.extra}::jsonb, '{}')`;
  const field = sqlLiteral(list.field);
  return [
    `INSERT INTO ${list.name} (${list.owner}, ${list.position}, ${list.member}) SELECT o.${ownerTable.key.name}, e.ord, (${key})::${sqlType(list.reference.keyType)} FROM ${ownerTable.name} AS o, jsonb_array_elements_text(CASE jsonb_typeof(${column}) WHEN 'array' THEN ${column} END) WITH ORDINALITY AS e(iri, ord)`,
    `UPDATE ${ownerTable.name} AS o SET ${ownerTable.extra} = (${extra} || jsonb_build_object(${field}, '[]'::jsonb))::json WHERE ${column} = '[]'::jsonb AND NOT ${extra} ? ${field}`,
    `ALTER TABLE ${ownerTable.name} DROP COLUMN "${list.legacyColumn.replace(/"/g, '""')}"`,
  ];
}

/** The member keys of the list `owner` (the owner's key, as SQL) holds, in order, as a jsonb array (NULL: none). */
export const aggregate = (list: JoinList, owner: string): string =>
  `(SELECT jsonb_agg(m.${list.member} ORDER BY m.${list.position}) FROM ${list.name} AS m WHERE m.${list.owner} = ${owner})`;

/** Whether a row of the owner `owner` (SQL) has a member that passes `test` (on `m.<member>`, SQL). */
export const someMember = (list: JoinList, owner: string, test: (member: string) => string): string =>
  `EXISTS (SELECT 1 FROM ${list.name} AS m WHERE m.${list.owner} = ${owner} AND ${test(`m.${list.member}`)})`;

/** Whether the owner `owner` has any member. */
export const anyMember = (list: JoinList, owner: string): string =>
  `EXISTS (SELECT 1 FROM ${list.name} AS m WHERE m.${list.owner} = ${owner})`;

/**
 * The statements that write an owner's members: its rows removed, then the keys inserted in order ($1, $2), their
 * foreign key checked at once (`check`; `defer` after: see `memberAction`), so that a member naming no item is
 * refused by the insert that names it.
 */
export const writeStatements = (list: JoinList): { clear: string; check: string; insert: string; defer: string } => ({
  clear: `DELETE FROM ${list.name} WHERE ${list.owner} = $1`,
  check: `SET CONSTRAINTS "${list.memberForeignKey}" IMMEDIATE`,
  defer: `SET CONSTRAINTS "${list.memberForeignKey}" DEFERRED`,
  insert: `INSERT INTO ${list.name} (${list.owner}, ${list.position}, ${list.member}) SELECT $1, m.ord, m.key FROM unnest($2::${sqlType(list.reference.keyType)}[]) WITH ORDINALITY AS m(key, ord)`,
});

/**
 * The keys of a list value (its members of the target's form, in order) and whether the join table gives the value
 * back exactly: not when it is no list, is empty (no row tells it from absent), or has a member of another form
 * or spelled otherwise (`/tags/01`); the item then keeps the value among its extra members too (table.ts).
 */
export function membersOf(list: JoinList, value: unknown): { keys: (number | string)[]; exact: boolean } {
  if (!Array.isArray(value)) return { keys: [], exact: false };
  const keys: (number | string)[] = [];
  let exact = value.length > 0;
  for (const member of value) {
    const key = keyOf(list.reference, member);
    if (key === undefined) exact = false;
    else {
      keys.push(key);
      if (iriOf(list.reference, key) !== member) exact = false;
    }
  }
  return { keys, exact };
}

/** The list of IRIs the aggregated keys read back as. */
export const irisOf = (list: JoinList, keys: unknown[]): string[] => keys.map((k) => iriOf(list.reference, k));

/** The member a foreign key refused (the driver's detail names its key), else the whole list. */
export function refusedMember(list: JoinList, value: unknown, detail: string | undefined): unknown {
  const key = /^Key \(.*\)=\((.*)\) is not present/.exec(detail ?? '')?.[1];
  if (!Array.isArray(value) || key === undefined) return value;
  return value.find((v) => String(keyOf(list.reference, v)) === key) ?? value;
}

/**
 * The statement that fills a to-many relation's default into the owners lacking the list (no row, and no value kept
 * among their extra members, or a null one), answering how many it filled: a row per member of the default for
 * each, and the default kept among the extra members when the rows cannot give it back exactly (`kept`: jsonb,
 * NULL otherwise; see `membersOf`). `keys` (an array), `field` (text) and `kept` are SQL: parameters or literals.
 */
export function fillListStatement(
  ownerTable: { name: string; key: { name: string }; extra: string },
  list: JoinList,
  sql: { keys: string; field: string; kept: string },
): string {
  const { name: owner, extra } = ownerTable;
  const key = ownerTable.key.name;
  const { keys, field, kept } = sql;
  const merged = `(coalesce(o.${extra}::jsonb, '{}') - ${field}) || CASE WHEN ${kept} IS NULL THEN '{}' ELSE jsonb_build_object(${field}, ${kept}) END`;
  return (
    `WITH lacking AS (SELECT o.${key} AS key FROM ${owner} AS o WHERE NOT EXISTS (SELECT 1 FROM ${list.name} AS m WHERE m.${list.owner} = o.${key}) AND coalesce(o.${extra}::jsonb -> ${field}, 'null') = 'null'), ` +
    `members AS (INSERT INTO ${list.name} (${list.owner}, ${list.position}, ${list.member}) SELECT l.key, d.ord, d.key FROM lacking AS l, unnest(${keys}::${sqlType(list.reference.keyType)}[]) WITH ORDINALITY AS d(key, ord)), ` +
    `kept AS (UPDATE ${owner} AS o SET ${extra} = nullif(${merged}, '{}')::json FROM lacking AS l WHERE o.${key} = l.key AND (o.${extra} IS NOT NULL OR ${kept} IS NOT NULL)) ` +
    `SELECT count(*) FROM lacking`
  );
}

/**
 * `fillListStatement` with the default written in (what a plan shows of the statement `apidsl migrate` runs with
 * parameters: its `--dry-run`, and `apidsl diff`'s plan).
 */
export function fillListLiterals(
  ownerTable: { name: string; key: { name: string }; extra: string },
  list: JoinList,
  value: unknown,
): string {
  const { keys, exact } = membersOf(list, value);
  return fillListStatement(ownerTable, list, {
    keys: `ARRAY[${keys.map(sqlLiteral).join(', ')}]`,
    field: `${sqlLiteral(list.field)}::text`,
    kept: exact ? 'NULL::jsonb' : `${sqlLiteral(JSON.stringify(value))}::jsonb`,
  });
}
