// A collection of the MongoDB store: reads (find, stream, a page and its total, counts) and writes (insert,
// replace, upsert, delete), each driver call guarded (errors.ts); the integer keys come from sequence.ts, the
// documents from documents.ts.
//
// `_apidsl_counts` `{ _id, n }` holds the number of items, updated in the same transaction as each insert,
// create-by-upsert and delete, so an unfiltered count is one primary-key read. Multi-document transactions need a
// replica set or a sharded cluster; on a standalone server (and FerretDB) there is no counts document and an
// unfiltered count is countDocuments({}) (exact, linear). See docs/mongodb.md.
import type { ClientSession, Collection as DriverCollection, Document } from 'mongodb';
import { checkKey, givenKey, isKey, sequenced, stringKey } from '../keys.js';
import { StoreConflictError, UniqueConflictError } from '../types.js';
import type { Collection, CollectionSpec, Condition, Id, Item, PageRows, Query } from '../types.js';
import { docItem, docOf, selecting, type StoredDoc } from './documents.js';
import { failedIndex, guard, isDuplicateKey } from './errors.js';
import { compileExists, compileFind, compileWhere, KEY } from './query.js';
import type { KeySequence } from './sequence.js';
import type { Atomically, Serial, Together } from './sessions.js';
import { clashingUnique } from './unique.js';
import { hasReferences, resolveQuery, resolveReferences } from '../references.js';

export const COUNTS = '_apidsl_counts';
export type Counts = DriverCollection<{ _id: string; n: number }>;

/** Documents a stream reads per round trip. */
export const STREAM_BATCH = 500;
/** Assigned integer keys that collide with stored ones before the sequence is raised past them. */
const ASSIGN_ATTEMPTS = 20;

export class MongoCollection implements Collection {
  constructor(
    private readonly spec: CollectionSpec,
    private readonly items: DriverCollection<StoredDoc>,
    private readonly counts: Counts,
    private readonly sequence: KeySequence,
    /** Whether the counts document is kept (where writes run in transactions). */
    private readonly counted: boolean,
    private readonly atomically: Atomically,
    private readonly together: Together,
    /** Milliseconds an operation may take before it answers "unavailable" (the server selection timeout). */
    private readonly deadline: number,
    /**
     * FerretDB workaround (its updates are read, modify, write without isolation; see sequence.ts): a replace or
     * delete filtered on the stored item (`expected`: a conditional write) is no compare-and-set there, so on
     * FerretDB the conditional writes of a collection run one at a time in this process (across processes they
     * may still race; docs/behaviour.md, "Conditional writes").
     */
    private readonly lock?: Serial,
  ) {}

  /** A conditional write (one filtered on `expected`), one at a time on FerretDB (see `lock`). */
  private conditionally<T>(expected: Item | undefined, run: () => Promise<T>): Promise<T> {
    return expected && this.lock ? this.lock(run) : run();
  }

  private guard<T>(run: () => Promise<T>): Promise<T> {
    return guard(run, this.deadline);
  }

  /**
   * Reads the keys of related items for a `refers` condition (MongoDB has no sub-query): their collection is
   * named by the resource, in this database.
   */
  private readonly readKeys = async (target: CollectionSpec, where: Condition[]): Promise<Id[]> => {
    const related = this.items.db.collection<StoredDoc>(target.name);
    const filter = compileWhere(target, where);
    const docs = await this.guard(() => related.find(filter, { projection: { [KEY]: 1 } }).toArray());
    return docs.map((doc) => doc[KEY] as Id);
  };

  async find(query: Query): Promise<Item[]> {
    const q = await resolveQuery(query, this.readKeys);
    const c = compileFind(this.spec, q);
    if (c.limit === 0) return [];
    const docs = await this.guard(() =>
      this.items.find(c.filter, { sort: c.sort, skip: c.skip, limit: c.limit }).toArray(),
    );
    return docs.map((doc) => this.toItem(doc));
  }

  async *stream(query: Query): AsyncGenerator<Item, void, undefined> {
    // A generator's body starts at the first next(): that is where an invalid query rejects.
    const q = await resolveQuery(query, this.readKeys);
    const c = compileFind(this.spec, q);
    if (c.limit === 0) return;
    const cursor = this.items.find(c.filter, { sort: c.sort, skip: c.skip, limit: c.limit, batchSize: STREAM_BATCH });
    try {
      for (;;) {
        const doc = await this.guard(() => cursor.next());
        if (doc === null) return;
        yield this.toItem(doc);
      }
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }

  async findPage(query: Query): Promise<PageRows> {
    const q = await resolveQuery(query, this.readKeys);
    const c = compileFind(this.spec, q);
    return this.guard(() =>
      this.together(async (session) => {
        const find = (): Promise<StoredDoc[]> =>
          c.limit === 0
            ? Promise.resolve([])
            : this.items.find(c.filter, { sort: c.sort, skip: c.skip, limit: c.limit, session }).toArray();
        // In a snapshot session one after the other (the first read fixes the snapshot); without one, at once.
        const [docs, total] = session
          ? [await find(), await this.total(q.where, session)]
          : await Promise.all([find(), this.total(q.where, undefined)]);
        return { items: docs.map((doc) => this.toItem(doc)), total };
      }),
    );
  }

  async exists(query: Query): Promise<boolean> {
    const q = await resolveQuery(query, this.readKeys);
    const c = compileExists(this.spec, q);
    const doc = await this.guard(() => this.items.findOne(c.filter, { skip: c.skip, projection: { [KEY]: 1 } }));
    return doc !== null;
  }

  async count(where?: Condition[]): Promise<number> {
    const resolved = hasReferences(where) ? await resolveReferences(where!, this.readKeys) : where;
    return this.guard(() => this.total(resolved, undefined));
  }

  private async total(where: Condition[] | undefined, session: ClientSession | undefined): Promise<number> {
    if (where === undefined || where.length === 0) {
      if (this.counted) {
        const row = await this.counts.findOne({ _id: this.spec.name }, { session });
        if (row) return row.n;
        // Deleted by hand: count rather than fail (the next start seeds it again).
      }
      return this.items.countDocuments({}, { session });
    }
    return this.items.countDocuments(compileWhere(this.spec, where), { session });
  }

  async get(id: Id): Promise<Item | null> {
    if (!isKey(this.spec, id)) return null;
    const doc = await this.guard(() => this.items.findOne({ _id: id }));
    return doc ? this.toItem(doc) : null;
  }

  async getMany(ids: readonly Id[]): Promise<Item[]> {
    const keys = ids.filter((id) => isKey(this.spec, id));
    if (keys.length === 0) return [];
    const docs = await this.guard(() => this.items.find({ _id: { $in: keys } }).toArray());
    return docs.map((doc) => this.toItem(doc));
  }

  async insert(item: Item): Promise<Item> {
    const key = givenKey(this.spec, item);
    if (key !== null) {
      const doc = docOf(this.spec, key, item);
      await this.insertCounted(doc);
      if (typeof key === 'number') await this.sequence.raise(key);
      return this.toItem(doc);
    }
    if (!sequenced(this.spec)) {
      const doc = docOf(this.spec, stringKey(), item);
      await this.insertCounted(doc);
      return this.toItem(doc);
    }
    for (let attempt = 1; ; attempt++) {
      const doc = docOf(this.spec, await this.sequence.next(), item);
      try {
        await this.insertCounted(doc);
        return this.toItem(doc);
      } catch (e) {
        if (!(e instanceof StoreConflictError) || e instanceof UniqueConflictError || attempt >= ASSIGN_ATTEMPTS)
          throw e;
        // A stored key at or above the sequence (written by another program, or the sequence lost): skip past it.
        await this.sequence.raisePastStored();
      }
    }
  }

  async insertMany(items: Item[]): Promise<Item[]> {
    // The driver refuses an empty batch ("Batch cannot be empty"); nothing to store is nothing stored.
    if (items.length === 0) return [];
    for (let attempt = 1; ; attempt++) {
      const { keys, assigned } = await this.sequence.keysOf(items);
      const docs = items.map((item, i) => docOf(this.spec, keys[i], item));
      try {
        await this.insertManyCounted(docs);
      } catch (e) {
        const failed =
          e instanceof StoreConflictError && !(e instanceof UniqueConflictError) ? failedIndex(e.cause) : undefined;
        if (failed === undefined || !assigned[failed] || attempt >= ASSIGN_ATTEMPTS) throw e;
        // An assigned key was taken (as in `insert`): skip the sequence past the stored keys, assign again.
        await this.sequence.raisePastStored();
        continue;
      }
      return docs.map((doc) => this.toItem(doc));
    }
  }

  /**
   * One ordered insertMany and the count, in a transaction when the deployment has them. Without one, a
   * failing document leaves those before it written: they are deleted again (the compensating delete of
   * Collection.insertMany), unless the failure left unknown which were written (the server was lost).
   */
  private async insertManyCounted(docs: StoredDoc[]): Promise<void> {
    try {
      await this.guard(() =>
        this.atomically(async (session) => {
          await this.items.insertMany(docs, { ordered: true, session });
          await this.addToCount(docs.length, session);
        }),
      );
    } catch (e) {
      const failed = failedIndex(e);
      if (!this.atomically.transactional && failed !== undefined && failed > 0) {
        const written = docs.slice(0, failed).map((doc) => doc._id);
        await this.guard(() => this.items.deleteMany({ _id: { $in: written } }));
      }
      if (isDuplicateKey(e)) throw await this.conflict(e, docs[failed ?? 0]!, docs.slice(0, failed ?? 0), failed);
      throw e;
    }
  }

  async replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    if (!isKey(this.spec, id)) return null;
    const doc = docOf(this.spec, id, item);
    const result = await this.conditionally(expected, () =>
      this.guard(async () => {
        try {
          return await this.items.replaceOne(selecting(this.spec, id, expected), doc);
        } catch (e) {
          throw isDuplicateKey(e) ? await this.conflict(e, doc) : e;
        }
      }),
    );
    return result.matchedCount > 0 ? this.toItem(doc) : null;
  }

  async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const key = checkKey(this.spec, id);
    const doc = docOf(this.spec, key, item);
    const once = (): Promise<boolean> =>
      this.atomically(async (session) => {
        const result = await this.items.replaceOne({ _id: key }, doc, { upsert: true, session });
        const created = result.upsertedCount > 0;
        if (created) await this.addToCount(1, session);
        return created;
      });
    const created = await this.guard(async () => {
      try {
        return await once();
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
        const conflict = await this.conflict(e, doc);
        if (conflict instanceof UniqueConflictError) throw conflict;
        // Two upserts creating the same item at once: one inserts, the other's insert collides; it now replaces.
        return once().catch(async (again: unknown) => {
          throw isDuplicateKey(again) ? await this.conflict(again, doc) : again;
        });
      }
    });
    if (created && typeof key === 'number') await this.sequence.raise(key);
    return { item: this.toItem(doc), created };
  }

  async delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    if (!isKey(this.spec, id)) return false;
    const selected = selecting(this.spec, id, expected);
    const resolved = hasReferences(where) ? await resolveReferences(where!, this.readKeys) : where;
    const filter = resolved?.length ? { $and: [selected, compileWhere(this.spec, resolved)] } : selected;
    return this.conditionally(expected, () =>
      this.guard(() =>
        this.atomically(async (session) => {
          const result = await this.items.deleteOne(filter, { session });
          if (result.deletedCount > 0) await this.addToCount(-1, session);
          return result.deletedCount > 0;
        }),
      ),
    );
  }

  async clear(): Promise<number> {
    return guard(async () => {
      const { deletedCount } = await this.items.deleteMany({});
      if (this.counted) await this.counts.updateOne({ _id: this.spec.name }, { $set: { n: 0 } });
      return deletedCount; // the sequence stays: a key is never handed out twice
    });
  }

  private async insertCounted(doc: StoredDoc): Promise<void> {
    try {
      await this.guard(() =>
        this.atomically(async (session) => {
          await this.items.insertOne(doc, { session });
          await this.addToCount(1, session);
        }),
      );
    } catch (e) {
      if (isDuplicateKey(e)) throw await this.conflict(e, doc);
      throw e;
    }
  }

  /**
   * The store error a duplicate-key error `e` on writing `doc` (item `index` of its batch, after `earlier`)
   * means: a unique value another item holds (UniqueConflictError), else the identifier.
   */
  private async conflict(
    e: unknown,
    doc: StoredDoc,
    earlier: StoredDoc[] = [],
    index?: number,
  ): Promise<StoreConflictError> {
    const fields = await clashingUnique(this.spec, this.items, doc, earlier);
    return fields
      ? new UniqueConflictError(fields, { cause: e, index })
      : new StoreConflictError(`${this.spec.name} identifier already exists`, { cause: e });
  }

  private async addToCount(delta: number, session: ClientSession | undefined): Promise<void> {
    // No upsert: a missing counts document stays missing (count() then counts), never wrong.
    if (this.counted) await this.counts.updateOne({ _id: this.spec.name }, { $inc: { n: delta } }, { session });
  }

  private toItem(doc: Document): Item {
    return docItem(this.spec, doc);
  }
}
