// Filtered counts remembered until the database changes (docs/scopes.md, "Speed"). An unfiltered count is one read
// of the counts table (kept by triggers); a filtered one, a scoped page's `totalItems` for one, counts every row it
// matches, on each page a client reads. Its answer holds until a row changes: each count is kept under its
// statement and values, and all are dropped once the database's stamp moves. The stamp is this connection's
// changes (`total_changes()`), other connections' commits (`data_version`) and schema changes (`schema_version`),
// read before the count, so a count racing a commit is kept under the older stamp and never served again.
import type Database from 'better-sqlite3';
import type { CompiledSql } from './query.js';

/** The stamp's parts, a statement each (cheaper than one statement reading the pragmas as tables). */
const STAMP = ['SELECT total_changes()', 'PRAGMA data_version', 'PRAGMA schema_version'];

/** Counts kept at most; a new stamp, or a full cache, starts afresh (a page asks for the same few again). */
const LIMIT = 256;

export class CountCache {
  private stamp = '';
  private readonly counts = new Map<string, number>();
  private stampStatements?: Database.Statement[];

  constructor(
    private readonly db: Database.Database,
    /** Whether every write of this connection is committed: a count inside a write transaction is not kept. */
    private readonly settled: () => boolean,
  ) {}

  /** The count of `statement`, from the cache while nothing changed, else counted by `count` (and kept). */
  count(statement: CompiledSql, count: () => number): number {
    if (!this.settled()) return count();
    this.stampStatements ??= STAMP.map((sql) => this.db.prepare(sql).pluck());
    const [changes, data, schema] = this.stampStatements;
    const stamp = `${changes!.get()},${data!.get()},${schema!.get()}`;
    if (stamp !== this.stamp || this.counts.size >= LIMIT) {
      this.counts.clear();
      this.stamp = stamp;
    }
    // Values are strings and numbers (query.ts binds nothing else): JSON tells '1' from 1.
    const key = `${statement.sql}\n${JSON.stringify(statement.params)}`;
    let n = this.counts.get(key);
    if (n === undefined) this.counts.set(key, (n = count()));
    return n;
  }
}
