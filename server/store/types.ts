// The store-neutral storage contract. The SQLite store and the MongoDB store both implement it, so
// nothing here may assume SQL.

export type FieldType = 'int' | 'number' | 'string' | 'bool' | 'datetime' | 'date' | 'json' | 'iri' | 'array';

export interface CollectionSpec {
  /** Resource name, e.g. 'Book'; `[A-Za-z_][A-Za-z0-9_]*`. */
  name: string;
  /**
   * The table a relational store keeps the items in (`stateOptions: { table }`); absent: the store names it after
   * the resource (the PostgreSQL store: in snake case, `BookReview` → `book_review`).
   */
  table?: string;
  /** Absent: items have no identifier; the store still keys them internally (insertion order). */
  identifier?: { field: string; type: 'int' | 'string' };
  /**
   * Field names (`[A-Za-z_][A-Za-z0-9_]*`) and types. 'datetime' and 'date' hold ISO 8601 strings the caller
   * normalises to one UTC form, so string order is time order. 'json' is opaque: only `exists` applies to it.
   * 'array' holds a list of scalars: `exists`, and `eq`, `in` and `match` element-wise (see Condition); it
   * cannot be ordered (`ne`, `lt`…) nor sorted.
   */
  fields: Record<string, FieldType>;
  /** Field lists to index, e.g. [['price'], ['createdAt', 'id']]. */
  indexes: string[][];
  /**
   * Field lists whose values no two items may share, e.g. [['sku'], ['shop', 'name']]: a unique index of the
   * store, so that concurrent writes cannot both win (a write that would repeat one rejects with
   * UniqueConflictError). An item with a null or absent value in the list is not checked (as SQL's NULLs).
   */
  unique?: string[][];
  /**
   * A text rendered from each item, which a store may keep beside the item (made again on every write)
   * so that reads can return it without decoding the item: see `Collection.findRendered`. `version`
   * names the recipe; when it changes, the store renders every stored item again before serving.
   */
  rendering?: Rendering;
  /**
   * What the API declares about each field's values (required, bounds, pattern, enum). Stores do not enforce
   * them (the pipeline validates writes); they are recorded with the layout so that a later start can tell
   * whether the stored items still satisfy the file (see layout.ts).
   */
  rules?: Record<string, FieldRules>;
  /**
   * The 'iri' fields that name items of another stored collection, each the way its values do: `keyPrefix`
   * followed by the target's key (`/shops/` and 7 in `/shops/7`, the key URI-encoded). A store may keep such a field as
   * the key with a foreign key of its own (PostgreSQL); items still hold the IRIs, in and out. `onDelete` is the
   * relation's action when its target is deleted (the pipeline applies it first; the store's foreign key follows it).
   * Absent: no field is known to name stored items (SQLite and MongoDB ignore it).
   */
  relations?: Record<string, Relation>;
}

/** A relation field of a collection: see `CollectionSpec.relations`. */
export interface Relation {
  target: CollectionSpec;
  keyPrefix: string;
  /** A list of IRIs ('array' field) rather than one. */
  many: boolean;
  onDelete: 'restrict' | 'cascade' | 'setNull';
}

export interface FieldRules {
  required?: boolean;
  /** Filled into items that lack the field by `apidsl migrate` when the field becomes required. */
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
}

export interface Rendering {
  version: string;
  render(item: Item): string;
}

/** A plain JSON object; the identifier, when the collection has one, is one of its fields. */
export type Item = Record<string, unknown>;

export type Id = number | string;

/**
 * Comparisons never match an item whose field is null or absent (SQL semantics, also for 'ne'); use 'exists'
 * for those. Values are never null. On an 'array' field, `eq`, `in` and `match` hold when some element of the
 * list satisfies them (an empty list never does); `exists` holds for a non-empty list only (an empty list
 * counts as absent, as an empty collection does for API Platform's exists filter). `eq` and `in` on an 'array'
 * field are index-backed when `indexes` lists the field alone (SQLite: a side table of its elements; MongoDB: a
 * multikey index).
 */
export type Condition =
  | { op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'; field: string; value: unknown }
  | { op: 'in'; field: string; values: unknown[] }
  /** `value` is literal text, never a pattern. word_start: at the start of the value or after a space. */
  | {
      op: 'match';
      field: string;
      mode: 'exact' | 'partial' | 'start' | 'end' | 'word_start';
      value: string;
      caseInsensitive: boolean;
    }
  /** null and absent both count as not existing. */
  | { op: 'exists'; field: string; exists: boolean }
  /**
   * Full-text match (the words of `value` against the analysed text): only the search index answers it
   * (server/search/), the stores refuse it (the checker keeps `match` filters off operations that read them).
   */
  | { op: 'text'; field: string; value: string }
  | { op: 'and' | 'or'; conditions: Condition[] }
  /**
   * The item's `field` names an item of `target` that matches `where`: the field holds `keyPrefix` followed by
   * that item's key (a relation's IRI, `/shops/7`). A store with sub-queries reads it as one (SQLite: `field IN
   * (SELECT keyPrefix || key FROM target WHERE …)`); one without reads the matching keys first and asks `in`
   * (references.ts, `resolveReferences`). `where` may hold further `refers` conditions (a path through two
   * relations). An `and` with no conditions matches every item, an `or` with none matches none.
   */
  | { op: 'refers'; field: string; target: CollectionSpec; keyPrefix: string; where: Condition[] };

/** Nulls and absent values sort as the smallest values (first in asc, last in desc). */
export type Sort = { field: string; direction: 'asc' | 'desc' }[];

export interface Query {
  /** ANDed. */
  where?: Condition[];
  sort?: Sort;
  limit?: number;
  offset?: number;
  /**
   * Keyset: only items strictly after this tuple in the sort order; `values` holds one value per sort field
   * (null allowed). The caller makes the sort total (ending with the identifier); otherwise items that tie
   * with the cursor on every sort field are skipped. With `inclusive`, the items equal to the tuple too (at or
   * after it: the probe for "is there a row before this page" made from the page's own cursor).
   */
  after?: { values: unknown[]; inclusive?: boolean };
  /**
   * Read each matching item as it is once a write in flight on it has committed: the PostgreSQL store locks the
   * rows it reads (`FOR KEY SHARE`), so that a delete not yet committed is waited for rather than read through.
   * The SQLite store never has two writers at once and MongoDB has no such lock: they read as usual. For the look
   * a write takes at its related items once it is stored (docs/behaviour.md, "Writes racing a delete").
   */
  settled?: boolean;
}

export interface Collection {
  /** The matching items, in order, as one array: for pages. Whole collections go through `stream`. */
  find(q: Query): Promise<Item[]>;
  /**
   * The same items as `find(q)`, in the same order, yielded one by one without holding the result in memory.
   * Leaving the loop early (break, return, throw) releases the cursor.
   *
   * A stream is not a snapshot. Writes made while it is open (by the loop body too) may or may not show:
   * each item is yielded at most once, as long as its sort values do not change meanwhile. The SQLite store
   * reads in batches of rows, letting the event loop run between batches, and reopens its cursor after the last
   * row read whenever a write interrupted it (better-sqlite3 allows no write while a cursor is open on the
   * connection). The MongoDB store implements it with a driver cursor (`find(…).sort(…).batchSize(…)`, iterated
   * with `for await`, closed when the loop ends).
   *
   * Errors, an invalid query's included, surface from the first `next()`, i.e. in the `for await`.
   */
  stream(q: Query): AsyncIterable<Item>;
  /**
   * What `find(q)` would return, each item as the text `spec.rendering` made of it, or undefined when the
   * store cannot answer that way (no rendering, or some item without its text). Optional: the SQLite store
   * keeps the texts; the MongoDB store does not.
   */
  findRendered?(q: Query): Promise<string[] | undefined>;
  /**
   * One page and its total read together: what `find(q)` returns (or, with `rendered`, what `findRendered(q)`
   * returns where the store can answer that way) and `count(q.where)` (`limit`, `offset` and `after` do not
   * apply to the total). The SQLite store reads both in one read transaction (an in-memory database, which has
   * no other connection, in one synchronous call), so they show the data of one moment whoever writes (this
   * process, another worker, another program). The MongoDB store reads them in one
   * snapshot session where the deployment has snapshot reads, else each on its own (docs/behaviour.md, "MongoDB").
   */
  findPage(q: Query, options?: { rendered?: boolean }): Promise<PageRows>;
  /**
   * `find(q)` and, when it finds items, `exists(probe)` (else false), read together: a cursor page and whether a
   * row lies before it (its `previous` link), in one statement where the store can (PostgreSQL). Optional: without
   * it the caller asks both.
   */
  findAndProbe?(q: Query, probe: Query): Promise<{ items: Item[]; probed: boolean }>;
  /**
   * Whether `find({ ...q, limit: 1 })` would return an item: `q.limit` is ignored, `offset` and `after` apply.
   * The probe for "is there a next page" in keyset pagination, without reading or decoding the item.
   */
  exists(q: Query): Promise<boolean>;
  /**
   * The number of matching items. Without conditions (`where` absent or empty) it never scans: the SQLite store
   * reads a per-collection row count that triggers keep in the same transaction as every insert and delete, so
   * it is exact and O(1). With conditions it counts the matching items (COUNT(*) in SQLite).
   */
  count(where?: Condition[]): Promise<number>;
  get(id: Id): Promise<Item | null>;
  /**
   * The stored items with these identifiers, in no particular order: one read however many (a page's related
   * items, the relations a body names). Identifiers that name no item, or cannot be identifiers, give nothing.
   */
  getMany(ids: readonly Id[]): Promise<Item[]>;
  /**
   * Assigns a missing identifier: int → the next integer of the collection's sequence (1, 2, 3…), string → a
   * time-ordered UUID v7. The sequence never goes back: a key deleted or cleared is not handed out again, and an
   * explicitly given integer key (here, in insertMany and in a creating upsert) raises it past that key; at
   * opening it is raised past the largest stored key. Collections without an identifier key their items the same
   * way. Rejects with StoreConflictError when the identifier is taken, or when the sequence passed 2^53 - 1.
   */
  insert(item: Item): Promise<Item>;
  /**
   * Inserts the items in order, each as `insert` would (identifiers assigned the same way), and returns them as
   * stored. All or none: the SQLite store writes them in one transaction (a StoreConflictError on any item rolls
   * back every one). The MongoDB store runs one ordered `insertMany`, inside a transaction where the deployment
   * has them; without one (standalone server, FerretDB) a failure on item k leaves items 0…k-1 written until it
   * deletes them again (a compensating delete: readers may see them meanwhile, and they stay if the server is lost
   * in between). See docs/data.md "Bulk writes".
   */
  insertMany(items: Item[]): Promise<Item[]>;
  /**
   * Replaces the whole item; null when there is none with this identifier. With `expected`, only while the stored
   * item is still equal to it (every field, absent ones included), checked and written atomically (SQLite: in
   * one IMMEDIATE transaction; MongoDB: a filter holding every field): else null, nothing written. The
   * compare-and-set of a conditional request (`If-Match`, docs/behaviour.md "Conditional writes").
   */
  replace(id: Id, item: Item, expected?: Item): Promise<Item | null>;
  /** Atomic create-or-replace. */
  upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }>;
  /**
   * Deletes the item; with `expected`, only while the stored item is still equal to it (as `replace`); with
   * `where`, only while it still matches those conditions, in the same statement (a cascade deletes an item only
   * while it still names the deleted one). False when nothing was deleted.
   */
  delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean>;
  /**
   * Deletes every item (count back to 0). The sequence is kept: integer keys go on after the last one handed
   * out, never from 1 again. Returns how many were deleted.
   */
  clear(): Promise<number>;
}

/** What `Collection.findPage` read: the items or their rendered texts, and the number of matching items. */
export type PageRows = ({ items: Item[]; texts?: undefined } | { texts: string[]; items?: undefined }) & {
  total: number;
};

/** A default `apidsl migrate` fills (`Store.fill`) before it opens the collections. */
export interface PlannedFill {
  spec: CollectionSpec;
  field: string;
}

export interface Store {
  /**
   * Creates the collection and its indexes when missing (idempotent), with what keeps its unfiltered count
   * (in SQLite: a row in the `_apidsl_counts` table and triggers on the resource table; the count is taken from
   * the data when the row or the triggers are missing, so data files from before the counts table upgrade).
   * The SQLite store reserves resource names starting with `_apidsl_` (any case).
   */
  collection(spec: CollectionSpec): Promise<Collection>;
  /** The durable message queue kept in the store's own database (the embedded store and PostgreSQL). */
  messageQueue?(): MessageQueue;
  /**
   * What the store holds for `spec.name` before `collection(spec)` touches it: the layout recorded when the
   * collection was last opened (undefined for data from before layouts were recorded), the number of items
   * and a way to read them all (as items of `spec`, so an identifier of the wrong type shows as it is stored).
   * Undefined when the store has no such collection.
   */
  inspect(spec: CollectionSpec): Promise<StoredCollection | undefined>;
  /**
   * The schema statements that would bring the stored tables to `specs` (what opening their collections runs),
   * once `fills` ran (`apidsl migrate` fills defaults first), for `apidsl migrate` to show. Only stores with a
   * schema of their own have it (PostgreSQL).
   */
  schemaPlan?(specs: CollectionSpec[], fills?: PlannedFill[]): Promise<string[]>;
  /** Sets `field` to `value` in every stored item where it is absent or null; returns how many changed. */
  fill(spec: CollectionSpec, field: string, value: unknown): Promise<number>;
  /**
   * The statements `fill` would run, for `apidsl migrate` to show (PostgreSQL), after the fills `earlier` (which
   * may have made a table it needs).
   */
  fillPlan?(spec: CollectionSpec, field: string, value: unknown, earlier?: PlannedFill[]): Promise<string[]>;
  /**
   * Runs `run`'s writes as one transaction: all of them or none, when the store has transactions (SQLite).
   * Absent: each write applies on its own (MongoDB). `run` must be the only user of the store meanwhile.
   */
  transaction?<T>(run: () => Promise<T>): Promise<T>;
  /**
   * Transactions may run side by side, each on a connection of its own (PostgreSQL). Absent: the pipeline queues
   * them, one at a time (SQLite has one connection).
   */
  readonly concurrentTransactions?: boolean;
  /** Flushes and closes; the store is unusable afterwards. */
  close(): Promise<void>;
}

export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

/** A write would give an item the values of `fields` that another item already holds (CollectionSpec.unique). */
export class UniqueConflictError extends StoreConflictError {
  /** In `insertMany`: the position of the item that was refused, when the store knows it. */
  readonly index?: number;
  constructor(
    readonly fields: readonly string[],
    options?: ErrorOptions & { index?: number },
  ) {
    super(`another item already has these values of ${fields.join(', ')}`, options);
    if (options?.index !== undefined) this.index = options.index;
  }
}

/**
 * A write names, in a relation field, an item that is not stored: the store's own check (PostgreSQL's foreign key,
 * `CollectionSpec.relations`), which the pipeline's look at the targets runs before; it meets one only when the
 * target was deleted meanwhile. `value` is what the item holds there (the IRI).
 */
export class MissingReferenceError extends StoreConflictError {
  constructor(
    readonly field: string,
    readonly value: unknown,
    options?: ErrorOptions,
  ) {
    super(`${field} names an item that is not stored`, options);
  }
}

/** A delete of an item that a relation still names, refused by the store's own check (a foreign key). */
export class StillReferencedError extends StoreConflictError {}

export interface StoredCollection {
  /** The recorded layout (layout.ts `layoutText`), undefined when none was recorded. */
  layout?: string;
  count: number;
  items(): AsyncIterable<Item>;
}

/** The stored items cannot be kept under the collection's new layout (its identifier type changed). */
export class LayoutConflictError extends Error {
  override readonly name = 'LayoutConflictError';
}

/** A full-text condition reached a store: only the search index answers those. */
export class FullTextConditionError extends Error {
  override readonly name = 'FullTextConditionError';
  constructor(field: string) {
    super(`a full-text condition on ${field} is answered by the search index only, not by the store`);
  }
}

/** The backing service cannot be reached (MongoDB). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** A message of the durable queue (`Store.messageQueue`), as a consumer takes it. */
export interface QueuedMessage {
  id: number;
  body: string;
  /** Failed deliveries before this one (retries). */
  attempts: number;
  /** Taken before by a consumer that never answered (it died mid-handler). */
  redelivered: boolean;
}

export interface MessageQueue {
  /** Stored (on disk with the file store, committed on PostgreSQL) when it resolves. */
  push(queue: string, body: string, delayMs?: number): Promise<void>;
  /** Takes the next available message, or undefined; no two consumers take the same one. */
  take(queue: string, redeliverAfterMs: number): Promise<QueuedMessage | undefined>;
  /** Refreshes the stamp of a message being handled. */
  keepAlive(id: number): Promise<void>;
  /** Handled: removed. */
  ack(id: number): Promise<void>;
  /** Put back, available after `delayMs`, its delivery counted. */
  retry(id: number, delayMs: number): Promise<void>;
  /** Moved to another queue (the failure queue) with a new body, delivery counted. */
  move(id: number, queue: string, body: string): Promise<void>;
  /** Moved back from the failure queue `from` to `queue`, available now, its retries reset; false if it was gone. */
  restore(id: number, from: string, queue: string, body: string): Promise<boolean>;
  /** Removed from `queue`; false if it was not there. */
  remove(id: number, queue: string): Promise<boolean>;
  /** The messages of a queue (the failure queue), oldest first. */
  list(queue: string): Promise<{ id: number; body: string }[]>;
  count(queue: string): Promise<number>;
}
