// The MongoDB store: the official driver, one MongoClient (one connection pool) per store, one MongoDB
// collection per resource, queries compiled by mongodb-query.ts.
//
// Documents: `_id` holds the identifier (int or string) or, for a resource without one, an internal integer
// key in insertion order; the other fields are stored as they are (see mongodb-query.ts for the renaming of
// names starting with `_`). A JSON value that MongoDB cannot hold as a document (a key starting with `$`,
// holding a `.` or a NUL, or empty) is kept as JSON text and its stored name listed in `_j`; item keys that
// cannot be field names are kept together as JSON text in `_x`. Items come back as plain JSON objects.
//
// Two bookkeeping collections, both keyed by the resource name:
// - `_apidsl_sequences` `{ _id, n }`: the last integer key handed out (findOneAndUpdate + $inc, atomic), raised
//   with $max past every explicitly given one, and at start past the largest stored one.
// - `_apidsl_counts` `{ _id, n }`: the number of items, updated in the same transaction as each insert,
//   create-by-upsert and delete, so an unfiltered count is one primary-key read. Multi-document transactions
//   need a replica set or a sharded cluster; on a standalone server (and FerretDB) there is no counts document
//   and an unfiltered count is countDocuments({}) (exact, linear). See docs/mongodb.md.
//
// A page and its total (`findPage`) are read in one snapshot session (`snapshot: true`: every read at the
// cluster time of the first) where the deployment has them: a replica set or sharded cluster of MongoDB 5.0 or
// later whose writes are acknowledged by a majority (snapshot reads see majority-committed data only, so with
// w=1 a client could miss its own write). Elsewhere (standalone, FerretDB) the two reads are separate.
import {
  MongoBulkWriteError,
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
  type ClientSession,
  type Collection as DriverCollection,
  type Db,
  type Document,
  type Filter,
  type MongoClientOptions,
  type TransactionOptions,
} from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { MongoConfigError, databaseName, redactUri } from './mongodb-errors.js';
import {
  checkName,
  compileExists,
  compileFind,
  compileWhere,
  indexSpecs,
  isInternal,
  itemName,
  KEY,
  storedName,
} from './mongodb-query.js';
import { layoutText } from './layout.js';
import {
  clashingUnique,
  describeDuplicates,
  fillUniqueFields,
  uniqueField,
  uniqueFieldsOf,
  uniqueIndexes,
  uniqueIndexFields,
} from './mongodb-unique.js';
import { LayoutConflictError, StoreConflictError, StoreUnavailableError, UniqueConflictError } from './types.js';
import type {
  Collection,
  CollectionSpec,
  Condition,
  Id,
  Item,
  PageRows,
  Query,
  Store,
  StoredCollection,
} from './types.js';

/**
 * How unfiltered counts are kept. 'auto': a counts document updated in transactions where the deployment has
 * them (replica set, sharded cluster), else 'scan'. 'document' keeps the counts document without transactions
 * (each count update follows its write, so a crash between the two leaves it off by one): for tests only.
 */
export type CountMode = 'auto' | 'document' | 'scan';

export interface MongoStoreOptions {
  /** `mongodb://host:port/dbname?options` or `mongodb+srv://…`; the database defaults to `apidsl`. */
  uri: string;
  counts?: CountMode;
  /**
   * Whether pages are read in snapshot sessions: 'auto' where the deployment has snapshot reads (see `findPage`).
   * 'always' asks for them on any server: for tests only (FerretDB accepts such a session and ignores it).
   */
  snapshots?: 'auto' | 'always';
}

/** Server selection gives up after this long unless the URI says otherwise: start-up and outages fail fast. */
export const DEFAULT_SERVER_SELECTION_TIMEOUT_MS = 5_000;
/**
 * An operation not answered within the server selection timeout fails as "unavailable" (503), whatever it
 * waits for: a server that stopped answering on an established connection (frozen, not dead) is noticed only
 * by the socket timeout and a retry, which would take three times as long. A stream bounds each batch.
 */
const SOCKET_TIMEOUT_FACTOR = 4;
/** A new connection (TCP and the MongoDB handshake) gives up after this long unless the URI says otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Documents a stream reads per round trip. */
const STREAM_BATCH = 500;
/** Assigned integer keys that collide with stored ones before the sequence is raised past them. */
const ASSIGN_ATTEMPTS = 20;

export const COUNTS = '_apidsl_counts';
export const SEQUENCES = '_apidsl_sequences';
/** `{ _id, layout }`: each collection's layout as last opened, as text (store/layout.ts). */
export const LAYOUTS = '_apidsl_layouts';

const DUPLICATE_KEY = 11000;
/** A snapshot read that may succeed when tried again (SnapshotTooOld, SnapshotUnavailable). */
const SNAPSHOT_RETRYABLE = new Set([239, 246]);
const NAMESPACE_EXISTS = 48;
/** Server errors that mean "not reachable right now": shutdown, step-down, no primary, network. */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

function hasParam(uri: string, name: string): boolean {
  const query = uri.split('?')[1] ?? '';
  return query.split('&').some((p) => p.split('=')[0]!.toLowerCase() === name.toLowerCase());
}

function isUnavailable(e: unknown): boolean {
  return (
    e instanceof MongoNetworkError || // PoolClearedError and timeouts included
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNotConnectedError ||
    e instanceof MongoTopologyClosedError ||
    e instanceof MongoWriteConcernError ||
    (e instanceof MongoServerError && typeof e.code === 'number' && UNAVAILABLE_CODES.has(e.code)) ||
    (e instanceof MongoError &&
      e.hasErrorLabel('TransientTransactionError') &&
      !(e instanceof MongoServerError && e.code === DUPLICATE_KEY))
  );
}

/**
 * A duplicate key. FerretDB 1.24 workaround: an update (replaceOne) that breaks a unique index answers
 * InternalError (code 1) with its backend's message instead of 11000.
 */
const isDuplicateKey = (e: unknown): boolean =>
  e instanceof MongoServerError &&
  (e.code === DUPLICATE_KEY ||
    (e.code === 1 && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(e.message)));

/** The index of the document an ordered insertMany stopped at, when the server said which. */
function failedIndex(e: unknown): number | undefined {
  if (!(e instanceof MongoBulkWriteError)) return undefined;
  const errors = Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
  return typeof errors[0]?.index === 'number' ? errors[0].index : undefined;
}

/** Driver errors as store errors: unreachable → StoreUnavailableError; anything else unchanged. */
function storeError(e: unknown, what = 'MongoDB cannot be reached'): unknown {
  if (e instanceof StoreUnavailableError || e instanceof StoreConflictError) return e;
  if (isUnavailable(e)) return new StoreUnavailableError(`${what}: ${(e as Error).message}`, { cause: e });
  return e;
}

/** Runs a driver call with its errors as store errors and, when `deadlineMs` is given, at most that long. */
async function guard<T>(run: () => Promise<T>, deadlineMs?: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const operation = run();
    if (deadlineMs === undefined) return await operation;
    operation.catch(() => undefined); // a late failure, after the deadline answered, is of no interest
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`MongoDB did not answer within ${deadlineMs} ms`)),
        deadlineMs,
      );
    });
    return await Promise.race([operation, expired]);
  } catch (e) {
    throw storeError(e);
  } finally {
    clearTimeout(timer);
  }
}

export async function openMongoStore(options: MongoStoreOptions): Promise<Store> {
  const { uri } = options;
  const clientOptions: MongoClientOptions = { ignoreUndefined: true };
  if (!hasParam(uri, 'serverSelectionTimeoutMS'))
    clientOptions.serverSelectionTimeoutMS = DEFAULT_SERVER_SELECTION_TIMEOUT_MS;
  if (!hasParam(uri, 'connectTimeoutMS')) clientOptions.connectTimeoutMS = DEFAULT_CONNECT_TIMEOUT_MS;
  if (!hasParam(uri, 'socketTimeoutMS')) {
    // A socket a frozen server never answers on is given up eventually, releasing its pooled connection.
    clientOptions.socketTimeoutMS =
      SOCKET_TIMEOUT_FACTOR * (clientOptions.serverSelectionTimeoutMS ?? DEFAULT_SERVER_SELECTION_TIMEOUT_MS);
  }
  if (!hasParam(uri, 'appName')) clientOptions.appName = 'apidsl';
  let client: MongoClient;
  try {
    client = new MongoClient(uri, clientOptions);
  } catch (e) {
    // Parsing is all the constructor does: any error is the connection string's.
    throw new MongoConfigError(`invalid MongoDB connection string ${redactUri(uri)}: ${(e as Error).message}`);
  }
  const w = client.options.writeConcern?.w;
  if (w === 0)
    throw new MongoConfigError(
      'w=0 (unacknowledged writes) is not supported: apidsl answers a write only once MongoDB acknowledged it',
    );
  try {
    await client.connect();
    const hello = (await client.db('admin').command({ hello: 1 })) as Document;
    const buildInfo = (await client.db('admin').command({ buildInfo: 1 })) as Document;
    const ferretdb = typeof buildInfo.ferretdbVersion === 'string';
    const replicated = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
    const transactions = replicated && hello.logicalSessionTimeoutMinutes != null;
    // On a replica set a write is acknowledged once a majority has it, unless the URI chose otherwise.
    const db = client.db(databaseName(uri), replicated && w === undefined ? { writeConcern: { w: 'majority' } } : {});
    const requested = options.counts ?? 'auto';
    const automatic = transactions ? 'document' : 'scan';
    const mode: Exclude<CountMode, 'auto'> = requested === 'auto' ? automatic : requested;
    // Snapshot reads (the counts seed counts what it sees); commits acknowledged by a majority unless the URI says.
    const transaction: TransactionOptions | undefined =
      transactions && mode === 'document'
        ? { readConcern: { level: 'snapshot' }, writeConcern: w === undefined ? { w: 'majority' } : { w } }
        : undefined;
    const major = Array.isArray(buildInfo.versionArray) ? Number(buildInfo.versionArray[0]) : 0;
    const snapshots =
      options.snapshots === 'always' ||
      (replicated && !ferretdb && major >= 5 && (w === undefined || w === 'majority'));
    return new MongoStore(client, db, mode, transaction, ferretdb, readTogether(client, snapshots));
  } catch (e) {
    // Not awaited: closing waits for a silent host's pending handshake (connectTimeoutMS); the error is known now.
    void client.close().catch(() => undefined);
    throw storeError(e, `cannot reach MongoDB at ${redactUri(uri)}`);
  }
}

/**
 * Makes the missing unique indexes, after writing the unique fields of items stored before (mongodb-unique.ts);
 * stored items that repeat values refuse the start (LayoutConflictError naming them).
 */
async function openUniqueIndexes(
  spec: CollectionSpec,
  items: DriverCollection<StoredDoc>,
  existing: Set<string>,
): Promise<void> {
  const missing = uniqueIndexes(spec).filter((index) => !existing.has(index.name));
  if (missing.length === 0) return;
  await fillUniqueFields(spec, items, (doc) => docItem(spec, doc));
  // One at a time: FerretDB 1.24 mishandles a batch (see above), and a failure names its own fields.
  for (const index of missing) {
    try {
      await items.createIndex(index.key, { name: index.name, unique: true });
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
      const fields = uniqueIndexFields(index.name)!;
      throw new LayoutConflictError(await describeDuplicates(spec, items, fields), { cause: e });
    }
  }
}

/** A stored item: `_id` is the identifier or the internal key. */
type StoredDoc = Document & { _id: Id };

/**
 * Runs reads together: in one snapshot session (`session` given: read one after the other, the first sets the
 * snapshot) when the deployment has snapshot reads, else without a session (`session` undefined).
 */
type Together = <T>(read: (session: ClientSession | undefined) => Promise<T>) => Promise<T>;

/**
 * `Together` on a deployment that has snapshot reads (`snapshots`, judged from the server's answers at start).
 * A server that refuses them all the same (something that answers like MongoDB 5 without having them) is asked
 * without a session from then on, once a read without one succeeded where the snapshot read failed.
 */
function readTogether(client: MongoClient, snapshots: boolean): Together {
  let available = snapshots;
  return async (read) => {
    if (!available) return read(undefined);
    try {
      return await client.withSession({ snapshot: true }, (session) => read(session));
    } catch (e) {
      if (isUnavailable(e)) throw e;
      const result = await read(undefined); // the query's own error, when it has one, rejects here
      if (!(e instanceof MongoServerError && SNAPSHOT_RETRYABLE.has(Number(e.code)))) available = false;
      return result;
    }
  };
}

/** Runs writes together: in one transaction when the store has them (`transactional`), else one after the other. */
type Atomically = (<T>(run: (session: ClientSession | undefined) => Promise<T>) => Promise<T>) & {
  transactional: boolean;
};

class MongoStore implements Store {
  private readonly atomically: Atomically;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    /** 'document': a counts document is kept; 'scan': unfiltered counts count. */
    private readonly mode: 'document' | 'scan',
    /** Options of the transactions writes run in; undefined: no transactions. */
    transaction: TransactionOptions | undefined,
    /** FerretDB workarounds on (see MongoCollection's `sequenceLock`). */
    private readonly ferretdb: boolean,
    private readonly together: Together,
  ) {
    this.atomically = transaction
      ? Object.assign(
          <T>(run: (session: ClientSession | undefined) => Promise<T>) =>
            client.withSession((session) => session.withTransaction(() => run(session), transaction)),
          { transactional: true },
        )
      : Object.assign(<T>(run: (session: ClientSession | undefined) => Promise<T>) => run(undefined), {
          transactional: false,
        });
  }

  async collection(spec: CollectionSpec): Promise<Collection> {
    checkName(spec.name, 'resource');
    if (/^_apidsl_/i.test(spec.name))
      throw new TypeError(`resource name ${JSON.stringify(spec.name)} is reserved (_apidsl_ prefix)`);
    if (spec.identifier) checkName(spec.identifier.field, 'identifier');
    for (const field of Object.keys(spec.fields)) checkName(field, 'field');
    const indexes = indexSpecs(spec);
    const items = this.db.collection<StoredDoc>(spec.name);
    const counts = this.db.collection<{ _id: string; n: number }>(COUNTS);
    const sequences = this.db.collection<{ _id: string; n: number }>(SEQUENCES);
    await guard(async () => {
      try {
        await this.db.createCollection(spec.name);
      } catch (e) {
        if (!(e instanceof MongoServerError && e.code === NAMESPACE_EXISTS)) throw e;
      }
      // Only the missing ones. Creating an existing index (same key, same name) is a no-op for MongoDB, but
      // FerretDB 1.24 workaround: its createIndexes panics (and drops the connection) when a batch of several
      // indexes already exists, so the existing ones are never sent again.
      const existing = new Set((await items.listIndexes().toArray()).map((index) => String(index.name)));
      // Indexes of an earlier layout that this one no longer has (`_id_` is MongoDB's own).
      const wanted = new Set([...indexes, ...uniqueIndexes(spec)].map((index) => index.name));
      for (const name of existing) {
        if (name === '_id_' || wanted.has(name)) continue;
        await items.dropIndex(name);
        // A list no longer unique: its field goes too, so that declaring it again fills it afresh.
        const fields = uniqueIndexFields(name);
        if (fields) await items.updateMany({}, { $unset: { [uniqueField(fields)]: '' } });
      }
      const missing = indexes.filter((index) => !existing.has(index.name));
      if (missing.length > 0) await items.createIndexes(missing.map(({ key, name }) => ({ key, name })));
      await openUniqueIndexes(spec, items, existing);
      if (spec.identifier?.type !== 'string') {
        // The sequence goes on after the largest stored key, even if it was lost or the data imported.
        // Created here, before any insert: concurrent first inserts then never race to create it.
        const top = await items.findOne({}, { sort: { [KEY]: -1 }, projection: { [KEY]: 1 } });
        const n = typeof top?._id === 'number' ? top._id : 0;
        try {
          await sequences.updateOne({ _id: spec.name }, { $max: { n } }, { upsert: true });
        } catch (e) {
          if (!isDuplicateKey(e)) throw e; // another instance created it meanwhile
          await sequences.updateOne({ _id: spec.name }, { $max: { n } });
        }
      }
      if (this.mode === 'scan') {
        // Writes here do not keep it: drop it, so a later start on a replica set counts afresh.
        await counts.deleteOne({ _id: spec.name });
      } else if ((await counts.findOne({ _id: spec.name })) === null) {
        try {
          await this.atomically(async (session) => {
            const n = await items.countDocuments({}, { session });
            await counts.insertOne({ _id: spec.name, n }, { session });
          });
        } catch (e) {
          if (!isDuplicateKey(e)) throw e; // another instance seeded it first
        }
      }
    });
    await guard(() => this.layouts().replaceOne({ _id: spec.name }, { layout: layoutText(spec) }, { upsert: true }));
    const deadline = this.client.options.serverSelectionTimeoutMS;
    return new MongoCollection(
      spec,
      items,
      counts,
      sequences,
      this.mode === 'document',
      this.atomically,
      this.together,
      deadline,
      this.ferretdb ? { sequence: serially(), condition: serially() } : undefined,
    );
  }

  async inspect(spec: CollectionSpec): Promise<StoredCollection | undefined> {
    return guard(async () => {
      if ((await this.db.listCollections({ name: spec.name }, { nameOnly: true }).toArray()).length === 0)
        return undefined;
      const items = this.db.collection<StoredDoc>(spec.name);
      const layout = (await this.layouts().findOne({ _id: spec.name }))?.layout;
      const count = await items.countDocuments({});
      async function* all(): AsyncGenerator<Item> {
        const cursor = items.find({}, { batchSize: STREAM_BATCH });
        try {
          for (;;) {
            const doc = await guard(() => cursor.next());
            if (doc === null) return;
            yield docItem(spec, doc);
          }
        } finally {
          await cursor.close().catch(() => undefined);
        }
      }
      return { layout, count, items: all };
    });
  }

  async fill(spec: CollectionSpec, field: string, value: unknown): Promise<number> {
    checkName(field, 'field');
    if (!storable(value))
      throw new TypeError(`${spec.name}.${field}: its default cannot be filled into MongoDB documents`);
    // `{ field: null }` matches documents where it is null or absent.
    const result = await guard(() =>
      this.db
        .collection<StoredDoc>(spec.name)
        .updateMany({ [storedName(field)]: null }, { $set: { [storedName(field)]: value } }),
    );
    return result.modifiedCount;
  }

  private layouts(): DriverCollection<{ _id: string; layout: string }> {
    return this.db.collection<{ _id: string; layout: string }>(LAYOUTS);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** A lock: each call runs after the previous one settled. */
type Serial = <T>(run: () => Promise<T>) => Promise<T>;

function serially(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const result = tail.then(run, run);
    tail = result.catch(() => undefined);
    return result;
  };
}

/** A JSON value MongoDB can hold as it is: no object key starting with `$`, holding `.` or NUL, or empty. */
/**
 * MongoDB refuses documents nested more than 100 levels deep: a value that would come near is kept as text,
 * as is one with keys that cannot be field names.
 */
const MAX_STORED_DEPTH = 90;

function storable(value: unknown, depth = 1): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_STORED_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => storable(v, depth + 1));
  return Object.entries(value).every(([k, v]) => safeKey(k) && storable(v, depth + 1));
}

const safeKey = (key: string): boolean => key !== '' && !key.startsWith('$') && !/[.\0]/.test(key);

class MongoCollection implements Collection {
  constructor(
    private readonly spec: CollectionSpec,
    private readonly items: DriverCollection<StoredDoc>,
    private readonly counts: DriverCollection<{ _id: string; n: number }>,
    private readonly sequences: DriverCollection<{ _id: string; n: number }>,
    /** Whether the counts document is kept (see CountMode). */
    private readonly counted: boolean,
    private readonly atomically: Atomically,
    private readonly together: Together,
    /** Milliseconds an operation may take before it answers "unavailable" (the server selection timeout). */
    private readonly deadline: number,
    /**
     * FerretDB workaround. FerretDB 1.x applies an update as read, modify, write without isolation: concurrent
     * `$inc`s on one document lose increments (50 concurrent findOneAndUpdate $inc returned 14 distinct values in
     * our test), so two inserts could be handed the same key. On FerretDB the sequence updates of a collection run
     * one at a time in this process; across processes the unique `_id` still refuses a duplicate and `insert`
     * retries with a raised sequence. MongoDB's updates are atomic: no lock there.
     *
     * For the same reason a replace or delete filtered on the stored item (`expected`: a conditional write) is no
     * compare-and-set there: on FerretDB the conditional writes of a collection run one at a time in this process
     * (across processes they may still race; docs/behaviour.md, "Conditional writes").
     */
    private readonly locks?: { sequence: Serial; condition: Serial },
  ) {}

  /** A conditional write (one filtered on `expected`), one at a time on FerretDB (see `locks`). */
  private conditionally<T>(expected: Item | undefined, run: () => Promise<T>): Promise<T> {
    return expected && this.locks ? this.locks.condition(run) : run();
  }

  private guard<T>(run: () => Promise<T>): Promise<T> {
    return guard(run, this.deadline);
  }

  async find(q: Query): Promise<Item[]> {
    const c = compileFind(this.spec, q);
    if (c.limit === 0) return [];
    const docs = await this.guard(() =>
      this.items.find(c.filter, { sort: c.sort, skip: c.skip, limit: c.limit }).toArray(),
    );
    return docs.map((doc) => this.toItem(doc));
  }

  async *stream(q: Query): AsyncGenerator<Item, void, undefined> {
    // A generator's body starts at the first next(): that is where an invalid query rejects.
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

  async findPage(q: Query): Promise<PageRows> {
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

  async exists(q: Query): Promise<boolean> {
    const c = compileExists(this.spec, q);
    const doc = await this.guard(() => this.items.findOne(c.filter, { skip: c.skip, projection: { [KEY]: 1 } }));
    return doc !== null;
  }

  async count(where?: Condition[]): Promise<number> {
    return this.guard(() => this.total(where, undefined));
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
    if (!this.isKey(id)) return null;
    const doc = await this.guard(() => this.items.findOne({ _id: id }));
    return doc ? this.toItem(doc) : null;
  }

  async getMany(ids: readonly Id[]): Promise<Item[]> {
    const keys = ids.filter((id) => this.isKey(id));
    if (keys.length === 0) return [];
    const docs = await this.guard(() => this.items.find({ _id: { $in: keys } }).toArray());
    return docs.map((doc) => this.toItem(doc));
  }

  async insert(item: Item): Promise<Item> {
    const given = this.spec.identifier ? item[this.spec.identifier.field] : undefined;
    if (given !== undefined && given !== null) {
      const key = this.checkKey(given);
      const doc = this.toDoc(key, item);
      await this.insertCounted(doc);
      if (typeof key === 'number') await this.raiseSequence(key);
      return this.toItem(doc);
    }
    if (this.spec.identifier?.type === 'string') {
      const doc = this.toDoc(uuidv7(), item);
      await this.insertCounted(doc);
      return this.toItem(doc);
    }
    for (let attempt = 1; ; attempt++) {
      const doc = this.toDoc(await this.nextKey(), item);
      try {
        await this.insertCounted(doc);
        return this.toItem(doc);
      } catch (e) {
        if (!(e instanceof StoreConflictError) || e instanceof UniqueConflictError || attempt >= ASSIGN_ATTEMPTS)
          throw e;
        // A stored key at or above the sequence (written by another program, or the sequence lost): skip past it.
        await this.raiseSequence(await this.largestKey());
      }
    }
  }

  async insertMany(items: Item[]): Promise<Item[]> {
    for (let attempt = 1; ; attempt++) {
      const { keys, assigned } = await this.batchKeys(items);
      const docs = items.map((item, i) => this.toDoc(keys[i], item));
      try {
        await this.insertManyCounted(docs);
      } catch (e) {
        const failed =
          e instanceof StoreConflictError && !(e instanceof UniqueConflictError) ? failedIndex(e.cause) : undefined;
        if (failed === undefined || !assigned[failed] || attempt >= ASSIGN_ATTEMPTS) throw e;
        // An assigned key was taken (as in `insert`): skip the sequence past the stored keys, assign again.
        await this.raiseSequence(await this.largestKey());
        continue;
      }
      return docs.map((doc) => this.toItem(doc));
    }
  }

  /**
   * The key of each item, as `insert` in turn would choose it: integer keys are taken from the sequence in
   * blocks, one per run of items without a key, and a given key raises the sequence before the items after it.
   */
  private async batchKeys(items: Item[]): Promise<{ keys: Id[]; assigned: boolean[] }> {
    const field = this.spec.identifier?.field;
    const given = items.map((item) => (field === undefined ? undefined : item[field]));
    const assigned = given.map((v) => v === undefined || v === null);
    const keys: Id[] = new Array(items.length);
    const integers = this.spec.identifier?.type !== 'string';
    let run: number[] = []; // indexes of items waiting for an integer key
    const flush = async (): Promise<void> => {
      if (run.length === 0) return;
      const last = await this.nextKey(run.length);
      run.forEach((index, i) => (keys[index] = last - run.length + 1 + i));
      run = [];
    };
    for (const [i, value] of given.entries()) {
      if (!assigned[i]) {
        keys[i] = this.checkKey(value);
        if (typeof keys[i] === 'number' && run.length > 0) await flush();
        if (typeof keys[i] === 'number') await this.raiseSequence(keys[i] as number);
      } else if (integers) run.push(i);
      else keys[i] = uuidv7();
    }
    await flush();
    return { keys, assigned };
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
    if (!this.isKey(id)) return null;
    const doc = this.toDoc(id, item);
    const result = await this.conditionally(expected, () =>
      this.guard(async () => {
        try {
          return await this.items.replaceOne(this.selecting(id, expected), doc);
        } catch (e) {
          throw isDuplicateKey(e) ? await this.conflict(e, doc) : e;
        }
      }),
    );
    return result.matchedCount > 0 ? this.toItem(doc) : null;
  }

  async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const key = this.checkKey(id);
    const doc = this.toDoc(key, item);
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
    if (created && typeof key === 'number') await this.raiseSequence(key);
    return { item: this.toItem(doc), created };
  }

  async delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    if (!this.isKey(id)) return false;
    const selected = this.selecting(id, expected);
    const filter = where?.length ? { $and: [selected, compileWhere(this.spec, where)] } : selected;
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

  /** The last of `count` new integer keys (the sequence moves by `count`). */
  private async nextKey(count = 1): Promise<number> {
    const increment = (): Promise<{ n: number } | null> =>
      this.sequences.findOneAndUpdate(
        { _id: this.spec.name },
        { $inc: { n: count } },
        { upsert: true, returnDocument: 'after' },
      );
    // The document exists from collection(); if it was deleted meanwhile, two upserts may race to create it.
    const row = await this.sequenceUpdate(() =>
      increment().catch((e: unknown) => (isDuplicateKey(e) ? increment() : Promise.reject(e))),
    );
    if (!row || typeof row.n !== 'number')
      throw new Error(`the ${SEQUENCES} document of ${this.spec.name} is malformed`);
    if (row.n > Number.MAX_SAFE_INTEGER)
      throw new StoreConflictError(
        `${this.spec.name} has no identifier left: the sequence reached ${Number.MAX_SAFE_INTEGER}`,
      );
    return row.n;
  }

  /** Keeps every later assigned key above `key`. */
  private async raiseSequence(key: number): Promise<void> {
    await this.sequenceUpdate(() =>
      this.sequences.updateOne({ _id: this.spec.name }, { $max: { n: key } }, { upsert: true }),
    );
  }

  private sequenceUpdate<T>(run: () => Promise<T>): Promise<T> {
    return this.guard(() => (this.locks ? this.locks.sequence(run) : run()));
  }

  private async largestKey(): Promise<number> {
    const top = await this.guard(() => this.items.findOne({}, { sort: { [KEY]: -1 }, projection: { [KEY]: 1 } }));
    return typeof top?._id === 'number' ? top._id : 0;
  }

  /** The key type is the identifier's; collections without one use their internal integer key. */
  private isKey(id: unknown): id is Id {
    return this.spec.identifier?.type === 'string' ? typeof id === 'string' : Number.isSafeInteger(id);
  }

  private checkKey(id: unknown): Id {
    if (!this.isKey(id)) throw new TypeError(`invalid ${this.spec.name} identifier ${JSON.stringify(id)}`);
    return id;
  }

  /**
   * The filter of the stored document `id`; with `expected`, of that document only while it still holds exactly
   * `expected`'s fields (each stored value equal, each field `expected` lacks absent): a single-document
   * write with it is a compare-and-set.
   */
  private selecting(id: Id, expected?: Item): Filter<StoredDoc> {
    if (!expected) return { _id: id };
    const doc = this.toDoc(id, expected);
    const filter: Document = {};
    for (const [name, value] of Object.entries(doc)) filter[name] = { $eq: value };
    for (const name of [...Object.keys(this.spec.fields).map(storedName), '_j', '_x'])
      if (!(name in doc)) filter[name] = { $exists: false };
    return filter as Filter<StoredDoc>;
  }

  private toDoc(key: Id, item: Item): StoredDoc {
    // A plain JSON copy, as the embedded store keeps it: undefined members dropped, dates as strings.
    const json = JSON.parse(JSON.stringify(item)) as Item;
    const doc: StoredDoc = { _id: key };
    const wrapped: string[] = [];
    let odd: Item | undefined;
    for (const [name, value] of Object.entries(json)) {
      if (name === this.spec.identifier?.field) continue;
      if (!safeKey(name)) {
        (odd ??= {})[name] = value;
        continue;
      }
      const stored = storedName(name);
      if (storable(value)) doc[stored] = value;
      else {
        doc[stored] = JSON.stringify(value);
        wrapped.push(stored);
      }
    }
    if (wrapped.length > 0) doc._j = wrapped;
    if (odd) doc._x = JSON.stringify(odd);
    return Object.assign(doc, uniqueFieldsOf(this.spec, key, json));
  }

  private toItem(doc: Document): Item {
    return docItem(this.spec, doc);
  }
}

/** The item a stored document holds. */
function docItem(spec: CollectionSpec, doc: Document): Item {
  const item: Item = {};
  const wrapped = Array.isArray(doc._j) ? (doc._j as string[]) : [];
  for (const [stored, value] of Object.entries(doc)) {
    if (isInternal(stored)) continue;
    item[itemName(stored)] = wrapped.includes(stored) ? JSON.parse(value as string) : value;
  }
  if (typeof doc._x === 'string') Object.assign(item, JSON.parse(doc._x) as Item);
  if (spec.identifier) item[spec.identifier.field] = doc[KEY];
  return item;
}
