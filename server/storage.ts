/**
 * Where a service's data lives and how its processes hear each other: the store a command's flags name, opened
 * (the embedded store's directory created when missing), and the link to the other processes serving the same
 * data. Every command that opens a store opens it here; nothing here serves.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { aloneLink, type PeerLink } from './cluster/link.js';
import { redisLink, serviceChannel } from './cluster/redis-link.js';
import type { ApiMetadata } from './metadata/types.js';
import { databaseName } from './store/mongodb/config.js';
import { postgresDatabaseName } from './store/postgres/config.js';
import { openSqliteStore } from './store/sqlite/store.js';
import type { CollectionSpec, Store } from './store/types.js';

export type Storage =
  | { kind: 'memory' }
  | { kind: 'file'; dir: string }
  | { kind: 'mongodb'; uri: string }
  | { kind: 'postgres'; url: string };

/** Where the embedded store keeps a file's data by default: `.apidsl-data/` beside it. */
export const defaultDataDir = (file: string): string => join(dirname(resolve(file)), '.apidsl-data');

/** Opens the store a storage names (the embedded store's directory created when missing). */
export async function openStore(storage: Storage): Promise<Store> {
  if (storage.kind === 'memory') return openSqliteStore({ memory: true });
  if (storage.kind === 'mongodb') {
    // Loaded on demand: the embedded store never loads the driver.
    const { openMongoStore } = await import('./store/mongodb/store.js');
    return openMongoStore({ uri: storage.uri });
  }
  if (storage.kind === 'postgres') {
    const { openPostgresStore } = await import('./store/postgres/store.js');
    return openPostgresStore({ url: storage.url });
  }
  mkdirSync(storage.dir, { recursive: true });
  return openSqliteStore({ file: join(storage.dir, 'apidsl.sqlite') });
}

/** The storage specs of an API's resources. */
export const specsOf = (api: ApiMetadata): CollectionSpec[] => api.resources.map((r) => r.storage);

/** The Redis channel of a service: its title and where its data is, as every instance serving it names it. */
export function channelOf(api: ApiMetadata, storage: Storage): string {
  let identity = `memory:${process.pid}`;
  if (storage.kind === 'file') identity = `file:${resolve(storage.dir)}`;
  else if (storage.kind === 'mongodb') identity = `mongodb:${databaseName(storage.uri)}`;
  else if (storage.kind === 'postgres') identity = `postgres:${postgresDatabaseName(storage.url)}`;
  return serviceChannel(api.title, identity);
}

/**
 * Whether the processes of a service hear each other whichever machine they run on: through Redis, or through
 * the PostgreSQL database they store in (LISTEN/NOTIFY).
 */
export const sharedAcrossInstances = (api: ApiMetadata, storage: Storage): boolean =>
  api.settings.cluster.redisUrl !== undefined || storage.kind === 'postgres';

/**
 * How the processes of a service tell each other of writes and updates: Redis, the PostgreSQL database of the
 * store when there is no Redis, the primary (`given`, a worker's link), or no one.
 */
async function peerLink(api: ApiMetadata, storage: Storage, logger: Logger, given?: PeerLink): Promise<PeerLink> {
  const url = api.settings.cluster.redisUrl;
  if (url) {
    void given?.close();
    return redisLink(url, channelOf(api, storage), logger);
  }
  if (storage.kind !== 'postgres') return given ?? aloneLink();
  void given?.close();
  // Loaded on demand, as the store: only a PostgreSQL store loads the driver.
  const { postgresLink } = await import('./cluster/postgres-link.js');
  return postgresLink(storage.url, channelOf(api, storage), logger);
}

/** A process's store and its link to the other processes of the service. */
export interface OpenedStorage {
  store: Store;
  link: PeerLink;
  /** Closes the link, then the store. */
  close(): Promise<void>;
}

/**
 * Opens the store, then the link (none is made when the store cannot be opened). `given.link` is a worker's link
 * to its primary; `given.store` one opened already (a benchmark seeds it first), closed with this one from now on.
 */
export async function openStorage(
  api: ApiMetadata,
  storage: Storage,
  logger: Logger,
  given: { link?: PeerLink; store?: Store } = {},
): Promise<OpenedStorage> {
  let store: Store;
  try {
    store = given.store ?? (await openStore(storage));
  } catch (e) {
    await given.link?.close();
    throw e;
  }
  const link = await peerLink(api, storage, logger, given.link);
  return {
    store,
    link,
    close: async () => {
      await link.close();
      await store.close();
    },
  };
}
