/**
 * The store engines the store contract suite (store-contract.ts) runs on, one line each: a name and how to open a
 * fresh, empty store of it. A new engine joins the suite by adding its line to STORE_ENGINES.
 */
import { openMongoStore } from '../../server/store/mongodb/store.js';
import { openPostgresStore } from '../../server/store/postgres/store.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Store } from '../../server/store/types.js';
import { freshDatabaseName, mongoOrSkip, withDatabase } from './mongodb.js';
import { dropPostgresDatabase, freshPostgresUrl, postgresOrSkip } from './postgres.js';

/** A fresh, empty store, and how to let it go (close it, drop its data: whatever the store needs). */
export interface StoreFixture {
  store: Store;
  close(): Promise<void>;
}

export interface StoreEngine {
  name: string;
  /** Opens a fresh, empty store; `ctx` skips the test where the engine's server is missing (outside CI). */
  open(ctx: Mocha.Context): Promise<StoreFixture>;
}

const closing = (store: Store): StoreFixture => ({ store, close: () => store.close() });

export const STORE_ENGINES: StoreEngine[] = [
  { name: 'SQLite', open: async () => closing(await openSqliteStore({ memory: true })) },
  {
    name: 'MongoDB',
    open: async (ctx) =>
      closing(await openMongoStore({ uri: withDatabase((await mongoOrSkip(ctx)).uri, freshDatabaseName('s')) })),
  },
  {
    name: 'PostgreSQL',
    open: async (ctx) => {
      await postgresOrSkip(ctx);
      const url = await freshPostgresUrl('s');
      const store = await openPostgresStore({ url });
      return { store, close: () => store.close().then(() => dropPostgresDatabase(url)) };
    },
  },
];
