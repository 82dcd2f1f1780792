// A collection of the PostgreSQL store: reads and writes of one table (table.ts), queries compiled by query.ts,
// run on the store's pool or the transaction around them (connection.ts). Integer keys come from the table's
// identity sequence, raised past every key given explicitly so that none is handed out twice.
import { isDeepStrictEqual } from 'node:util';
import Cursor from 'pg-cursor';
import { checkKey, givenKey, isKey, stringKey } from '../keys.js';
import { MissingReferenceError, StoreConflictError, UniqueConflictError } from '../types.js';
import type { Collection, CollectionSpec, Condition, Id, Item, PageRows, Query } from '../types.js';
import type { Connection, Row } from './connection.js';
import { storeError } from './errors.js';
import { refusedMember, writeStatements, type JoinList } from './join-tables.js';
import { foreignKeys } from './schema.js';
import { compileConditions, compileCount, compileExists, compileFind, Params } from './query.js';
import { rowItem, rowValues, tableOf, type RowValues, type Table } from './table.js';

/** Rows a stream reads per round trip. */
export const STREAM_BATCH = 500;
/** Assigned integer keys that collide with stored ones before the sequence is raised past them. */
const ASSIGN_ATTEMPTS = 20;

export class PostgresCollection implements Collection {
  private readonly table: Table;
  /** The foreign keys' fields, by constraint name (a violation names the relation). */
  private readonly references: Map<string, string>;
  private readonly sql: {
    get: string;
    getMany: string;
    insertAssigned: string;
    insertKeyed: string;
    update: string;
    upsert: string;
    lock: string;
    delete: string;
  };
  /** The statements writing each list's members (`table.lists` order). */
  private readonly listSql: ReturnType<typeof writeStatements>[];

  constructor(
    private readonly connection: Connection,
    readonly spec: CollectionSpec,
    /** The identity sequence's name (quoted), undefined for string keys. */
    private readonly sequence: string | undefined,
    /** The fields of each unique index, by index name (a violation names its index). */
    private readonly unique: Map<string, string[]>,
  ) {
    const t = (this.table = tableOf(spec));
    this.references = new Map(foreignKeys(spec).map((fk) => [fk.name, fk.column.field]));
    this.listSql = t.lists.map(writeStatements);
    const names = [...t.columns.map((c) => c.name), t.extra];
    const placeholders = (from: number): string => names.map((_, i) => `$${i + from}`).join(', ');
    const keyType = t.key.type === 'int' ? 'bigint' : 'text';
    const sets = names.map((n, i) => `${n} = $${i + 2}`).join(', ');
    this.sql = {
      get: `SELECT ${t.selected} FROM ${t.name} WHERE ${t.key.name} = $1`,
      getMany: `SELECT ${t.selected} FROM ${t.name} WHERE ${t.key.name} = ANY($1::${keyType}[])`,
      insertAssigned: `INSERT INTO ${t.name} (${names.join(', ')}) VALUES (${placeholders(1)}) RETURNING ${t.key.name}`,
      insertKeyed: `INSERT INTO ${t.name} (${t.key.name}, ${names.join(', ')}) VALUES ($1, ${placeholders(2)})`,
      update: `UPDATE ${t.name} SET ${sets} WHERE ${t.key.name} = $1`,
      // xmax is 0 on a row this statement inserted, not on one it updated.
      upsert: `INSERT INTO ${t.name} (${t.key.name}, ${names.join(', ')}) VALUES ($1, ${placeholders(2)}) ON CONFLICT (${t.key.name}) DO UPDATE SET ${names.map((n) => `${n} = excluded.${n}`).join(', ')} RETURNING (xmax = 0)`,
      lock: `SELECT ${t.selected} FROM ${t.name} WHERE ${t.key.name} = $1 FOR UPDATE`,
      delete: `DELETE FROM ${t.name} WHERE ${t.key.name} = $1`,
    };
  }

  private conflicts(item: Item, index?: number): (e: unknown) => unknown {
    return (e) => storeError(e, this.spec, { unique: this.unique, references: this.references, index, item });
  }

  private toItem = (row: Row): Item => rowItem(this.table, row);

  async find(q: Query): Promise<Item[]> {
    const c = compileFind(this.table, q);
    if (q.limit === 0) return [];
    return (await this.connection.rows(c.text, c.values)).map(this.toItem);
  }

  async *stream(q: Query): AsyncGenerator<Item, void, undefined> {
    // A generator's body starts at the first next(): that is where an invalid query rejects.
    const c = compileFind(this.table, q);
    if (q.limit === 0) return;
    // A connection of its own (released when the loop ends): the cursor reads batches of one query.
    const client = await this.connection.client();
    const cursor = client.query(new Cursor<Row>(c.text, c.values, { rowMode: 'array' }));
    let failed: unknown;
    try {
      for (;;) {
        let rows: Row[];
        try {
          rows = await cursor.read(STREAM_BATCH);
        } catch (e) {
          failed = e;
          throw storeError(e);
        }
        if (rows.length === 0) return;
        for (const row of rows) yield this.toItem(row);
      }
    } finally {
      await cursor.close().catch((e: unknown) => (failed ??= e));
      client.release(failed instanceof Error ? failed : undefined);
    }
  }

  async findPage(q: Query): Promise<PageRows> {
    // One statement, so the page and its total are of one snapshot: the count beside a lateral page (a row of
    // NULLs when the page is empty).
    const p = new Params();
    const where = q.where?.length ? ` WHERE ${compileConditions(this.table, q.where, p)}` : '';
    const page = compileFind(this.table, q);
    const shift = p.values.length;
    const pageText = page.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`);
    const text = `SELECT (SELECT count(*) FROM ${this.table.name}${where}), page.* FROM (SELECT 1) AS one LEFT JOIN LATERAL (${pageText}) AS page ON true`;
    const rows = await this.connection.rows(text, [...p.values, ...page.values]);
    const total = rows[0]![0] as number;
    const items = q.limit === 0 ? [] : rows.filter((r) => r[1] !== null).map((r) => this.toItem(r.slice(1)));
    return { items, total };
  }

  async findAndProbe(q: Query, probe: Query): Promise<{ items: Item[]; probed: boolean }> {
    // One statement: the probe a scalar sub-query in one more column (1 or NULL on every row, evaluated once), read
    // through the index of its order from its cursor, as the page is through the page's.
    if (q.limit === 0) return { items: [], probed: false };
    const c = compileFind(this.table, q, (p) => `(${compileExists(this.table, probe, p).text})`);
    const rows = await this.connection.rows(c.text, c.values);
    return { items: rows.map(this.toItem), probed: rows.length > 0 && rows[0]!.at(-1) !== null };
  }

  async exists(q: Query): Promise<boolean> {
    const c = compileExists(this.table, q);
    return (await this.connection.rows(c.text, c.values)).length > 0;
  }

  async count(where?: Condition[]): Promise<number> {
    const c = compileCount(this.table, where);
    return (await this.connection.rows(c.text, c.values))[0]![0] as number;
  }

  async get(id: Id): Promise<Item | null> {
    if (!isKey(this.spec, id)) return null;
    const rows = await this.connection.rows(this.sql.get, [id]);
    return rows.length > 0 ? this.toItem(rows[0]!) : null;
  }

  async getMany(ids: readonly Id[]): Promise<Item[]> {
    const keys = [...new Set(ids.filter((id) => isKey(this.spec, id)))];
    if (keys.length === 0) return [];
    return (await this.connection.rows(this.sql.getMany, [keys])).map(this.toItem);
  }

  async insert(item: Item, index?: number): Promise<Item> {
    const row = rowValues(this.table, item);
    // An item without members writes no join table row: its one statement needs no transaction around it.
    const members = row.members.some((keys) => keys !== undefined && keys.length > 0);
    return this.withLists(members, async () => {
      const key = await this.insertRow(row, item, index);
      await this.writeMembers(key, row.members, item, true, index);
      return this.keyed(key, item);
    });
  }

  /** Inserts the item's row; its key. */
  private async insertRow({ values, extra }: RowValues, item: Item, index?: number): Promise<Id> {
    const key = givenKey(this.spec, item) ?? (this.sequence ? null : stringKey());
    if (key !== null) {
      await this.connection.changed(this.sql.insertKeyed, [key, ...values, extra], this.conflicts(item, index));
      if (typeof key === 'number') await this.raise(key);
      return key;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = await this.connection.rows(
          this.sql.insertAssigned,
          [...values, extra],
          this.conflicts(item, index),
        );
        return rows[0]![0] as number;
      } catch (e) {
        if (!(e instanceof StoreConflictError) || e instanceof UniqueConflictError || attempt >= ASSIGN_ATTEMPTS)
          throw e;
        if (/no identifier left/.test(e.message)) throw e;
        // A stored key at or above the sequence (written by another program): skip past the stored keys.
        await this.raisePastStored();
      }
    }
  }

  /** Runs a write as one when it writes rows of join tables too (`lists`), after the item's own row. */
  private withLists<T>(lists: boolean, run: () => Promise<T>): Promise<T> {
    return lists ? this.connection.atomic(run) : run();
  }

  /** Writes the members of the item's lists under `key`, once its row is written; `fresh`: none stored yet. */
  private async writeMembers(
    key: Id,
    members: RowValues['members'],
    item: Item,
    fresh: boolean,
    index?: number,
  ): Promise<void> {
    for (const [i, list] of this.table.lists.entries()) {
      const sql = this.listSql[i]!;
      if (!fresh) await this.connection.changed(sql.clear, [key]);
      const keys = members[i];
      if (!keys?.length) continue;
      const restricts = list.reference.relation.onDelete === 'restrict';
      if (restricts) await this.connection.rows(sql.check);
      try {
        await this.connection.changed(sql.insert, [key, keys], this.memberConflicts(list, item, index));
      } finally {
        // Not after a refused insert in a transaction it ended (a bulk POST's): its error is the one to tell.
        if (restricts) await this.connection.rows(sql.defer).catch(() => undefined);
      }
    }
  }

  /** A member naming no stored item (its foreign key): the member is named, as for a to-one relation. */
  private memberConflicts(list: JoinList, item: Item, index?: number): (e: unknown) => unknown {
    return (e) => {
      const error = e as { code?: string; detail?: string };
      if (error?.code !== '23503')
        return storeError(e, this.spec, { unique: this.unique, references: this.references, index, item });
      return new MissingReferenceError(list.field, refusedMember(list, item[list.field], error.detail), { cause: e });
    };
  }

  /** The item as stored under `key`: a plain JSON copy, its identifier set. */
  private keyed(key: Id, item: Item): Item {
    const stored = JSON.parse(JSON.stringify(item)) as Item;
    const id = this.spec.identifier?.field;
    if (id) stored[id] = key;
    return stored;
  }

  async insertMany(items: Item[]): Promise<Item[]> {
    // One transaction: all or none; a conflict names the item it stopped at.
    return this.connection.allOrNone(async () => {
      const stored: Item[] = [];
      for (const [i, item] of items.entries()) stored.push(await this.insert(item, i));
      return stored;
    });
  }

  async replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    if (!isKey(this.spec, id)) return null;
    const row = rowValues(this.table, item);
    const write = async (): Promise<Item | null> => {
      const n = await this.connection.changed(this.sql.update, [id, ...row.values, row.extra], this.conflicts(item));
      if (n === 0) return null;
      await this.writeMembers(id, row.members, item, false);
      return this.keyed(id, item);
    };
    if (!expected) return this.withLists(this.table.lists.length > 0, write);
    return this.connection.transaction(async () =>
      (await this.stillEqual(id, expected)) ? this.withLists(this.table.lists.length > 0, write) : null,
    );
  }

  /** Locks the stored item and tells whether it still equals `expected` (the compare of a compare-and-set). */
  private async stillEqual(id: Id, expected: Item): Promise<boolean> {
    const rows = await this.connection.rows(this.sql.lock, [id]);
    return rows.length > 0 && isDeepStrictEqual(this.toItem(rows[0]!), this.keyed(id, expected));
  }

  async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const key = checkKey(this.spec, id);
    const row = rowValues(this.table, item);
    // A stored item's rows are replaced (cleared at least): always with its own row.
    return this.withLists(this.table.lists.length > 0, async () => {
      const rows = await this.connection.rows(this.sql.upsert, [key, ...row.values, row.extra], this.conflicts(item));
      const created = rows[0]![0] === true;
      await this.writeMembers(key, row.members, item, created);
      if (created && typeof key === 'number' && this.sequence) await this.raise(key);
      return { item: this.keyed(key, item), created };
    });
  }

  async delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    if (!isKey(this.spec, id)) return false;
    const p = new Params();
    p.add(id);
    const text = where?.length ? `${this.sql.delete} AND ${compileConditions(this.table, where, p)}` : this.sql.delete;
    const refused = (e: unknown): unknown => storeError(e, this.spec); // a foreign key: still referenced
    const remove = async (): Promise<boolean> => (await this.connection.changed(text, p.values, refused)) > 0;
    if (!expected) return remove();
    return this.connection.transaction(async () => (await this.stillEqual(id, expected)) && remove());
  }

  async clear(): Promise<number> {
    return this.connection.changed(`DELETE FROM ${this.table.name}`); // the sequence stays
  }

  /** Raises the sequence so that it never hands out `key` (sequences are outside transactions: never undone). */
  private async raise(key: number): Promise<void> {
    if (!this.sequence) return;
    await this.connection.rows(
      `SELECT setval($2::regclass, $1) FROM ${this.sequence} WHERE $1 >= last_value + is_called::int`,
      [key, this.sequence],
    );
  }

  private async raisePastStored(): Promise<void> {
    const rows = await this.connection.rows(`SELECT max(${this.table.key.name}) FROM ${this.table.name}`);
    if (typeof rows[0]![0] === 'number') await this.raise(rows[0]![0]);
  }
}
