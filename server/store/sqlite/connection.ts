// The embedded store's one connection, as its collections share it: cached statements, the open stream cursors
// that must close before a write, reads of one snapshot, and the item a row holds.
import type Database from 'better-sqlite3';
import type { CollectionSpec, Id, Item } from '../types.js';
import { CountCache } from './count-cache.js';

const STATEMENT_CACHE_SIZE = 256;

/** A row of a collection table: the key and the rest of the item as JSON. */
export interface Row {
  key: Id;
  doc: string;
}

/** What a collection needs from its store's connection. */
export interface Connection {
  db: Database.Database;
  /** A cached statement; never iterate one (an iterated statement is locked until its iterator closes). */
  prepare(sql: string): Database.Statement;
  /** Closes every open stream cursor, so the connection accepts a write. Call before each write. */
  quiesce(): void;
  /** Open stream cursors, each with the function that closes it. */
  cursors: Set<() => void>;
  /**
   * Runs synchronous reads so that they see one snapshot: in one deferred transaction, whose snapshot (WAL mode)
   * is taken at its first read, whatever other connections commit meanwhile.
   */
  readTogether<T>(read: () => T): T;
  /** Filtered counts, kept until the database changes. */
  counts: CountCache;
  /** Forgets the cached statements (before closing). */
  forget(): void;
}

export function connectionOf(db: Database.Database): Connection {
  const cursors = new Set<() => void>();
  const together = db.transaction((read: () => unknown) => read());
  const statements = statementCache(db);
  // Inside readTogether's own transaction (not one it joined): nothing this connection wrote is uncommitted.
  let reading = false;
  const readInSnapshot = <T>(read: () => T): T => {
    if (db.inTransaction) return together.deferred(read) as T;
    reading = true;
    try {
      return together.deferred(read) as T;
    } finally {
      reading = false;
    }
  };
  return {
    db,
    prepare: statements.prepare,
    quiesce: () => {
      for (const close of cursors) close();
      cursors.clear();
    },
    cursors,
    // An in-memory database has no other connection, and the reads run in one synchronous call: nothing can
    // commit between them, and BEGIN and COMMIT would be two statements more for nothing.
    readTogether: db.memory ? <T>(read: () => T) => read() : readInSnapshot,
    counts: new CountCache(db, () => !db.inTransaction || reading),
    forget: statements.forget,
  };
}

/** Prepared statements by their SQL, each with when it was last used (the least recently used goes first). */
function statementCache(db: Database.Database): { prepare(sql: string): Database.Statement; forget(): void } {
  const statements = new Map<string, { statement: Database.Statement; used: number }>();
  let uses = 0;
  return {
    prepare(sql) {
      const cached = statements.get(sql);
      // A hit only stamps its entry: moving it to the end of the Map (delete, set) on every query costs more.
      if (cached) {
        cached.used = ++uses;
        return cached.statement;
      }
      if (statements.size >= STATEMENT_CACHE_SIZE) {
        let oldest: string | undefined;
        let oldestUse = Infinity;
        for (const [text, entry] of statements) if (entry.used < oldestUse) [oldest, oldestUse] = [text, entry.used];
        statements.delete(oldest!);
      }
      const statement = db.prepare(sql);
      statements.set(sql, { statement, used: ++uses });
      return statement;
    },
    forget: () => statements.clear(),
  };
}

/** The item a row holds: its document with the key as the identifier. */
export function rowItem(spec: CollectionSpec, row: Row): Item {
  const item = JSON.parse(row.doc) as Item;
  if (spec.identifier) item[spec.identifier.field] = row.key;
  return item;
}
