// A collection of the embedded store: one table (schema.ts), its queries compiled by query.ts, on the store's one
// connection (connection.ts). better-sqlite3 is synchronous, so every statement runs to completion before the
// returned promise settles. Streams are in stream.ts.
import { isDeepStrictEqual } from 'node:util';
import type Database from 'better-sqlite3';
import { checkKey, givenKey, isKey, sequenceKey, stringKey } from '../keys.js';
import { hasReferences } from '../references.js';
import type { Collection, CollectionSpec, Condition, Id, Item, PageRows, Query, Rendering } from '../types.js';
import { rowItem, type Connection, type Row } from './connection.js';
import { conflictsOf } from './errors.js';
import {
  compileCount,
  compileDeleteWhere,
  compileExists,
  compileFind,
  compileTotal,
  DOC_COLUMN,
  KEY_COLUMN,
  keyOrdered,
  quoteIdent,
  type FindPlan,
  RENDERED_COLUMN,
} from './query.js';
import { keyOrderIndex, sequenceSchema, type SequenceSchema } from './schema.js';
import { streamItems } from './stream.js';

export class SqliteCollection implements Collection {
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
  /** `insertKeyed` in a transaction of its own, made once (better-sqlite3 builds a transaction function slowly). */
  private readonly insertTransaction: Database.Transaction<(item: Item, given: Id | null) => Item>;

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
    this.insertTransaction = this.db.transaction((item: Item, given: Id | null) => this.insertKeyed(item, given));
  }

  async find(q: Query): Promise<Item[]> {
    return this.items(q);
  }

  async findRendered(q: Query): Promise<string[] | undefined> {
    return this.texts(q);
  }

  async findPage(q: Query, options?: { rendered?: boolean }): Promise<PageRows> {
    const read = (): PageRows => {
      const total = this.total(q.where);
      const plan = this.pagePlan(q, total);
      const texts = options?.rendered ? this.texts(q, plan) : undefined;
      return texts ? { texts, total } : { items: this.items(q, plan), total };
    };
    // An open stream cursor keeps the connection's read transaction open (SQLite ends an implicit one when its
    // last statement finishes), and better-sqlite3 refuses BEGIN meanwhile: both reads are already in it.
    return this.connection.cursors.size > 0 ? read() : this.connection.readTogether(read);
  }

  /**
   * A page with a `refers` condition (a scope through a relation) in key order is read along that order when this
   * reads fewer rows than the relation's index would: about (offset + limit) × rows / matches rows, against every
   * one of the `matches`, then sorted. A scope that keeps most rows reads its first pages in order (through the
   * index on the key and the relation where there is one: schema.ts, keyOrderIndex); one that keeps few (a
   * seller's one shop among many) reads its rows by the relation's index.
   */
  private pagePlan(q: Query, matches: number): FindPlan | undefined {
    if (!hasReferences(q.where) || !keyOrdered(this.spec, q)) return undefined;
    const rows = this.total(undefined);
    const wanted = (q.offset ?? 0) + (q.limit ?? rows);
    if (wanted * rows >= matches * matches) return { inOrder: false };
    return { inOrder: true, index: keyOrderIndex(this.spec, q.where) };
  }

  private items(q: Query, plan?: FindPlan): Item[] {
    const { sql, params } = compileFind(this.spec, q, undefined, plan);
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

  private texts(q: Query, plan?: FindPlan): string[] | undefined {
    if (!this.rendering) return undefined;
    const { sql, params } = compileFind(this.spec, q, [RENDERED_COLUMN], plan);
    // One column, plucked: better-sqlite3 builds no row object, the cheapest read it has.
    const texts = this.prepare(sql)
      .pluck()
      .all(...params) as (string | null)[];
    // NULL: a row some other writer stored without its text (an older apidsl on the same file).
    return texts.includes(null) ? undefined : (texts as string[]);
  }

  stream(q: Query): AsyncGenerator<Item, void, undefined> {
    return streamItems(this.connection, this.spec, q);
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
    const counting = compileCount(this.spec, where);
    return this.connection.counts.count(
      counting,
      () => (this.prepare(counting.sql).get(...counting.params) as { n: number }).n,
    );
  }

  async get(id: Id): Promise<Item | null> {
    if (!isKey(this.spec, id)) return null;
    const row = this.prepare(this.sql.get).get(id) as Row | undefined;
    return row ? this.toItem(row) : null;
  }

  async getMany(ids: readonly Id[]): Promise<Item[]> {
    const keys = ids.filter((id) => isKey(this.spec, id));
    return keys.length === 0 ? [] : this.decoded(this.prepare(this.sql.getMany), [JSON.stringify(keys)]);
  }

  async insert(item: Item): Promise<Item> {
    this.connection.quiesce();
    const given = givenKey(this.spec, item);
    // Inside the caller's transaction (an import's batch) a row with its own key needs no savepoint: an INSERT that
    // fails undoes itself (SQLite's ABORT), and the sequence is raised only once the row is stored.
    if (given !== null && this.db.inTransaction) return this.insertKeyed(item, given);
    // IMMEDIATE: the key taken from (or raised in) the sequence and the row are written together.
    return this.insertTransaction.immediate(item, given);
  }

  /** Inserts the row with its given key, or the next one (inside a transaction). */
  private insertKeyed(item: Item, given: Id | null): Item {
    const stored = this.insertRow(item, given ?? (this.sequence ? this.nextKey() : stringKey()));
    if (typeof given === 'number') this.raiseSequence(given);
    return stored;
  }

  async insertMany(items: Item[]): Promise<Item[]> {
    this.connection.quiesce();
    // One transaction: the count triggers and the rendered texts are kept row by row inside it, all or none.
    return this.db
      .transaction(() => {
        if (!this.sequence)
          return items.map((item, i) => this.insertRow(item, givenKey(this.spec, item) ?? stringKey(), i));
        // Keys assigned here from the sequence read once (the write lock held), and the sequence written once.
        let top = this.lastKey();
        const stored = items.map((item, i) => {
          const key = givenKey(this.spec, item) ?? sequenceKey(this.spec, ++top);
          if (typeof key === 'number' && key > top) top = key;
          return this.insertRow(item, key, i);
        });
        this.raiseSequence(top);
        return stored;
      })
      .immediate();
  }

  /** Takes the next integer key (inside the caller's transaction). */
  private nextKey(): number {
    const next = this.prepare(this.sequence!.next).pluck().get() as number | undefined;
    if (next !== undefined) return sequenceKey(this.spec, next);
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
    conflictsOf(this.spec, () => this.prepare(this.sql.insert).run(key, doc, this.render(stored)), index);
    return stored;
  }

  async replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    if (!isKey(this.spec, id)) return null;
    const doc = this.docOf(item);
    const stored = this.toItem({ key: id, doc });
    const rendered = this.render(stored);
    this.connection.quiesce();
    const update = (): Item | null =>
      conflictsOf(this.spec, () => this.prepare(this.sql.update).run(doc, rendered, id)).changes > 0 ? stored : null;
    if (!expected) return update();
    // IMMEDIATE: no other writer (another process included) between the comparison and the update.
    return this.db.transaction(() => (this.holds(id, expected) ? update() : null)).immediate();
  }

  async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const key = checkKey(this.spec, id);
    const doc = this.docOf(item);
    const stored = this.toItem({ key, doc });
    const rendered = this.render(stored);
    this.connection.quiesce();
    // IMMEDIATE takes the write lock first, so another process cannot insert between the two statements.
    const created = conflictsOf(this.spec, () =>
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
    if (!isKey(this.spec, id)) return false;
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
