/**
 * The HTTP service of a `.api` file: loaded (load-api.ts), on its store and link (storage.ts), listening; its
 * reload and its stop. Used by `apidsl serve` and the tests.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { PeerLink } from './cluster/link.js';
import { openRedis } from './cluster/redis-client.js';
import { createApp } from './http/app.js';
import { httpCaching } from './caching/invalidation.js';
import { drainable, type Drain } from './http/drain.js';
import { applyLimits, serverOptions } from './http/server-limits.js';
import { loadApi } from './load-api.js';
import type { ApiMetadata } from './metadata/types.js';
import { processStore, redisStore } from './pipeline/rate-limit-stores.js';
import { startRuntime } from './pipeline/open-runtime.js';
import type { RateLimitStore, Runtime } from './pipeline/runtime.js';
import { Publishers } from './realtime/index.js';
import { channelOf, openStorage, specsOf, type Storage } from './storage.js';
import { refuseUnsafeChanges } from './store/layout.js';
import type { Store } from './store/types.js';

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
  const client = await openRedis(url, logger, 'rate limits');
  await new Promise<void>((ready) => {
    const timer = setTimeout(ready, 2000);
    client.once('ready', () => {
      clearTimeout(timer);
      ready();
    });
  });
  return { store: redisStore(client, logger, `${channelOf(api, storage)}:rl`), close: () => client.disconnect() };
}

export async function startService(options: ServeOptions): Promise<RunningService> {
  const api = await loadApi(options.file);
  const { store, link, ...opened } = await openStorage(api, options.storage, options.logger, {
    store: options.store,
    link: options.link,
  });
  const limits = await rateLimitCounts(api, options.storage, options.logger);
  const publishers = new Publishers(options.logger, link);
  // Every runtime made (one per loaded file): they close with the service.
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
  /** What the service opened, once no request or message is left: the publishers after the last write that may publish. */
  const closeAll = async (): Promise<void> => {
    await publishers.close();
    await Promise.all(runtimes.map((r) => r.close()));
    limits.close();
    await opened.close();
  };
  // The server calls whichever app is current, so `reload` can swap it without a restart.
  let handler: ReturnType<Koa['callback']>;
  let runtime: Runtime;
  let listening: Listening;
  try {
    ({ runtime, handler } = await serving(api));
    listening = await listen(options, api, (req, res) => void handler(req, res));
  } catch (e) {
    // What was opened holds connections (MongoDB's pool) that would keep the process alive.
    await closeAll().catch(() => undefined);
    throw e;
  }
  const { server, drain } = listening;
  const consumer = options.consume ? await runtime.bus.consume() : undefined;
  const service: RunningService = {
    url: urlOf(server, options),
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
      await closeAll();
    },
  };
  return service;
}

interface Listening {
  server: Server;
  drain: Drain;
}

/** The HTTP server of the service, listening on the options' port and host. */
function listen(options: ServeOptions, api: ApiMetadata, handler: RequestListener): Promise<Listening> {
  return new Promise((resolveServer, reject) => {
    const server = createServer(serverOptions(api.settings.server), handler);
    applyLimits(server, api.settings.server);
    const drain = drainable(server);
    server.listen(options.port, options.host, () => resolveServer({ server, drain }));
    server.once('error', reject);
  });
}

/** The URL the service answers at (the port `--port 0` picked included). */
function urlOf(server: Server, options: ServeOptions): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `http://${host}:${port}`;
}
