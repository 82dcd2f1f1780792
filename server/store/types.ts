// The store-neutral storage contract. The SQLite store and the MongoDB store both implement it, so
// nothing here may assume SQL.

export type FieldType = 'int' | 'number' | 'string' | 'bool' | 'datetime' | 'date' | 'json' | 'iri' | 'array';

export interface CollectionSpec {
  /** Resource name, e.g. 'Book'; `[A-Za-z_][A-Za-z0-9_]*`. */
  name: string;
  /** Absent: items have no identifier; the store still keys them internally (insertion order). */
  identifier?: { field: string; type: 'int' | 'string' };
  /**
   * Field names (`[A-Za-z_][A-Za-z0-9_]*`) and types. 'datetime' and 'date' hold ISO 8601 strings the caller
   * normalises to one UTC form, so string order is time order. 'json' and 'array' are opaque: only `exists`
   * applies to them, they cannot be compared, matched or sorted.
   */
  fields: Record<string, FieldType>;
  /** Field lists to index, e.g. [['price'], ['createdAt', 'id']]. */
  indexes: string[][];
}

/** A plain JSON object; the identifier, when the collection has one, is one of its fields. */
export type Item = Record<string, unknown>;

export type Id = number | string;

/**
 * Comparisons never match an item whose field is null or absent (SQL semantics, also for 'ne'); use 'exists'
 * for those. Values are never null.
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
  | { op: 'and' | 'or'; conditions: Condition[] };

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
   * with the cursor on every sort field are skipped.
   */
  after?: { values: unknown[] };
}

export interface Collection {
  find(q: Query): Promise<Item[]>;
  count(where?: Condition[]): Promise<number>;
  get(id: Id): Promise<Item | null>;
  /**
   * Assigns a missing identifier: int → the next integer (1, 2, 3…), string → a time-ordered UUID v7.
   * Rejects with StoreConflictError when the identifier is taken.
   */
  insert(item: Item): Promise<Item>;
  /** Replaces the whole item; null when there is none with this identifier. */
  replace(id: Id, item: Item): Promise<Item | null>;
  /** Atomic create-or-replace. */
  upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }>;
  delete(id: Id): Promise<boolean>;
}

export interface Store {
  /** Creates the collection and its indexes when missing (idempotent). */
  collection(spec: CollectionSpec): Promise<Collection>;
  /** Flushes and closes; the store is unusable afterwards. */
  close(): Promise<void>;
}

export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

/** The backing service cannot be reached (MongoDB). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
