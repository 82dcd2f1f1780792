// The embedded store: better-sqlite3, one table per resource (see sqlite-schema.ts), queries compiled by
// sqlite-query.ts. better-sqlite3 is synchronous, so every statement runs to completion before the
// returned promise settles.
//
// Streams read through better-sqlite3 iterators, and better-sqlite3 refuses every write on a connection while
// one of its iterators is open. So before each write the store closes the open stream cursors; a stream whose
// cursor was closed reopens it strictly after the last row it read (keyset on the total order: sort, then key).
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { layoutText } from './layout.js';
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
  type SequenceSchema,
} from './sqlite-schema.js';
import {
  COUNTS_TABLE,
  compileCount,
  compileDeleteWhere,
  compileExists,
  compileFind,
  compileStream,
  compileTotal,
  checkName,
  elementFields,
  elementTableName,
  DOC_COLUMN,
  fieldColumn,
  fold,
  FOLD_FUNCTION,
  KEY_COLUMN,
  quoteIdent,
  RENDERED_COLUMN,
} from './sqlite-query.js';
import type { StreamResume } from './sqlite-query.js';
import { sqliteMessageQueue, type MessageQueue } from './sqlite-queue.js';
import { LayoutConflictError, StoreConflictError, UniqueConflictError } from './types.js';
import { repeatedValuesMessage, uniqueSets } from './unique.js';
import type {
  Collection,
  CollectionSpec,
  Condition,
  Id,
  Item,
  PageRows,
  Query,
  Rendering,
  Store,
  StoredCollection,
} from './types.js';

export type SqliteStoreOptions = { file: string } | { memory: true };

const STATEMENT_CACHE_SIZE = 256;

/** Rows a stream reads synchronously before it lets the event loop run (setImmediate). */
const STREAM_BATCH = 500;

/** Rows rendered per statement when a collection's rendering version changed. */
const RENDER_BATCH = 1000;

interface Row {
  key: Id;
  doc: string;
}

/** What a collection needs from its store's connection. */
interface Connection {
  db: Database.Database;
  /** A cached statement; never iterate one (an iterated statement is locked until its iterator closes). */
  prepare(sql: string): Database.Statement;
  /** Closes every open stream cursor, so the connection accepts a write. Call before each write. */
  quiesce(): void;
  /** Open stream cursors, each with the function that closes it. */
  cursors: Set<() => void>;
  /**
   * Runs synchronous reads so that they see one snapshot: in one deferred transaction, whose snapshot (WAL mode)
   * is taken at its first read, whatever other connections commit meanwhile.
   */
  readTogether<T>(read: () => T): T;
}

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
  // Least recently used first; Map keeps insertion order.
  /** Prepared statements by their SQL, each with when it was last used (the least recently used goes first). */
  private readonly statements = new Map<string, { statement: Database.Statement; used: number }>();
  private uses = 0;
  private readonly connection: Connection;

  constructor(private readonly db: Database.Database) {
    const cursors = new Set<() => void>();
    const together = db.transaction((read: () => unknown) => read());
    this.connection = {
      db,
      prepare: (sql) => this.prepare(sql),
      quiesce: () => {
        for (const close of cursors) close();
        cursors.clear();
      },
      cursors,
      // An in-memory database has no other connection, and the reads run in one synchronous call: nothing can
      // commit between them, and BEGIN and COMMIT would be two statements more for nothing.
      readTogether: db.memory ? <T>(read: () => T) => read() : <T>(read: () => T) => together.deferred(read) as T,
    };
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
        for (const statement of statements) {
          try {
            this.db.exec(statement);
          } catch (error) {
            const fields = error instanceof Database.SqliteError ? violatedUnique(spec, error) : undefined;
            // A new unique index over values that stored items already repeat: refuse to start, naming them.
            if (fields) throw new LayoutConflictError(duplicatesOf(this.db, spec, fields), { cause: error });
            throw error;
          }
        }
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

  /** Drops the element tables (sqlite-schema.ts) of the fields not in `kept`, with their triggers. */
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
    this.statements.clear();
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
    const cached = this.statements.get(sql);
    // A hit only stamps its entry: moving it to the end of the Map (delete, set) on every query costs more.
    if (cached) {
      cached.used = ++this.uses;
      return cached.statement;
    }
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      let oldest: string | undefined;
      let oldestUse = Infinity;
      for (const [text, entry] of this.statements) if (entry.used < oldestUse) [oldest, oldestUse] = [text, entry.used];
      this.statements.delete(oldest!);
    }
    const statement = this.db.prepare(sql);
    this.statements.set(sql, { statement, used: ++this.uses });
    return statement;
  }
}

class SqliteCollection implements Collection {
  private readonly sql: {
    get: string;
    getMany: string;
    insert: string;
    update: string;
    rendered: string;
    delete: string;
    clear: string;
  };
  /** Absent for string identifiers (UUID v7 keys need no sequence). */
  private readonly sequence: SequenceSchema | undefined;
  private readonly rendering: Rendering | undefined;

  private readonly db: Database.Database;
  private readonly prepare: (sql: string) => Database.Statement;

  constructor(
    private readonly connection: Connection,
    private readonly spec: CollectionSpec,
  ) {
    this.db = connection.db;
    this.prepare = connection.prepare;
    this.rendering = spec.rendering;
    const table = quoteIdent(spec.name);
    this.sql = {
      get: `SELECT ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${table} WHERE ${KEY_COLUMN} = ?`,
      getMany: `SELECT ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${table} WHERE ${KEY_COLUMN} IN (SELECT value FROM json_each(?))`,
      insert: `INSERT INTO ${table} (${KEY_COLUMN}, ${DOC_COLUMN}, ${RENDERED_COLUMN}) VALUES (?, ?, ?)`,
      update: `UPDATE ${table} SET ${DOC_COLUMN} = ?, ${RENDERED_COLUMN} = ? WHERE ${KEY_COLUMN} = ?`,
      rendered: `UPDATE ${table} SET ${RENDERED_COLUMN} = ? WHERE ${KEY_COLUMN} = ?`,
      delete: `DELETE FROM ${table} WHERE ${KEY_COLUMN} = ?`,
      clear: `DELETE FROM ${table}`,
    };
    this.sequence = spec.identifier?.type === 'string' ? undefined : sequenceSchema(spec);
  }

  async find(q: Query): Promise<Item[]> {
    return this.items(q);
  }

  async findRendered(q: Query): Promise<string[] | undefined> {
    return this.texts(q);
  }

  async findPage(q: Query, options?: { rendered?: boolean }): Promise<PageRows> {
    const read = (): PageRows => {
      const texts = options?.rendered ? this.texts(q) : undefined;
      const total = this.total(q.where);
      return texts ? { texts, total } : { items: this.items(q), total };
    };
    // An open stream cursor keeps the connection's read transaction open (SQLite ends an implicit one when its
    // last statement finishes), and better-sqlite3 refuses BEGIN meanwhile: both reads are already in it.
    return this.connection.cursors.size > 0 ? read() : this.connection.readTogether(read);
  }

  private items(q: Query): Item[] {
    const { sql, params } = compileFind(this.spec, q);
    return this.decoded(this.prepare(sql), params);
  }

  /**
   * The items of a `key, doc` statement's rows, read as arrays (no row objects) and their documents parsed in one
   * JSON.parse: the cheapest decoding of many rows. The statement is shared (prepared once per text): it is left
   * in its usual mode.
   */
  private decoded(statement: Database.Statement, params: unknown[]): Item[] {
    let rows: [Id, string][];
    try {
      rows = statement.raw(true).all(...params) as [Id, string][];
    } finally {
      statement.raw(false);
    }
    if (rows.length === 0) return [];
    const items = JSON.parse(`[${rows.map((row) => row[1]).join(',')}]`) as Item[];
    const field = this.spec.identifier?.field;
    if (field !== undefined) for (let i = 0; i < rows.length; i++) items[i][field] = rows[i][0];
    return items;
  }

  private texts(q: Query): string[] | undefined {
    if (!this.rendering) return undefined;
    const { sql, params } = compileFind(this.spec, q, [RENDERED_COLUMN]);
    // One column, plucked: better-sqlite3 builds no row object, the cheapest read it has.
    const texts = this.prepare(sql)
      .pluck()
      .all(...params) as (string | null)[];
    // NULL: a row some other writer stored without its text (an older apidsl on the same file).
    return texts.includes(null) ? undefined : (texts as string[]);
  }

  async *stream(q: Query): AsyncGenerator<Item, void, undefined> {
    // A generator's body starts at the first next(): that is where an invalid query rejects.
    const first = compileStream(this.spec, q);
    let statement: Database.Statement | undefined; // the resumed query: its text is the same at every resume
    let resume: StreamResume | undefined;
    let rows: IterableIterator<Record<string, unknown>> | null = null;
    const close = (): void => {
      rows?.return?.();
      rows = null;
    };
    try {
      for (;;) {
        if (rows === null) {
          if (resume === undefined) {
            // Not a cached statement: a concurrent find with the same text would find it locked.
            rows = this.db.prepare(first.sql).iterate(...first.params) as IterableIterator<Record<string, unknown>>;
          } else {
            if (q.limit !== undefined && resume.read >= q.limit) return;
            const next = compileStream(this.spec, q, resume);
            statement ??= this.db.prepare(next.sql);
            rows = statement.iterate(...next.params) as IterableIterator<Record<string, unknown>>;
          }
          this.connection.cursors.add(close);
        }
        const batch: Item[] = [];
        let last: Record<string, unknown> | undefined;
        let done = false;
        while (batch.length < STREAM_BATCH) {
          const next = rows.next();
          if (next.done) {
            done = true;
            break;
          }
          last = next.value;
          batch.push(this.toItem(last as unknown as Row));
        }
        if (last)
          resume = { values: first.orderColumns.map((c) => last![c]), read: (resume?.read ?? 0) + batch.length };
        if (done) {
          this.connection.cursors.delete(close);
          rows = null;
        }
        // The consumer runs between these yields and may write, which closes the cursor: the batch is already read.
        for (const item of batch) yield item;
        if (done) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      close();
      this.connection.cursors.delete(close);
    }
  }

  async exists(q: Query): Promise<boolean> {
    const { sql, params } = compileExists(this.spec, q);
    return this.prepare(sql).get(...params) !== undefined;
  }

  async count(where?: Condition[]): Promise<number> {
    return this.total(where);
  }

  private total(where?: Condition[]): number {
    if (where === undefined || where.length === 0) {
      const total = compileTotal(this.spec);
      const row = this.prepare(total.sql).get(...total.params) as { n: number } | undefined;
      if (row) return row.n;
      // The counts row is created with the collection; only a hand-edited file lacks it. Scan rather than fail.
    }
    const { sql, params } = compileCount(this.spec, where);
    return (this.prepare(sql).get(...params) as { n: number }).n;
  }

  async get(id: Id): Promise<Item | null> {
    if (!this.isKey(id)) return null;
    const row = this.prepare(this.sql.get).get(id) as Row | undefined;
    return row ? this.toItem(row) : null;
  }

  async getMany(ids: readonly Id[]): Promise<Item[]> {
    const keys = ids.filter((id) => this.isKey(id));
    return keys.length === 0 ? [] : this.decoded(this.prepare(this.sql.getMany), [JSON.stringify(keys)]);
  }

  async insert(item: Item): Promise<Item> {
    this.connection.quiesce();
    // IMMEDIATE: the key taken from (or raised in) the sequence and the row are written together.
    return this.db
      .transaction(() => {
        const given = this.newKey(item);
        const stored = this.insertRow(item, given ?? (this.sequence ? this.nextKey() : uuidv7()));
        if (typeof given === 'number') this.raiseSequence(given);
        return stored;
      })
      .immediate();
  }

  async insertMany(items: Item[]): Promise<Item[]> {
    this.connection.quiesce();
    // One transaction: the count triggers and the rendered texts are kept row by row inside it, all or none.
    return this.db
      .transaction(() => {
        if (!this.sequence) return items.map((item, i) => this.insertRow(item, this.newKey(item) ?? uuidv7(), i));
        // Keys assigned here from the sequence read once (the write lock held), and the sequence written once.
        let top = this.lastKey();
        const stored = items.map((item, i) => {
          const key = this.newKey(item) ?? checkExhausted(this.spec, ++top);
          if (typeof key === 'number' && key > top) top = key;
          return this.insertRow(item, key, i);
        });
        this.raiseSequence(top);
        return stored;
      })
      .immediate();
  }

  /** The identifier an item to insert gives, or null: then its key is assigned (the sequence's next, or a UUID v7). */
  private newKey(item: Item): Id | null {
    const given = this.spec.identifier ? item[this.spec.identifier.field] : undefined;
    return given !== undefined && given !== null ? this.checkKey(given) : null;
  }

  /** Takes the next integer key (inside the caller's transaction). */
  private nextKey(): number {
    const next = this.prepare(this.sequence!.next).pluck().get() as number | undefined;
    if (next !== undefined) return checkExhausted(this.spec, next);
    this.db.exec(this.sequence!.seed); // its row deleted by hand since the collection was opened
    return this.nextKey();
  }

  /** The last key the sequence handed out (its row made again if it went missing). */
  private lastKey(): number {
    const last = this.prepare(this.sequence!.last).pluck().get() as number | undefined;
    if (last !== undefined) return last;
    this.db.exec(this.sequence!.seed);
    return this.lastKey();
  }

  /** Keeps every later key above `key` (a key given explicitly, or the last of a batch). */
  private raiseSequence(key: number): void {
    if (this.sequence) this.prepare(this.sequence.raise).run(key, key);
  }

  /**
   * Inserts one row with its rendered text (synchronous; the caller quiesced the connection); `index` is its
   * position in an insertMany, told by a UniqueConflictError.
   */
  private insertRow(item: Item, key: Id, index?: number): Item {
    const doc = this.docOf(item);
    const stored = this.toItem({ key, doc });
    this.write(() => this.prepare(this.sql.insert).run(key, doc, this.render(stored)), index);
    return stored;
  }

  async replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    if (!this.isKey(id)) return null;
    const doc = this.docOf(item);
    const stored = this.toItem({ key: id, doc });
    const rendered = this.render(stored);
    this.connection.quiesce();
    const update = (): Item | null =>
      this.write(() => this.prepare(this.sql.update).run(doc, rendered, id)).changes > 0 ? stored : null;
    if (!expected) return update();
    // IMMEDIATE: no other writer (another process included) between the comparison and the update.
    return this.db.transaction(() => (this.holds(id, expected) ? update() : null)).immediate();
  }

  async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const key = this.checkKey(id);
    const doc = this.docOf(item);
    const stored = this.toItem({ key, doc });
    const rendered = this.render(stored);
    this.connection.quiesce();
    // IMMEDIATE takes the write lock first, so another process cannot insert between the two statements.
    const created = this.write(() =>
      this.db
        .transaction(() => {
          if (this.prepare(this.sql.update).run(doc, rendered, key).changes > 0) return false;
          this.prepare(this.sql.insert).run(key, doc, rendered);
          if (typeof key === 'number') this.raiseSequence(key);
          return true;
        })
        .immediate(),
    );
    return { item: stored, created };
  }

  async delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    if (!this.isKey(id)) return false;
    this.connection.quiesce();
    const remove = (): boolean => {
      if (!where?.length) return this.prepare(this.sql.delete).run(id).changes > 0;
      const q = compileDeleteWhere(this.spec, where);
      return this.prepare(q.sql).run(...q.params, id).changes > 0;
    };
    if (!expected) return remove();
    return this.db.transaction(() => this.holds(id, expected) && remove()).immediate();
  }

  /** Whether the stored item `id` is still equal to `expected` (inside the caller's transaction). */
  private holds(id: Id, expected: Item): boolean {
    const row = this.prepare(this.sql.get).get(id) as Row | undefined;
    return row !== undefined && isDeepStrictEqual(this.toItem(row), expected);
  }

  async clear(): Promise<number> {
    this.connection.quiesce();
    // The delete trigger keeps the count; one transaction, whatever the number of rows. The sequence stays.
    return this.db.transaction(() => this.prepare(this.sql.clear).run().changes).immediate();
  }

  /** The key type is the identifier's; collections without one use their internal integer key. */
  private isKey(id: unknown): id is Id {
    return this.spec.identifier?.type === 'string' ? typeof id === 'string' : Number.isSafeInteger(id);
  }

  private checkKey(id: unknown): Id {
    if (!this.isKey(id)) throw new TypeError(`invalid ${this.spec.name} identifier ${JSON.stringify(id)}`);
    return id;
  }

  /** Runs a write, its key or unique index violations told as StoreConflictError / UniqueConflictError. */
  private write<T>(run: () => T, index?: number): T {
    try {
      return run();
    } catch (error) {
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreConflictError(`${this.spec.name} identifier already exists`, { cause: error });
      }
      const fields = error instanceof Database.SqliteError ? violatedUnique(this.spec, error) : undefined;
      if (fields) throw new UniqueConflictError(fields, { cause: error, index });
      throw error;
    }
  }

  private docOf(item: Item): string {
    const rest = { ...item };
    if (this.spec.identifier) delete rest[this.spec.identifier.field];
    return JSON.stringify(rest);
  }

  /** The rendered text of an item as stored (read back from its document), or NULL without a rendering. */
  private render(stored: Item): string | null {
    return this.rendering ? this.rendering.render(stored) : null;
  }

  private toItem(row: Row): Item {
    return rowItem(this.spec, row);
  }
}

/** `key`, unless it is past the integers a JSON number holds exactly: then no key is left to hand out. */
function checkExhausted(spec: CollectionSpec, key: number): number {
  if (key > Number.MAX_SAFE_INTEGER)
    throw new StoreConflictError(
      `${spec.name} has no identifier left: the sequence reached ${Number.MAX_SAFE_INTEGER}`,
    );
  return key;
}

/** The unique field list whose index `error` names ("UNIQUE constraint failed: index '…'"), if any. */
function violatedUnique(spec: CollectionSpec, error: InstanceType<typeof Database.SqliteError>): string[] | undefined {
  if (error.code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
  return uniqueSets(spec).find((fields) => error.message.includes(`'${uniqueIndexName(spec, fields)}'`));
}

/** Why the unique index on `fields` cannot be made: the values several stored items share. */
function duplicatesOf(db: Database.Database, spec: CollectionSpec, fields: string[]): string {
  const columns = fields.map((f) => fieldColumn(spec, f).expr);
  const present = columns.map((c) => `${c} IS NOT NULL`).join(' AND ');
  const rows = db
    .prepare(
      `SELECT json_array(${columns.join(', ')}) AS "v", count(*) AS "n" FROM ${quoteIdent(spec.name)} WHERE ${present} GROUP BY ${columns.join(', ')} HAVING count(*) > 1 LIMIT 6`,
    )
    .all() as { v: string; n: number }[];
  return repeatedValuesMessage(
    spec,
    fields,
    rows.map(({ v, n }) => ({ values: JSON.parse(v) as unknown[], count: n })),
  );
}

/** The item a row holds: its document with the key as the identifier. */
function rowItem(spec: CollectionSpec, row: Row): Item {
  const item = JSON.parse(row.doc) as Item;
  if (spec.identifier) item[spec.identifier.field] = row.key;
  return item;
}
