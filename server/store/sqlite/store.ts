// The embedded store: better-sqlite3 on one connection (connection.ts), one table per resource (schema.ts) read
// and written by its collection (collection.ts), queries compiled by query.ts. Here: opening the database, making
// and upgrading a collection's table, inspecting and filling stored items, transactions, the message queue.
import Database from 'better-sqlite3';
import { layoutText } from '../layout.js';
import { checkName } from '../names.js';
import { LayoutConflictError } from '../types.js';
import type { Collection, CollectionSpec, Item, MessageQueue, Store, StoredCollection } from '../types.js';
import { uniqueSets } from '../unique.js';
import { SqliteCollection } from './collection.js';
import { connectionOf, rowItem, type Connection, type Row } from './connection.js';
import { execSchema } from './errors.js';
import {
  COUNTS_TABLE,
  compileTotal,
  elementFields,
  elementTableName,
  DOC_COLUMN,
  fold,
  FOLD_FUNCTION,
  KEY_COLUMN,
  quoteIdent,
  RENDERED_COLUMN,
} from './query.js';
import { sqliteMessageQueue } from './queue.js';
import {
  countSchema,
  elementSchema,
  indexName,
  LAYOUTS_TABLE,
  uniqueIndexName,
  layoutsSchema,
  renderedColumnUpgrade,
  RENDERINGS_TABLE,
  renderingsSchema,
  schemaStatements,
  sequenceSchema,
} from './schema.js';

export type SqliteStoreOptions = { file: string } | { memory: true };

/** Rows rendered per statement when a collection's rendering version changed. */
const RENDER_BATCH = 1000;

export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const db = new Database('file' in options ? options.file : ':memory:');
  if ('file' in options) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL'); // a commit is on disk when it returns
  }
  db.function(FOLD_FUNCTION, { deterministic: true }, fold);
  return new SqliteStore(db);
}

class SqliteStore implements Store {
  private readonly connection: Connection;

  constructor(private readonly db: Database.Database) {
    this.connection = connectionOf(db);
  }

  async collection(spec: CollectionSpec): Promise<Collection> {
    const statements = schemaStatements(spec);
    const counts = countSchema(spec);
    this.connection.quiesce();
    // IMMEDIATE: no other process writes between reading the count and the triggers taking over.
    this.db
      .transaction(() => {
        this.dropOutdated(spec);
        const unseeded = elementFields(spec).filter((f) => !this.tableExists(elementTableName(spec, f)));
        for (const statement of statements) execSchema(this.db, spec, statement);
        for (const field of unseeded) this.db.exec(elementSchema(spec, field).seed);
        const columns = (this.db.pragma(`table_info(${quoteIdent(spec.name)})`) as { name: string }[]).map(
          (c) => c.name,
        );
        const upgrade = renderedColumnUpgrade(spec, columns);
        if (upgrade) this.db.exec(upgrade);
        this.syncRendering(spec);
        this.db.exec(counts.table);
        const triggers = this.prepare(
          `SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger' AND name IN (?, ?)`,
        );
        const hadTriggers = (triggers.get(...counts.triggerNames) as { n: number }).n === counts.triggerNames.length;
        const total = compileTotal(spec);
        if (!hadTriggers || this.prepare(total.sql).get(...total.params) === undefined) {
          counts.triggers.forEach((s) => this.db.exec(s));
          this.db.exec(counts.seed);
        }
        if (spec.identifier?.type !== 'string') {
          // Past the largest stored key: also seeds the sequence of a table written before sequences existed.
          const sequence = sequenceSchema(spec);
          this.db.exec(sequence.table);
          this.db.exec(sequence.seed);
        }
        this.db.exec(layoutsSchema);
        this.prepare(`INSERT OR REPLACE INTO ${LAYOUTS_TABLE} ("collection", "layout") VALUES (?, ?)`).run(
          spec.name,
          layoutText(spec),
        );
      })
      .immediate();
    return new SqliteCollection(this.connection, spec);
  }

  private queue?: MessageQueue;

  messageQueue(): MessageQueue {
    return (this.queue ??= sqliteMessageQueue(this.db, this.connection.quiesce));
  }

  async inspect(spec: CollectionSpec): Promise<StoredCollection | undefined> {
    if (!this.tableExists(spec.name)) return undefined;
    const table = quoteIdent(spec.name);
    const layout = this.tableExists(LAYOUTS_TABLE.slice(1, -1))
      ? (this.db.prepare(`SELECT "layout" FROM ${LAYOUTS_TABLE} WHERE "collection" = ?`).pluck().get(spec.name) as
          string | undefined)
      : undefined;
    const count = this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const db = this.db;
    async function* items(): AsyncGenerator<Item> {
      // In batches of rows (no open cursor): the connection stays free for writes between them.
      const columns = `SELECT rowid AS "row", ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${table}`;
      const next = db.prepare(`${columns} WHERE rowid > ? ORDER BY rowid LIMIT ${RENDER_BATCH}`);
      let rows = db.prepare(`${columns} ORDER BY rowid LIMIT ${RENDER_BATCH}`).all() as (Row & { row: number })[];
      while (rows.length > 0) {
        for (const row of rows) yield rowItem(spec, row);
        rows = next.all(rows.at(-1)!.row) as (Row & { row: number })[];
      }
    }
    return { layout, count, items };
  }

  async fill(spec: CollectionSpec, field: string, value: unknown): Promise<number> {
    checkName(field, 'field');
    const table = quoteIdent(spec.name);
    const path = `'$."${field}"'`;
    this.connection.quiesce();
    return this.db
      .transaction(() => {
        const sql = `UPDATE ${table} SET ${DOC_COLUMN} = json_set(${DOC_COLUMN}, ${path}, json(?)) WHERE coalesce(json_type(${DOC_COLUMN}, ${path}), 'null') = 'null'`;
        const { changes } = this.db.prepare(sql).run(JSON.stringify(value));
        // The rendered texts no longer show the items: forget their version so the next opening renders them again.
        if (changes > 0 && this.tableExists(RENDERINGS_TABLE.slice(1, -1)))
          this.db.prepare(`DELETE FROM ${RENDERINGS_TABLE} WHERE "collection" = ?`).run(spec.name);
        return changes;
      })
      .immediate();
  }

  private tableExists(name: string): boolean {
    return this.db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(name) !== undefined;
  }

  /**
   * Before the statements of a new layout: drops the indexes it no longer has and, when the identifier type
   * changed, the table itself if it is empty (its key column has the other type); with items it refuses.
   */
  private dropOutdated(spec: CollectionSpec): void {
    if (!this.tableExists(spec.name)) return;
    const table = quoteIdent(spec.name);
    const wanted = new Set([
      ...spec.indexes.map((fields) => indexName(spec, fields)),
      ...uniqueSets(spec).map((fields) => uniqueIndexName(spec, fields)),
    ]);
    const indexes = this.db
      .prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
      .pluck()
      .all(spec.name) as string[];
    for (const name of indexes) if (!wanted.has(name)) this.db.exec(`DROP INDEX ${quoteIdent(name)}`);
    this.dropElementTables(spec, elementFields(spec));
    const key = (this.db.pragma(`table_info(${table})`) as { name: string; type: string }[]).find(
      (c) => c.name === KEY_COLUMN.slice(1, -1),
    );
    const keyType = spec.identifier?.type === 'string' ? 'TEXT' : 'INTEGER';
    if (!key || key.type.toUpperCase() === keyType) return;
    const rows = this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    if (rows > 0) {
      throw new LayoutConflictError(
        `${spec.name}: the identifier type changed to ${spec.identifier?.type ?? 'int'} and ${rows} stored items have the other type`,
      );
    }
    this.db.exec(`DROP TABLE ${table}`); // its indexes and triggers go with it
    this.dropElementTables(spec, []);
    for (const bookkeeping of [COUNTS_TABLE, RENDERINGS_TABLE]) {
      if (this.tableExists(bookkeeping.slice(1, -1)))
        this.db.prepare(`DELETE FROM ${bookkeeping} WHERE "collection" = ?`).run(spec.name);
    }
  }

  /** Drops the element tables (schema.ts) of the fields not in `kept`, with their triggers. */
  private dropElementTables(spec: CollectionSpec, kept: string[]): void {
    const prefix = elementTableName(spec, '');
    const tables = this.db
      .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, ?) = ?`)
      .pluck()
      .all(prefix.length, prefix) as string[];
    for (const table of tables) {
      const field = table.slice(prefix.length);
      if (kept.includes(field)) continue;
      for (const trigger of elementSchema(spec, field).triggerNames)
        this.db.exec(`DROP TRIGGER IF EXISTS ${quoteIdent(trigger)}`);
      this.db.exec(`DROP TABLE ${quoteIdent(table)}`);
    }
  }

  async transaction<T>(run: () => Promise<T>): Promise<T> {
    // better-sqlite3's transaction() takes a synchronous function; the collections' writes are synchronous
    // under their promises, and nothing else uses the connection meanwhile (see Store.transaction).
    this.connection.quiesce();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = await run();
      this.db.exec('COMMIT');
      return result;
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.connection.quiesce();
    this.connection.forget();
    if (this.db.open) this.db.close();
  }

  /**
   * Makes every row's rendered text the one `spec.rendering` makes now: when its version differs from the
   * one that rendered the stored texts, each row is rendered again (in batches, inside the caller's
   * transaction). Without a rendering the version is forgotten (writes store no text meanwhile), so any
   * later rendering renders every row again.
   */
  private syncRendering(spec: CollectionSpec): void {
    this.db.exec(renderingsSchema);
    const table = quoteIdent(spec.name);
    const rendering = spec.rendering;
    if (!rendering) {
      this.prepare(`DELETE FROM ${RENDERINGS_TABLE} WHERE "collection" = ?`).run(spec.name);
      return;
    }
    const stored = this.prepare(`SELECT "version" FROM ${RENDERINGS_TABLE} WHERE "collection" = ?`)
      .pluck()
      .get(spec.name) as string | undefined;
    if (stored === rendering.version) return;
    const first = this.db.prepare(
      `SELECT rowid AS "row", ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${table} ORDER BY rowid LIMIT ${RENDER_BATCH}`,
    );
    const next = this.db.prepare(
      `SELECT rowid AS "row", ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${RENDER_BATCH}`,
    );
    const update = this.db.prepare(`UPDATE ${table} SET ${RENDERED_COLUMN} = ? WHERE rowid = ?`);
    let rows = first.all() as (Row & { row: number | bigint })[];
    while (rows.length > 0) {
      for (const row of rows) update.run(rendering.render(rowItem(spec, row)), row.row);
      rows = next.all(rows.at(-1)!.row) as (Row & { row: number | bigint })[];
    }
    this.prepare(`INSERT OR REPLACE INTO ${RENDERINGS_TABLE} ("collection", "version") VALUES (?, ?)`).run(
      spec.name,
      rendering.version,
    );
  }

  private prepare(sql: string): Database.Statement {
    return this.connection.prepare(sql);
  }
}
