/** What a store says of the changes a migration plan lists (migration.ts), in its own commands. */
import type { Change } from '../store/layout.js';
import type { CollectionSpec } from '../store/types.js';

/** One store's commands for the changes of a collection. */
export interface MigrationDialect {
  store: string;
  /** Creates a new collection with its indexes. */
  create(spec: CollectionSpec): string[];
  /** The constraints of a new collection, run once every new collection is made (PostgreSQL's foreign keys). */
  constraints?(spec: CollectionSpec): string[];
  /** The index statements that take `before`'s indexes to `after`'s. */
  indexes(before: CollectionSpec, after: CollectionSpec): string[];
  /**
   * Counts (or lists) the stored items that do not fit a data-dependent change; `stored` is the layout they were
   * stored with (the old file's, renames applied).
   */
  check(spec: CollectionSpec, change: Change, stored: CollectionSpec): string[];
  /** Sets a field's default where items lack it (`stored`: as for `check`). */
  fill(spec: CollectionSpec, field: string, value: unknown, stored: CollectionSpec): string[];
  /**
   * The steps a store needs for the relations of a collection both files have (`before`'s fields renamed by
   * `renames` first): PostgreSQL's relation columns that keep keys and their foreign keys.
   */
  relations?(
    before: CollectionSpec,
    after: CollectionSpec,
    renames: ReadonlyMap<string, string>,
  ): { action: 'applies' | 'by-hand'; change: string; commands: string[] }[];
  /** Counts the stored items that hold a value (not null) for `field`. */
  holding(spec: CollectionSpec, field: string): string[];
  /** Moves a field's values to its new name. */
  renameField(spec: CollectionSpec, from: string, to: string): string[];
}
