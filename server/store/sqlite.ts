// The embedded store: better-sqlite3, one table per resource (see sqlite-schema.ts), queries compiled by
// sqlite-query.ts. better-sqlite3 is synchronous, so every statement runs to completion before the
// returned promise settles.
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { schemaStatements } from './sqlite-schema.js';
import { compileCount, compileFind, DOC_COLUMN, fold, FOLD_FUNCTION, KEY_COLUMN, quoteIdent } from './sqlite-query.js';
import { StoreConflictError } from './types.js';
import type { Collection, CollectionSpec, Condition, Id, Item, Query, Store } from './types.js';

export type SqliteStoreOptions = { file: string } | { memory: true };

const STATEMENT_CACHE_SIZE = 256;

interface Row {
  key: Id;
  doc: string;
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
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  async collection(spec: CollectionSpec): Promise<Collection> {
    const statements = schemaStatements(spec);
    this.db.transaction(() => statements.forEach((s) => this.db.exec(s)))();
    return new SqliteCollection(this.db, (sql) => this.prepare(sql), spec);
  }

  async close(): Promise<void> {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, statement);
    return statement;
  }
}

class SqliteCollection implements Collection {
  private readonly sql: { get: string; insert: string; update: string; delete: string };

  constructor(
    private readonly db: Database.Database,
    private readonly prepare: (sql: string) => Database.Statement,
    private readonly spec: CollectionSpec,
  ) {
    const table = quoteIdent(spec.name);
    this.sql = {
      get: `SELECT ${KEY_COLUMN}, ${DOC_COLUMN} FROM ${table} WHERE ${KEY_COLUMN} = ?`,
      insert: `INSERT INTO ${table} (${KEY_COLUMN}, ${DOC_COLUMN}) VALUES (?, ?)`,
      update: `UPDATE ${table} SET ${DOC_COLUMN} = ? WHERE ${KEY_COLUMN} = ?`,
      delete: `DELETE FROM ${table} WHERE ${KEY_COLUMN} = ?`,
    };
  }

  async find(q: Query): Promise<Item[]> {
    const { sql, params } = compileFind(this.spec, q);
    return (this.prepare(sql).all(...params) as Row[]).map((row) => this.toItem(row));
  }

  async count(where?: Condition[]): Promise<number> {
    const { sql, params } = compileCount(this.spec, where);
    return (this.prepare(sql).get(...params) as { n: number }).n;
  }

  async get(id: Id): Promise<Item | null> {
    if (!this.isKey(id)) return null;
    const row = this.prepare(this.sql.get).get(id) as Row | undefined;
    return row ? this.toItem(row) : null;
  }

  async insert(item: Item): Promise<Item> {
    const given = this.spec.identifier ? item[this.spec.identifier.field] : undefined;
    let key: Id | null = null;
    if (given !== undefined && given !== null) key = this.checkKey(given);
    else if (this.spec.identifier?.type === 'string') key = uuidv7();
    const doc = this.docOf(item);
    const { lastInsertRowid } = this.write(() => this.prepare(this.sql.insert).run(key, doc));
    return this.toItem({ key: key ?? Number(lastInsertRowid), doc });
  }

  async replace(id: Id, item: Item): Promise<Item | null> {
    if (!this.isKey(id)) return null;
    const doc = this.docOf(item);
    return this.prepare(this.sql.update).run(doc, id).changes > 0 ? this.toItem({ key: id, doc }) : null;
  }

  async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const key = this.checkKey(id);
    const doc = this.docOf(item);
    // IMMEDIATE takes the write lock first, so another process cannot insert between the two statements.
    const created = this.db
      .transaction(() => {
        if (this.prepare(this.sql.update).run(doc, key).changes > 0) return false;
        this.prepare(this.sql.insert).run(key, doc);
        return true;
      })
      .immediate();
    return { item: this.toItem({ key, doc }), created };
  }

  async delete(id: Id): Promise<boolean> {
    return this.isKey(id) && this.prepare(this.sql.delete).run(id).changes > 0;
  }

  /** The key type is the identifier's; collections without one use their internal integer key. */
  private isKey(id: unknown): id is Id {
    return this.spec.identifier?.type === 'string' ? typeof id === 'string' : Number.isSafeInteger(id);
  }

  private checkKey(id: unknown): Id {
    if (!this.isKey(id)) throw new TypeError(`invalid ${this.spec.name} identifier ${JSON.stringify(id)}`);
    return id;
  }

  private write(run: () => Database.RunResult): Database.RunResult {
    try {
      return run();
    } catch (error) {
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreConflictError(`${this.spec.name} identifier already exists`, { cause: error });
      }
      throw error;
    }
  }

  private docOf(item: Item): string {
    const rest = { ...item };
    if (this.spec.identifier) delete rest[this.spec.identifier.field];
    return JSON.stringify(rest);
  }

  private toItem(row: Row): Item {
    const rest = JSON.parse(row.doc) as Item;
    return this.spec.identifier ? { [this.spec.identifier.field]: row.key, ...rest } : rest;
  }
}
