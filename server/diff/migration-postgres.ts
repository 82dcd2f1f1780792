/**
 * The PostgreSQL store's side of a migration plan (migration.ts), in the SQL the store runs itself
 * (store/postgres/schema.ts): a table per resource, a typed column per field, and the `_apidsl:extra` json column
 * holding what a column cannot keep exactly, which an item reads over its column (store/postgres/table.ts). A to-one
 * relation's column keeps its target's key, with a foreign key made once every new table is (references.ts).
 */
import type { Change } from '../store/layout.js';
import {
  creationStatements,
  fillStatements,
  foreignKeyStatements,
  indexDefinitions,
  indexUpgrade,
  joinTableUpgrade,
  LAYOUTS_TABLE,
  rawOf,
} from '../store/postgres/schema.js';
import {
  fillListLiterals,
  joinTableStatements,
  memberActionCode,
  type JoinList,
} from '../store/postgres/join-tables.js';
import { keyOf, type Reference } from '../store/postgres/references.js';
import { bound, quoteIdent, tableOf } from '../store/postgres/table.js';
import type { CollectionSpec, FieldType } from '../store/types.js';
import type { MigrationDialect } from './migration-dialect.js';
import { relationSteps, sameKeys } from './migration-postgres-relations.js';
import { iriText } from './postgres-iri.js';
import { renamedSpec } from './renamed-spec.js';

const literal = (v: unknown): string => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v));
/** One statement on one line (the table's DDL spans several). */
const statement = (sql: string): string => `${sql.replace(/\n\s*/g, ' ')};`;

/** The jsonb type (jsonb_typeof) a field's values have; json fields hold anything. */
const JSONB_TYPES: Partial<Record<FieldType, string>> = {
  int: 'number',
  number: 'number',
  bool: 'boolean',
  array: 'array',
  string: 'string',
  iri: 'string',
  datetime: 'string',
  date: 'string',
};

/**
 * A field's value in a row `r` as jsonb, as an item reads it: the extra member when there is one, else the column,
 * read through the row's jsonb (NULL when the column is not made yet, and whatever its type is now). A relation the
 * items were stored with as a key (`stored`'s layout) reads as the IRI the item holds.
 */
function stored(spec: CollectionSpec, field: string, storedSpec: CollectionSpec): string {
  const table = tableOf(spec);
  const row = `to_jsonb(r.*)`;
  if (field === spec.identifier?.field) return `${row} -> ${literal(table.key.rawName)}`;
  const list = tableOf(storedSpec).byList.get(field);
  if (list) return `coalesce(r.${table.extra}::jsonb -> ${literal(field)}, ${members(list, `r.${table.key.name}`)})`;
  // A to-many relation not kept in a join table yet: among the extra members, or in a jsonb column from before.
  const name = literal(table.byList.get(field)?.legacyColumn ?? rawOf(table.byField.get(field)!));
  // Keys the plan turned back into IRIs (migration-postgres-relations.ts) read as they are.
  const was = tableOf(storedSpec).byField.get(field)?.reference;
  const ref = sameKeys(was, table.byField.get(field)?.reference) ? was : undefined;
  const column = ref ? iriSql(ref, `(${row} ->> ${name})`) : `${row} -> ${name}`;
  return `coalesce(r.${table.extra}::jsonb -> ${literal(field)}, ${column})`;
}

/** The IRI of a key (SQL text) as jsonb. */
const iriSql = (ref: Reference, key: string): string => `to_jsonb(${iriText(ref, key)})`;

/** The list of IRIs a join table holds for the owner `owner` (SQL), as jsonb (NULL when none). */
const members = (list: JoinList, owner: string): string =>
  `(SELECT jsonb_agg(${iriSql(list.reference, `m.${list.member}::text`)} ORDER BY m.${list.position}) FROM ${list.name} AS m WHERE m.${list.owner} = ${owner})`;

/** What the value `s.v` is tested with when it is a number (a CASE: a WHERE may test its conditions in any order). */
const numeric = (test: string): string => `CASE jsonb_typeof(s.v) WHEN 'number' THEN ${test} END`;

/** The condition the stored value `s.v` of an item that contradicts the change meets; undefined when SQL cannot say. */
function contradicts(spec: CollectionSpec, c: Change): string | undefined {
  if (c.kind === 'required') return `coalesce(jsonb_typeof(s.v), 'null') = 'null'`;
  if (c.kind === 'type') {
    const type = spec.fields[c.subject]!;
    const allowed = JSONB_TYPES[type];
    const other = allowed && `jsonb_typeof(s.v) NOT IN ('null', ${literal(allowed)})`;
    // An int is a number without fraction that a JSON number holds exactly.
    const inexact = `s.v::numeric % 1 <> 0 OR abs(s.v::numeric) > ${Number.MAX_SAFE_INTEGER}`;
    return type === 'int' ? `${other} OR ${numeric(inexact)}` : other;
  }
  const key = c.detail.split(' ')[0] as keyof NonNullable<CollectionSpec['rules']>[string];
  const bound = spec.rules?.[c.subject]?.[key];
  switch (key) {
    case 'minimum':
      return numeric(`s.v::numeric < ${literal(bound)}`);
    case 'maximum':
      return numeric(`s.v::numeric > ${literal(bound)}`);
    case 'minLength':
      return `jsonb_typeof(s.v) = 'string' AND char_length(s.v #>> '{}') < ${literal(bound)}`;
    case 'maxLength':
      return `jsonb_typeof(s.v) = 'string' AND char_length(s.v #>> '{}') > ${literal(bound)}`;
    case 'enum':
      return `jsonb_typeof(s.v) <> 'null' AND s.v NOT IN (${(bound as unknown[]).map((x) => `${literal(JSON.stringify(x))}::jsonb`).join(', ')})`;
    default:
      return undefined; // a pattern: PostgreSQL's regular expressions are not JavaScript's
  }
}

function check(spec: CollectionSpec, c: Change, storedSpec: CollectionSpec): string[] {
  const table = tableOf(spec);
  if (c.kind === 'identifier') {
    const wanted = spec.identifier?.type === 'string' ? 'string' : 'number';
    return [
      `SELECT count(*) FROM ${table.name} AS r WHERE jsonb_typeof(to_jsonb(r.*) -> ${literal(table.key.rawName)}) <> '${wanted}';`,
    ];
  }
  if (c.kind === 'unique') {
    // Every item after the first with the same values (none null) is in the way.
    const fields = c.subject.split(',');
    const names = fields.map((_, i) => `v${i + 1}`);
    const values = names.map((v) => `s.${v}`);
    const distinct = values.length === 1 ? values[0]! : `(${values.join(', ')})`;
    return [
      `SELECT count(*) - count(DISTINCT ${distinct}) FROM ${table.name} AS r CROSS JOIN LATERAL (SELECT ${fields.map((f) => stored(spec, f, storedSpec)).join(', ')}) AS s(${names.join(', ')}) WHERE ${values.map((v) => `jsonb_typeof(${v}) <> 'null'`).join(' AND ')};`,
    ];
  }
  const condition = contradicts(spec, c);
  if (condition === undefined) return [`-- ${c.detail}: apidsl migrate --dry-run counts the items that do not fit`];
  return [
    `SELECT count(*) FROM ${table.name} AS r CROSS JOIN LATERAL (SELECT ${stored(spec, c.subject, storedSpec)}) AS s(v) WHERE ${condition};`,
  ];
}

/**
 * Moves a field's values to its new name: its column (or the key) renamed, the indexes named after it with it, the
 * values its column could not hold, kept among the extra members, moved to the new member, and the field renamed
 * in the collection's recorded layout.
 */
function renameField(spec: CollectionSpec, from: string, to: string): string[] {
  const [table, after] = [tableOf(spec), tableOf(renamedSpec(spec, new Map([[from, to]]), spec.name))];
  const isKey = from === spec.identifier?.field;
  const list = table.byList.get(from);
  let out: string[];
  if (list) out = renameJoinTable(list, after.byList.get(to)!);
  else {
    const was = isKey ? table.key.name : table.byField.get(from)!.name;
    const now = isKey ? after.key.name : after.byField.get(to)!.name;
    out = was === now ? [] : [`ALTER TABLE ${table.name} RENAME COLUMN ${was} TO ${now};`];
  }
  const [indexes, renamed] = [indexDefinitions(spec), indexDefinitions(after.spec)];
  if (indexes.length === renamed.length)
    indexes.forEach(({ name }, i) => {
      const next = renamed[i]!.name;
      if (next !== name) out.push(`ALTER INDEX IF EXISTS ${quoteIdent(name)} RENAME TO ${quoteIdent(next)};`);
    });
  if (isKey) return out;
  const extra = `${table.extra}::jsonb`;
  const [field, renamedField] = [`'{fields,${from}}'`, `'{fields,${to}}'`];
  out.push(
    `UPDATE ${table.name} SET ${table.extra} = ((${extra} - ${literal(from)}) || jsonb_build_object(${literal(to)}, ${extra} -> ${literal(from)}))::json WHERE ${extra} -> ${literal(from)} IS NOT NULL;`,
    // The recorded layout names the field as the new file does, so that the store's layout check at the next start
    // sees the same field (not a new one whose every stored value it checks again).
    `UPDATE ${LAYOUTS_TABLE} SET "layout" = jsonb_set("layout"::jsonb #- ${field}, ${renamedField}, "layout"::jsonb #> ${field})::text WHERE "collection" = ${literal(spec.name)} AND "layout"::jsonb #> ${field} IS NOT NULL;`,
  );
  return out;
}

/**
 * Whether an index statement names a column the old table lacks: the store makes that index with the column, when
 * the new file opens it (the plan's statements run before, on the old table).
 */
function onNewColumn(before: CollectionSpec, after: CollectionSpec, sql: string): boolean {
  const had = new Set(tableOf(before).columns.map((c) => c.name));
  const columns = sql.slice(sql.indexOf(' ON ') + 4);
  return tableOf(after).columns.some((c) => !had.has(c.name) && columns.includes(c.name));
}

/** A join table named after its relation's new name: the table, its member column and its constraints' names. */
function renameJoinTable(list: JoinList, next: JoinList): string[] {
  if (list.rawName === next.rawName) return [];
  const out = [`ALTER TABLE ${list.name} RENAME TO ${next.name};`];
  if (list.member !== next.member) out.push(`ALTER TABLE ${next.name} RENAME COLUMN ${list.member} TO ${next.member};`);
  const constraints: [string, string][] = [
    [`${list.rawName}_pkey`, `${next.rawName}_pkey`],
    [list.ownerForeignKey, next.ownerForeignKey],
    [list.memberForeignKey, next.memberForeignKey],
  ];
  for (const [was, now] of constraints)
    if (was !== now) out.push(`ALTER TABLE ${next.name} RENAME CONSTRAINT ${quoteIdent(was)} TO ${quoteIdent(now)};`);
  if (list.memberIndex !== next.memberIndex)
    out.push(`ALTER INDEX ${quoteIdent(list.memberIndex)} RENAME TO ${quoteIdent(next.memberIndex)};`);
  return out;
}

/**
 * The join tables of the to-many relations `after` adds (or whose member foreign key's action changes), but for
 * those the fill of a default makes (`listFill`), which comes first.
 */
function joinTables(before: CollectionSpec, after: CollectionSpec): string[] {
  const made = new Map(tableOf(before).lists.map((l) => [l.rawName, { memberAction: memberActionCode(l) }]));
  for (const l of tableOf(after).lists)
    if (madeByFill(before, after, l.field)) made.set(l.rawName, { memberAction: memberActionCode(l) });
  return joinTableUpgrade(after, made).map(statement);
}

/** Whether a fill step makes the join table of `field`: a new to-many relation, required with a default. */
function madeByFill(before: CollectionSpec, after: CollectionSpec, field: string): boolean {
  const rules = after.rules?.[field];
  return !tableOf(before).byList.has(field) && rules?.required === true && rules.default !== undefined;
}

/**
 * A to-many relation's default filled as `apidsl migrate` fills it (its `--dry-run` lists the same statement): its
 * join table made first when the relation is new (the `indexes` step, after this one, leaves it out).
 */
function listFill(spec: CollectionSpec, list: JoinList, value: unknown, stored: CollectionSpec): string[] {
  const table = tableOf(spec);
  const made = madeByFill(stored, spec, list.field) ? joinTableStatements(table, list) : [];
  return [...made, fillListLiterals(table, list, value)].map(statement);
}

export const POSTGRES: MigrationDialect = {
  store: 'postgresql',
  create: (spec) => creationStatements(spec).map(statement),
  constraints: (spec) => [...foreignKeyStatements(spec), ...joinTableUpgrade(spec, new Map())].map(statement),
  indexes: (before, after) => [
    ...indexUpgrade(after, new Set(indexDefinitions(before).map((i) => i.name)))
      .filter((s) => !onNewColumn(before, after, s))
      .map(statement),
    ...joinTables(before, after),
  ],
  check,
  fill(spec, field, value, stored) {
    const table = tableOf(spec);
    const list = table.byList.get(field);
    if (list) return listFill(spec, list, value, stored);
    const column = table.byField.get(field)!;
    // A relation's column takes the key of the IRI (the store refuses to start on a default of another form).
    const held = column.reference ? keyOf(column.reference, value) : bound(column.type, value);
    if (held === undefined) return [`-- ${field}: its default is no IRI of ${column.reference!.relation.keyPrefix}…`];
    return fillStatements(table, column, literal(held), literal(field)).map(statement);
  },
  holding(spec, field) {
    const table = tableOf(spec);
    const value = `coalesce(r.${table.extra}::jsonb -> ${literal(field)}, to_jsonb(r.*) -> ${literal(rawOf(table.byField.get(field)!))}, 'null')`;
    return [`SELECT count(*) FROM ${table.name} AS r WHERE ${value} <> 'null'::jsonb;`];
  },
  renameField,
  relations: relationSteps,
};
