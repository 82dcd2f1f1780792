/**
 * Starting and stopping a service: check the file, load its metadata (custom code and
 * mutators included), open the store, listen. Used by `apidsl serve` and the tests.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { check, type CheckResult } from '../grammar/checker/index.js';
import { aloneLink, type PeerLink } from './cluster/link.js';
import { openRedis } from './cluster/redis-client.js';
import { redisLink, serviceChannel } from './cluster/redis-link.js';
import { createApp } from './http/app.js';
import { httpCaching } from './caching/invalidation.js';
import { drainable, type Drain } from './http/drain.js';
import { applyLimits, serverOptions } from './http/server-limits.js';
import { loadMetadata } from './metadata/load.js';
import { processStore, redisStore } from './pipeline/rate-limit-stores.js';
import { startRuntime } from './pipeline/runtime.js';
import type { RateLimitStore, Runtime } from './pipeline/state.js';
import { Publishers } from './realtime/index.js';
import type { ApiMetadata } from './metadata/types.js';
import { refuseUnsafeChanges } from './store/layout.js';
import { databaseName } from './store/mongodb/config.js';
import { openSqliteStore } from './store/sqlite/store.js';
import type { CollectionSpec, Store } from './store/types.js';

export type Storage = { kind: 'memory' } | { kind: 'file'; dir: string } | { kind: 'mongodb'; uri: string };

export interface ServeOptions {
  file: string;
  port: number;
  host: string;
  storage: Storage;
  logger: Logger;
  debug?: boolean;
  /** An already opened store to serve from instead of `storage` (benchmarks seed one first). */
  store?: Store;
  /** Also consume the queued messages of the API's asynchronous transports (`serve --consume`). */
  consume?: boolean;
  /**
   * A worker's link to its primary (`serve --workers N`), made before the service starts so that no
   * invalidation sent meanwhile is missed; `cluster.redis`, when set, takes its place.
   */
  link?: PeerLink;
}

export interface RunningService {
  url: string;
  api: ApiMetadata;
  /**
   * Loads the file again and serves the new routes from the same store; throws (CheckFailed, a
   * custom-code error) and keeps the current routes when the new file cannot be served.
   */
  reload(): Promise<ApiMetadata>;
  /**
   * Stops accepting connections, answers the requests in flight (each connection closed after its last response),
   * ends the event streams, stops consuming, then flushes and closes the store. Call once.
   */
  close(): Promise<void>;
}

export class CheckFailed extends Error {
  constructor(readonly result: CheckResult) {
    super('the file has errors');
  }
}

/** Where the embedded store keeps a file's data by default: `.apidsl-data/` beside it. */
export const defaultDataDir = (file: string): string => join(dirname(resolve(file)), '.apidsl-data');

export async function loadApi(file: string): Promise<ApiMetadata> {
  const text = readFileSync(file, 'utf8');
  const baseDir = dirname(resolve(file));
  const result = check(text, { baseDir });
  if (result.all.some((d) => d.severity === 'error')) throw new CheckFailed(result);
  return loadMetadata(result.model, { baseDir });
}

/** Opens the store a storage names (the embedded store's directory created when missing). */
export async function openStore(storage: Storage): Promise<Store> {
  if (storage.kind === 'memory') return openSqliteStore({ memory: true });
  if (storage.kind === 'mongodb') {
    // Loaded on demand: the embedded store never loads the driver.
    const { openMongoStore } = await import('./store/mongodb/store.js');
    return openMongoStore({ uri: storage.uri });
  }
  mkdirSync(storage.dir, { recursive: true });
  return openSqliteStore({ file: join(storage.dir, 'apidsl.sqlite') });
}

/** The storage specs of an API's resources. */
export const specsOf = (api: ApiMetadata): CollectionSpec[] => api.resources.map((r) => r.storage);

/** Where a storage's data is, as every instance serving it names it (for the service's Redis channel). */
function storeIdentity(storage: Storage): string {
  if (storage.kind === 'file') return `file:${resolve(storage.dir)}`;
  if (storage.kind === 'mongodb') return `mongodb:${databaseName(storage.uri)}`;
  return `memory:${process.pid}`;
}

/**
 * How the processes of a service tell each other of writes and updates: Redis, the primary (`given`, a
 * worker's link), or no one.
 */
export function peerLink(api: ApiMetadata, storage: Storage, logger: Logger, given?: PeerLink): PeerLink {
  const url = api.settings.cluster.redisUrl;
  if (!url) return given ?? aloneLink();
  void given?.close();
  return redisLink(url, serviceChannel(api.title, storeIdentity(storage)), logger);
}

/**
 * Where the service's rate-limit counts live (docs/behaviour.md, "Rate limits"): in Redis with `cluster.redis`
 * (a connection of their own, keys under the service's channel), else in this process (in a worker, the
 * primary's). One store for every reload, which keeps the counts of the policies a reload leaves alone. Redis is
 * given up to 2 s to answer before the service starts: until it does, each instance would count alone.
 */
async function rateLimitCounts(
  api: ApiMetadata,
  storage: Storage,
  logger: Logger,
): Promise<{ store: RateLimitStore; close(): void }> {
  const url = api.settings.cluster.redisUrl;
  if (!url) return { store: processStore(logger), close: () => undefined };
  const client = openRedis(url, logger, 'rate limits');
  await new Promise<void>((ready) => {
    const timer = setTimeout(ready, 2000);
    client.once('ready', () => {
      clearTimeout(timer);
      ready();
    });
  });
  const channel = serviceChannel(api.title, storeIdentity(storage));
  return { store: redisStore(client, logger, `${channel}:rl`), close: () => client.disconnect() };
}

export async function startService(options: ServeOptions): Promise<RunningService> {
  const api = await loadApi(options.file);
  const link = peerLink(api, options.storage, options.logger, options.link);
  const limits = await rateLimitCounts(api, options.storage, options.logger);
  const store = options.store ?? (await openStore(options.storage));
  const publishers = new Publishers(options.logger, link);
  // Every runtime made (one per loaded file): their buses close with the service.
  const runtimes: Runtime[] = [];
  let retireCache = (): void => undefined;
  /** The runtime and Koa handler of a loaded file, from the same store and publishers. */
  const serving = async (loaded: ApiMetadata): Promise<{ runtime: Runtime; handler: ReturnType<Koa['callback']> }> => {
    // Before any collection is opened (which applies the file's layout): a change the data does not fit throws.
    await refuseUnsafeChanges(store, specsOf(loaded));
    const caching = httpCaching(loaded, options.logger, link);
    retireCache();
    retireCache = caching.retire;
    const runtime = await startRuntime(loaded, store, {
      logger: options.logger,
      debug: options.debug,
      publisher: publishers.of(loaded),
      writes: caching.writes,
      rateLimits: limits.store,
    });
    runtimes.push(runtime);
    return { runtime, handler: (await createApp(runtime, caching.cache)).callback() };
  };
  let server: Server;
  let drain: Drain;
  // The server calls whichever app is current, so `reload` can swap it without a restart.
  let handler: ReturnType<Koa['callback']>;
  let runtime: Runtime;
  try {
    ({ runtime, handler } = await serving(api));
    server = await new Promise((resolveServer, reject) => {
      const s = createServer(serverOptions(api.settings.server), (req, res) => void handler(req, res));
      applyLimits(s, api.settings.server);
      drain = drainable(s);
      s.listen(options.port, options.host, () => resolveServer(s));
      s.once('error', reject);
    });
  } catch (e) {
    await publishers.close();
    await link.close();
    limits.close();
    await Promise.all(runtimes.map((r) => r.bus.close()));
    await Promise.all(runtimes.map((r) => r.search?.close() ?? Promise.resolve()));
    // A store we opened holds connections (MongoDB's pool) that would keep the process alive.
    if (!options.store) await store.close().catch(() => undefined);
    throw e;
  }
  const consumer = options.consume ? await runtime.bus.consume() : undefined;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const service: RunningService = {
    url: `http://${host}:${port}`,
    api,
    reload: async () => {
      const next = await loadApi(options.file);
      ({ handler } = await serving(next));
      applyLimits(server, next.settings.server);
      service.api = next;
      return next;
    },
    close: async () => {
      const drained = drain();
      await publishers.endSubscriptions(); // open event streams would keep the server open
      await drained;
      await consumer?.stop();
      await publishers.close(); // after the last write that may publish
      await Promise.all(runtimes.map((r) => r.bus.close()));
      await Promise.all(runtimes.map((r) => r.search?.close() ?? Promise.resolve())); // the changes still waiting for the index
      await link.close();
      limits.close();
      await store.close();
    },
  };
  return service;
}
