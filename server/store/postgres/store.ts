// The PostgreSQL store: one pool (connection.ts) per store, one table per resource that a person can read
// (table.ts, schema.ts), queries compiled by query.ts, collections in collection.ts. Here: opening the pool,
// making or upgrading a collection's table (under an advisory lock, so that processes starting together do not
// race), recording its layout, inspecting and filling stored items, transactions.
import { layoutText } from '../layout.js';
import { checkName } from '../names.js';
import { LayoutConflictError, StoreUnavailableError } from '../types.js';
import type { Collection, CollectionSpec, Item, MessageQueue, PlannedFill, Store, StoredCollection } from '../types.js';
import { notJoinTable, refuseTaken, TableClaims } from './claims.js';
import { PostgresCollection, STREAM_BATCH } from './collection.js';
import { poolSettings, redactPostgresUrl } from './config.js';
import { Connection, type Row } from './connection.js';
import { storeError } from './errors.js';
import { postgresMessageQueue, QUEUE_SCHEMA } from './queue.js';
import {
  creationStatements as creation,
  fillStatements,
  foreignKeyAdditions,
  foreignKeys,
  indexDefinitions,
  joinTableUpgrade,
  LAYOUTS_TABLE,
  listUpgrade,
  layoutsSchema,
  rawOf,
  upgradeStatements,
  type ExistingJoinTable,
  type ExistingTable,
} from './schema.js';
import { FilledCatalogue } from './filled-catalogue.js';
import { keyChange } from './key-change.js';
import {
  aggregate,
  fillListLiterals,
  fillListStatement,
  irisOf,
  membersOf,
  sqlLiteral,
  writeStatements,
  type JoinList,
} from './join-tables.js';
import { iriOf, keyOf, type Reference } from './references.js';
import { bound, EXTRA, fits, quoteIdent, snakeCase, tableOf, type Column, type Table } from './table.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/dbname?pool_max=10&query_timeout=5000` (or `postgresql://`). */
  url: string;
}

/** The advisory lock key under which collections are made (any constant: it only has to be the same everywhere). */
const SCHEMA_LOCK = 0x61706964;

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { settings, url } = poolSettings(options.url);
  const connection = new Connection(url, settings);
  try {
    const rows = await connection.rows(`SELECT current_setting('server_version_num')::int`);
    if ((rows[0]![0] as number) < 150000)
      throw new StoreUnavailableError(`PostgreSQL 15 or later is needed at ${redactPostgresUrl(options.url)}`);
    await connection.rows(layoutsSchema);
  } catch (e) {
    void connection.close().catch(() => undefined);
    const error = storeError(e);
    if (error instanceof StoreUnavailableError || !(error instanceof Error)) {
      throw new StoreUnavailableError(`cannot reach PostgreSQL at ${redactPostgresUrl(options.url)}: ${firstLine(e)}`, {
        cause: e,
      });
    }
    throw error;
  }
  return new PostgresStore(connection);
}

/** Whether the stored table's key has the other type (the identifier's type changed). */
function keyTypeChanged(table: Table, existing: ExistingTable): boolean {
  const key = existing.columns.get(table.key.rawName);
  return key !== undefined && key.type !== (table.key.type === 'int' ? 'bigint' : 'text');
}

const firstLine = (e: unknown): string => String((e as Error)?.message ?? e).split('\n')[0]!;

class PostgresStore implements Store {
  constructor(private readonly connection: Connection) {}

  private queue?: MessageQueue;

  messageQueue(): MessageQueue {
    return (this.queue ??= postgresMessageQueue(this.connection, () =>
      this.connection.transaction(async () => {
        await this.connection.rows(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
        for (const statement of QUEUE_SCHEMA.split(';\n')) await this.connection.rows(statement);
      }),
    ));
  }

  /** Which collection each table is for: a name two would share refuses the second (claims.ts). */
  private readonly claims = new TableClaims();

  async collection(spec: CollectionSpec): Promise<Collection> {
    this.claims.claim(spec);
    const table = tableOf(spec);
    const sequence = await this.connection.transaction(async () => {
      await this.connection.rows(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await refuseTaken(this.connection, spec);
      const { existing, remade } = await this.keptTable(table);
      await this.refuseRetargeted(spec, existing);
      const statements = existing ? upgradeStatements(spec, existing) : [...creation(spec), ...remade];
      for (const statement of statements) await this.schema(spec, statement);
      await this.relate(spec, existing);
      await this.connection.rows(
        `INSERT INTO ${LAYOUTS_TABLE} ("collection", "layout") VALUES ($1, $2) ON CONFLICT ("collection") DO UPDATE SET "layout" = excluded."layout"`,
        [spec.name, layoutText(spec)],
      );
      if (table.key.type !== 'int') return undefined;
      const rows = await this.connection.rows(`SELECT pg_get_serial_sequence($1, $2)`, [table.name, table.key.rawName]);
      const name = rows[0]![0] as string | null;
      // Past the largest stored key (a table filled by another program included).
      if (name)
        await this.connection.rows(
          `SELECT setval($1::regclass, m) FROM (SELECT max(${table.key.name}) AS m FROM ${table.name}) AS stored, ${name} WHERE m >= last_value + is_called::int`,
          [name],
        );
      return name ?? undefined;
    });
    const unique = new Map(indexDefinitions(spec).flatMap((i) => (i.unique ? [[i.name, i.unique] as const] : [])));
    return new PostgresCollection(this.connection, spec, sequence, unique);
  }

  /**
   * Gives the collection's table the foreign keys of its relations (references.ts). A target's table not made yet
   * is made first (its collection, opened later, finds it), and so is one whose key's type changed (key-change.ts:
   * a foreign key cannot name its old key), so the order resources open in, self-references and cycles between
   * resources do not matter.
   */
  private async relate(spec: CollectionSpec, existing: ExistingTable | undefined): Promise<void> {
    const targets = [
      ...foreignKeys(spec).map((fk) => fk.column.reference.relation.target),
      ...tableOf(spec).lists.map((l) => l.reference.relation.target),
    ];
    for (const target of targets) {
      const { existing: made, remade } = await this.keptTable(tableOf(target));
      if (!made) for (const statement of [...creation(target), ...remade]) await this.schema(target, statement);
    }
    for (const statement of foreignKeyAdditions(spec, existing)) await this.schema(spec, statement);
    const joins = await this.joinTables(spec);
    for (const statement of joinTableUpgrade(spec, joins, existing)) await this.schema(spec, statement);
  }

  /**
   * What the catalogue says of each list's join table made (by name). A table of that name without a join table's
   * columns is another's (a resource's the file no longer has, a DBA's): refused, rather than written into.
   */
  private async joinTables(spec: CollectionSpec, lists = tableOf(spec).lists): Promise<Map<string, ExistingJoinTable>> {
    const out = new Map<string, ExistingJoinTable>();
    for (const list of lists) {
      const columns = [list.owner, list.position, list.member].map((name) => rawOf({ name }));
      const rows = await this.connection.rows(
        `SELECT to_regclass($1) IS NOT NULL, (SELECT c.confdeltype FROM pg_constraint c WHERE c.conrelid = to_regclass($1) AND c.conname = $2), (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attname = ANY($3) AND NOT a.attisdropped)`,
        [list.name, list.memberForeignKey, columns],
      );
      const [made, action, found] = rows[0]! as [boolean, string | null, number];
      if (made && found < columns.length) throw notJoinTable(spec, list, columns);
      if (made) out.set(list.rawName, action ? { memberAction: action } : {});
    }
    return out;
  }

  /**
   * A relation column whose foreign key names another table than the file's relation now does (the relation pointed
   * at another resource) holds keys of the old target: made a key of the new one, each would name another item, or
   * none. Refused while a row holds one, before anything runs (while none does, the old foreign key is dropped
   * before the column is converted: schema.ts `upgradeStatements`); `apidsl diff` gives the step that turns them
   * back into IRIs, which a person then points at the new target (docs/postgresql.md).
   */
  private async refuseRetargeted(spec: CollectionSpec, existing: ExistingTable | undefined): Promise<void> {
    const table = tableOf(spec);
    for (const { name, column } of foreignKeys(spec)) {
      const was = existing?.foreignKeys.get(name)?.target;
      if (was === undefined || was === column.reference.table) continue;
      const [row] = await this.connection.rows(`SELECT count(*) FROM ${table.name} WHERE ${column.name} IS NOT NULL`);
      const count = Number(row![0]);
      if (count > 0)
        throw new LayoutConflictError(
          `${spec.name}.${column.field}: now a relation to ${column.reference.relation.target.name}, but ${count} ` +
            `stored rows hold keys of the table ${was} (apidsl diff OLD.api NEW.api gives the step that turns them ` +
            'back into IRIs)',
        );
    }
  }

  async schemaPlan(specs: CollectionSpec[], fills: PlannedFill[] = []): Promise<string[]> {
    const claims = new TableClaims(); // the clash opening them would meet, told before anything runs
    for (const spec of specs) claims.claim(spec);
    for (const spec of specs) await refuseTaken(this.connection, spec);
    const filled = new FilledCatalogue(fills);
    const out: string[] = [];
    const constraints: string[] = [];
    const gone: string[] = []; // the tables dropped so far: their foreign keys name no table remade after
    for (const spec of specs) {
      const table = tableOf(spec);
      let existing = filled.table(spec, await this.existing(table));
      if (existing && keyTypeChanged(table, existing)) {
        const { drops, remade, dropped } = await keyChange(this.connection, table, false, gone);
        out.push(...drops, ...creation(spec), ...remade);
        gone.push(...dropped);
        existing = undefined;
      } else out.push(...(existing ? upgradeStatements(spec, existing) : creation(spec)));
      // After every table: a foreign key may name a table made further down.
      constraints.push(...foreignKeyAdditions(spec, existing));
      const joins = filled.joins(spec, await this.joinTables(spec));
      constraints.push(...joinTableUpgrade(spec, existing ? joins : new Map(), existing));
    }
    return [...out, ...constraints];
  }

  /** Runs a schema statement; a unique index over values stored rows repeat refuses the start. */
  private async schema(spec: CollectionSpec, statement: string): Promise<void> {
    try {
      await this.connection.rows(statement);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === '23505' || code === '23502' || code === '22P02' || code === '42804' || code === '23503')
        throw new LayoutConflictError(`${spec.name}: ${firstLine(e)} (running: ${statement})`, { cause: e });
      throw e;
    }
  }

  /**
   * The stored table of a collection, undefined when there is none. One whose key has the other type (the
   * identifier's type changed) is dropped when it holds nothing, with its own join tables (key-change.ts), else
   * refused; `remade` then runs once it is made again (the tables referring to it converted).
   */
  private async keptTable(table: Table): Promise<{ existing?: ExistingTable; remade: string[] }> {
    const existing = await this.existing(table);
    if (!existing || !keyTypeChanged(table, existing)) return { existing, remade: [] };
    const rows = (await this.connection.rows(`SELECT count(*) FROM ${table.name}`))[0]![0] as number;
    if (rows > 0)
      throw new LayoutConflictError(
        `${table.spec.name}: the identifier type changed to ${table.spec.identifier?.type ?? 'int'} and ${rows} stored items have the other type`,
      );
    // Its join tables (empty, as it is) go with it, when they are its own: key-change.ts.
    const { drops, remade } = await keyChange(this.connection, table);
    for (const statement of drops) await this.connection.rows(statement);
    return { remade };
  }

  /** What the catalogue says of the collection's table, undefined when there is none. */
  private async existing(table: Table): Promise<ExistingTable | undefined> {
    const columns = await this.connection.rows(
      `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [table.name],
    );
    if (columns.length === 0) return undefined;
    const indexes = await this.connection.rows(
      `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass($1) AND NOT i.indisprimary`,
      [table.name],
    );
    const keys = await this.connection.rows(
      `SELECT c.conname, t.relname, c.confdeltype FROM pg_constraint c JOIN pg_class t ON t.oid = c.confrelid WHERE c.conrelid = to_regclass($1) AND c.contype = 'f'`,
      [table.name],
    );
    return {
      columns: new Map(columns.map((r) => [r[0] as string, { type: r[1] as string, notNull: r[2] as boolean }])),
      indexes: new Set(indexes.map((r) => r[0] as string)),
      foreignKeys: new Map(keys.map((r) => [r[0] as string, { target: r[1] as string, action: r[2] as string }])),
    };
  }

  async inspect(spec: CollectionSpec): Promise<StoredCollection | undefined> {
    this.claims.claim(spec); // commands inspect every collection before opening any: a clash refuses sooner
    await refuseTaken(this.connection, spec);
    const table = tableOf(spec);
    const existing = await this.existing(table);
    if (!existing) return undefined;
    const layoutRows = await this.connection.rows(`SELECT "layout" FROM ${LAYOUTS_TABLE} WHERE "collection" = $1`, [
      spec.name,
    ]);
    const layout = layoutRows[0]?.[0] as string | undefined;
    const count = (await this.connection.rows(`SELECT count(*) FROM ${table.name}`))[0]![0] as number;
    // The columns as they are (a field may have another type now, or none yet), named by the fields they hold.
    const fieldOf = new Map<string, string>();
    const recorded = layout ? Object.keys((JSON.parse(layout) as { fields?: object }).fields ?? {}) : [];
    for (const field of recorded) fieldOf.set(snakeCase(field), field);
    for (const c of table.columns) fieldOf.set(c.name.slice(1, -1), c.field);
    const names = [...existing.columns.keys()];
    // Relation columns holding keys (their foreign key made): read as the IRIs the items hold.
    const keyed = new Map(
      foreignKeys(spec).flatMap((fk) =>
        existing.foreignKeys.has(fk.name) ? [[rawOf(fk.column), fk.column.reference]] : [],
      ),
    );
    // Lists in join tables made: read as the lists of IRIs the items hold.
    const joins = await this.joinTables(spec);
    const lists = table.lists.filter((l) => joins.has(l.rawName));
    const selected = [...names.map(quoteIdent), ...lists.map((l) => aggregate(l, `${table.name}.${table.key.name}`))];
    const connection = this.connection;
    async function* items(): AsyncGenerator<Item> {
      let last: unknown = null;
      for (;;) {
        const after = last === null ? '' : ` WHERE ${table.key.name} > $1`;
        const rows = await connection.rows(
          `SELECT ${selected.join(', ')} FROM ${table.name}${after} ORDER BY ${table.key.name} LIMIT ${STREAM_BATCH}`,
          last === null ? [] : [last],
        );
        for (const row of rows) {
          const extra = row[names.indexOf(EXTRA)] ?? null;
          yield withLists(storedItem(table, names, fieldOf, row, keyed), lists, row.slice(names.length), extra);
        }
        if (rows.length < STREAM_BATCH) return;
        last = rows.at(-1)![names.indexOf(table.key.rawName)];
      }
    }
    return { layout, count, items };
  }

  async fill(spec: CollectionSpec, field: string, value: unknown): Promise<number> {
    checkName(field, 'field');
    const list = tableOf(spec).byList.get(field);
    if (list) return this.fillList(spec, list, value);
    const { table, column, stored } = scalarFill(spec, field, value);
    const [addColumn, update] = fillStatements(table, column, '$1', '$2');
    await this.connection.rows(addColumn!);
    return this.connection.changed(update!, [stored, field]);
  }

  /**
   * A to-many relation's default filled into the owners lacking the list, its join table made first when missing
   * (as opening the collection makes it, a list kept in a jsonb column moved into it), in one transaction. A
   * default naming an item not stored refuses, and changes nothing.
   */
  private async fillList(spec: CollectionSpec, list: JoinList, value: unknown): Promise<number> {
    const { keys, exact } = membersOf(list, value);
    const statement = fillListStatement(tableOf(spec), list, { keys: '$1', field: '$2::text', kept: '$3::jsonb' });
    return this.connection.transaction(async () => {
      await this.connection.rows(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      for (const sql of await this.listFillSteps(spec, list)) await this.schema(spec, sql);
      const refused = (e: unknown): unknown =>
        (e as { code?: string }).code === '23503'
          ? new LayoutConflictError(
              `${spec.name}.${list.field}: its default ${JSON.stringify(value)} names an item that is not stored: ${(e as { detail?: string }).detail ?? firstLine(e)}`,
              { cause: e },
            )
          : storeError(e);
      const rows = await this.connection.rows(
        statement,
        [keys, list.field, exact ? null : JSON.stringify(value)],
        refused,
      );
      return Number(rows[0]![0]);
    });
  }

  /**
   * What runs before a list's fill statement: its join table made when missing (its target's table first, when
   * missing too), as the fills `filled` leave the catalogue; then its member foreign key checked at the statement
   * (a restricting relation's is checked at commit), so that a default naming no stored item is told.
   */
  private async listFillSteps(spec: CollectionSpec, list: JoinList, filled = new FilledCatalogue()): Promise<string[]> {
    const table = tableOf(spec);
    const target = list.reference.relation.target;
    const joins = filled.joins(spec, await this.joinTables(spec, [list]));
    const owner = filled.table(spec, await this.existing(table));
    const made = filled.table(target, await this.existing(tableOf(target))) ? [] : creation(target);
    return [...made, ...listUpgrade(table, list, joins.get(list.rawName), owner), writeStatements(list).check];
  }

  async fillPlan(spec: CollectionSpec, field: string, value: unknown, earlier: PlannedFill[] = []): Promise<string[]> {
    checkName(field, 'field');
    const list = tableOf(spec).byList.get(field);
    if (list) {
      const steps = await this.listFillSteps(spec, list, new FilledCatalogue(earlier));
      return [...steps, fillListLiterals(tableOf(spec), list, value)];
    }
    const { table, column, stored } = scalarFill(spec, field, value);
    return fillStatements(table, column, sqlLiteral(stored), sqlLiteral(field));
  }

  /** Each transaction holds a pooled connection of its own (connection.ts): they need no queue. */
  readonly concurrentTransactions = true;

  transaction<T>(run: () => Promise<T>): Promise<T> {
    return this.connection.transaction(run);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/** The column a scalar default is filled into, and the value it holds there; refused when it cannot hold it. */
function scalarFill(
  spec: CollectionSpec,
  field: string,
  value: unknown,
): { table: Table; column: Column; stored: unknown } {
  const table = tableOf(spec);
  const column = table.byField.get(field);
  const key = column?.reference ? keyOf(column.reference, value) : undefined;
  if (!column || (column.reference ? key === undefined : !fits(column.type, value)))
    throw new TypeError(`${spec.name}.${field}: its default cannot be filled into the column`);
  return { table, column, stored: column.reference ? key : bound(column.type, value) };
}

/** The item with the lists its join tables hold (`keys`, in `lists` order), unless it keeps one as written. */
function withLists(item: Item, lists: JoinList[], keys: unknown[], extra: unknown): Item {
  lists.forEach((l, i) => {
    const kept = extra !== null && typeof extra === 'object' && Object.hasOwn(extra, l.field);
    if (keys[i] !== null && !kept) item[l.field] = irisOf(l, keys[i] as unknown[]);
  });
  return item;
}

/** A stored row read through the table's columns as they are. */
function storedItem(
  table: Table,
  names: string[],
  fieldOf: Map<string, string>,
  row: Row,
  keyed: Map<string, Reference>,
): Item {
  const item: Item = {};
  names.forEach((name, i) => {
    const reference = keyed.get(name);
    const value = reference && row[i] !== null ? iriOf(reference, row[i]) : row[i];
    if (name === table.key.rawName) {
      if (table.spec.identifier) item[table.spec.identifier.field] = value;
    } else if (name === '_apidsl:extra') {
      if (value !== null) Object.assign(item, value as Item);
    } else if (value !== null) item[fieldOf.get(name) ?? name] = value;
  });
  return item;
}
