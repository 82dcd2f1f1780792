// The MongoDB store: the official driver, one MongoClient (one connection pool) per store, one MongoDB collection
// per resource (collection.ts; documents.ts says how an item is kept), queries compiled by query.ts. Here: opening
// the client and judging what the deployment offers, making a collection and its indexes, inspecting and filling
// stored items. Bookkeeping collections, each keyed by the resource name: `_apidsl_sequences` (sequence.ts),
// `_apidsl_counts` (collection.ts), `_apidsl_layouts`.
//
// A page and its total (`findPage`) are read in one snapshot session (`snapshot: true`: every read at the
// cluster time of the first) where the deployment has them: a replica set or sharded cluster of MongoDB 5.0 or
// later whose writes are acknowledged by a majority (snapshot reads see majority-committed data only, so with
// w=1 a client could miss its own write). Elsewhere (standalone, FerretDB) the two reads are separate: each is
// of its own moment (docs/mongodb.md, "A page and its total").
import {
  MongoClient,
  MongoServerError,
  type Collection as DriverCollection,
  type Db,
  type Document,
  type MongoClientOptions,
  type TransactionOptions,
} from 'mongodb';
import { layoutText } from '../layout.js';
import { sequenced } from '../keys.js';
import { checkName, checkNames } from '../names.js';
import { LayoutConflictError } from '../types.js';
import type { Collection, CollectionSpec, Item, Store, StoredCollection } from '../types.js';
import { COUNTS, MongoCollection, STREAM_BATCH, type Counts } from './collection.js';
import { MongoConfigError, databaseName, redactUri } from './config.js';
import { docItem, storable, type StoredDoc } from './documents.js';
import { guard, isDuplicateKey, NAMESPACE_EXISTS, storeError } from './errors.js';
import { indexSpecs, storedName } from './query.js';
import { KeySequence, seedSequence, SEQUENCES, type Sequences } from './sequence.js';
import { atomically, readTogether, serially, type Atomically, type Together } from './sessions.js';
import { describeDuplicates, fillUniqueFields, uniqueField, uniqueIndexes, uniqueIndexFields } from './unique.js';

export { COUNTS } from './collection.js';
export { SEQUENCES } from './sequence.js';

export interface MongoStoreOptions {
  /** `mongodb://host:port/dbname?options` or `mongodb+srv://…`; the database defaults to `apidsl`. */
  uri: string;
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

/** `{ _id, layout }`: each collection's layout as last opened, as text (store/layout.ts). */
export const LAYOUTS = '_apidsl_layouts';

function hasParam(uri: string, name: string): boolean {
  const query = uri.split('?')[1] ?? '';
  return query.split('&').some((p) => p.split('=')[0]!.toLowerCase() === name.toLowerCase());
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
    // Snapshot reads (the counts seed counts what it sees); commits acknowledged by a majority unless the URI says.
    const transaction: TransactionOptions | undefined = transactions
      ? { readConcern: { level: 'snapshot' }, writeConcern: w === undefined ? { w: 'majority' } : { w } }
      : undefined;
    const major = Array.isArray(buildInfo.versionArray) ? Number(buildInfo.versionArray[0]) : 0;
    const snapshots = replicated && !ferretdb && major >= 5 && (w === undefined || w === 'majority');
    return new MongoStore(client, db, transaction, ferretdb, readTogether(client, snapshots));
  } catch (e) {
    // Not awaited: closing waits for a silent host's pending handshake (connectTimeoutMS); the error is known now.
    void client.close().catch(() => undefined);
    throw storeError(e, `cannot reach MongoDB at ${redactUri(uri)}`);
  }
}

/** Makes the indexes of `spec` that are missing, and drops those of an earlier layout it no longer has. */
async function openIndexes(spec: CollectionSpec, items: DriverCollection<StoredDoc>): Promise<void> {
  const indexes = indexSpecs(spec);
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
}

/**
 * Makes the missing unique indexes, after writing the unique fields of items stored before (unique.ts);
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

class MongoStore implements Store {
  private readonly atomically: Atomically;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    /** Options of the transactions writes run in; undefined: no transactions (and no counts document). */
    transaction: TransactionOptions | undefined,
    /** FerretDB workarounds on (see KeySequence's and MongoCollection's `lock`). */
    private readonly ferretdb: boolean,
    private readonly together: Together,
  ) {
    this.atomically = atomically(client, transaction);
  }

  async collection(spec: CollectionSpec): Promise<Collection> {
    checkNames(spec);
    const items = this.db.collection<StoredDoc>(spec.name);
    const counts: Counts = this.db.collection(COUNTS);
    const sequences: Sequences = this.db.collection(SEQUENCES);
    await guard(async () => {
      try {
        await this.db.createCollection(spec.name);
      } catch (e) {
        if (!(e instanceof MongoServerError && e.code === NAMESPACE_EXISTS)) throw e;
      }
      await openIndexes(spec, items);
      if (sequenced(spec)) await seedSequence(spec, items, sequences);
      await this.seedCount(spec, items, counts);
    });
    await guard(() => this.layouts().replaceOne({ _id: spec.name }, { layout: layoutText(spec) }, { upsert: true }));
    const deadline = this.client.options.serverSelectionTimeoutMS;
    const run = <T>(call: () => Promise<T>): Promise<T> => guard(call, deadline);
    const sequence = new KeySequence(spec, items, sequences, run, this.ferretdb ? serially() : undefined);
    const counted = this.atomically.transactional;
    const lock = this.ferretdb ? serially() : undefined;
    return new MongoCollection(spec, items, counts, sequence, counted, this.atomically, this.together, deadline, lock);
  }

  /**
   * The counts document of `spec`, seeded from the data where writes keep it (in transactions); elsewhere none:
   * writes there do not keep it, so it is dropped, and a later start on a replica set counts afresh.
   */
  private async seedCount(spec: CollectionSpec, items: DriverCollection<StoredDoc>, counts: Counts): Promise<void> {
    if (!this.atomically.transactional) {
      await counts.deleteOne({ _id: spec.name });
      return;
    }
    if ((await counts.findOne({ _id: spec.name })) !== null) return;
    try {
      await this.atomically(async (session) => {
        const n = await items.countDocuments({}, { session });
        await counts.insertOne({ _id: spec.name, n }, { session });
      });
    } catch (e) {
      if (!isDuplicateKey(e)) throw e; // another instance seeded it first
    }
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
