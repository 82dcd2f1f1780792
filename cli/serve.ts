/** `apidsl serve FILE.api [--port N] [--host H] [--data DIR | --memory | --db URI] [--debug]` */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ADMIN_INSTALL_SIZE, builtAdmin } from '../server/http/admin-page.js';
import { primaryLink } from '../server/cluster/primary-link.js';
import type { ApiMetadata } from '../server/metadata/types.js';
import { shortSecretWarning } from '../grammar/catalogue/security-settings.js';
import { CheckFailed } from '../server/load-api.js';
import { Refusal } from '../server/refusal.js';
import type { Storage } from '../server/storage.js';
import { startService, type RunningService } from '../server/serve.js';
import { printCheckFailure } from './report.js';
import { routeTable } from './routes.js';
import { serveLogger } from './request-log.js';
import { storageDescription, storageFor } from './store-flags.js';
import { boundTheStop, stopRequested, stopping } from './signals.js';
import { refuse, startFailure } from './start-failure.js';
import { announceListening, refusal, runPrimary, workerCount, workerNumber } from './workers.js';

export interface ServeCliOptions {
  port?: string;
  host: string;
  data?: string;
  memory?: boolean;
  db?: string;
  debug?: boolean;
  watch?: boolean;
  consume?: boolean;
  workers?: string;
}

export async function runServe(file: string, opts: ServeCliOptions): Promise<number> {
  if (workerNumber() === undefined) return serve(file, opts);
  try {
    return await serve(file, opts);
  } finally {
    // Whatever ends it, a worker's channel to the primary would keep it alive.
    if (process.connected) process.disconnect();
  }
}

async function serve(file: string, opts: ServeCliOptions): Promise<number> {
  const storage = storageFor('serve', file, opts);
  if (!storage) return 1;
  const port = Number(opts.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return refuse('serve', `invalid port "${opts.port ?? process.env.PORT}".`);
  const workers = workerCount(opts.workers);
  if (typeof workers === 'string') return refuse('serve', workers);
  const worker = workerNumber();
  if (workers > 1 && worker === undefined) {
    const refused = refusal(storage, opts.watch);
    return refused ? refuse('serve', refused) : runPrimary(workers);
  }
  // Stopped before anything was opened: there is nothing to undo.
  if (stopping()) return 0;
  // A stop during the start lets the start finish (the store's layout applied whole), then drains at once.
  const stop = stopRequested();
  void stop.then(() => boundTheStop('serve', 'the requests in flight are'));
  // A worker hears its primary from now on: invalidations sent while it starts reach it.
  const link = worker === undefined ? undefined : primaryLink(serveLogger());
  // In a cluster, worker 1 speaks for all: the banner, and the only consumer of queued messages.
  const speaks = worker === undefined || worker === 1;
  let service;
  try {
    service = await startService({
      file,
      port,
      host: opts.host,
      storage,
      logger: serveLogger(),
      debug: opts.debug,
      consume: opts.consume && speaks,
      link,
    });
  } catch (e) {
    return startFailure({ command: 'serve', file, flags: opts }, listenRefusal(e, opts.host, port));
  }
  // The primary sends no "all listening" once stopping: the stop ends the wait.
  if (worker !== undefined) await Promise.race([announceListening(), stop]);
  if (speaks && !stopping()) {
    for (const warning of [
      ...keyWarnings(service.api),
      ...clusterWarnings(service.api, storage),
      ...subscriptionWarnings(service.api, workers),
    ])
      process.stderr.write(`apidsl serve: warning: ${warning}\n`);
    process.stdout.write(banner(file, service, storage, workers));
  }
  const watcher = opts.watch && !stopping() ? watchFile(file, service) : undefined;
  await stop;
  watcher?.close();
  await service.close();
  return 0;
}

/** The start banner: the API's URL first (scripts and the tests read the first URL), then the route table. */
function banner(file: string, service: RunningService, storage: Storage, workers: number): string {
  return [
    `apidsl serving ${file} at ${service.url}`,
    `  API reference: ${service.url}/docs`,
    ...adminLines(service),
    ...graphQlLines(service),
    ...mcpLines(service),
    `  Data: ${storageDescription(storage)}`,
    ...(workers > 1 ? [`  Workers: ${workers} processes`] : []),
    '',
    routeTable(service.api),
    '',
    'Ctrl-C to stop.',
    '',
  ].join('\n');
}

/** Where GraphQL answers, when it is on. */
function graphQlLines(service: RunningService): string[] {
  const graphql = service.api.settings.graphql;
  if (!graphql.enabled) return [];
  const graphiql = graphql.graphiql ? ` (GraphiQL: ${service.url}/graphql/graphiql)` : '';
  return [`  GraphQL: ${service.url}/graphql${graphiql}`];
}

/** Where the admin answers, when it is on, or how to build it. */
function adminLines(service: RunningService): string[] {
  const admin = service.api.settings.admin;
  if (!admin.enabled) return [];
  if (builtAdmin()) return [`  Admin: ${service.url}${admin.path}`];
  return [`  Admin: not built (npm run build:admin installs its build tools, ${ADMIN_INSTALL_SIZE}, and builds it)`];
}

/** Where the MCP endpoint answers, when it is on. */
function mcpLines(service: RunningService): string[] {
  const mcp = service.api.settings.mcp;
  return mcp.enabled ? [`  MCP: ${service.url}${mcp.path} (Streamable HTTP; stdio: apidsl mcp FILE)`] : [];
}

/** Why the server cannot listen, with what to do instead; any other error as it is. */
function listenRefusal(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if ((e as NodeJS.ErrnoException).syscall !== 'listen' || (code !== 'EADDRINUSE' && code !== 'EACCES')) return e;
  if (code === 'EACCES')
    return new Refusal(
      `no permission to listen on ${host}:${port} (ports below 1024 need privileges); choose another with --port.`,
    );
  return new Refusal(
    `port ${port} on ${host} is already in use (another apidsl serve, or another server). Stop it, choose another port with --port N (or PORT=N), or --port 0 to take any free port.`,
  );
}

/**
 * `--watch`: reloads the file when it changes (debounced); a file with errors is reported and
 * the running routes stay. Custom code modules are imported once per process, so a change to
 * them needs a restart.
 */
function watchFile(file: string, service: RunningService): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  const reload = async (): Promise<void> => {
    try {
      const api = await service.reload();
      process.stdout.write(`\napidsl reloaded ${file}\n\n${routeTable(api)}\n`);
    } catch (e) {
      if (e instanceof CheckFailed) {
        printCheckFailure(file, e.result);
        process.stderr.write(`apidsl serve: ${file} has errors; still serving the previous version.\n`);
      } else
        process.stderr.write(
          `apidsl serve: cannot reload ${file}: ${(e as Error).message}; still serving the previous version.\n`,
        );
    }
  };
  // The directory is watched, not the file: editors often replace a file rather than write it.
  return watch(dirname(resolve(file)), (_event, name) => {
    if (name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), 100);
  });
}

/**
 * A MongoDB store is often shared by several instances: without `cluster`, their caches would not hear each other
 * (on PostgreSQL they hear each other through the database).
 */
function clusterWarnings(api: ApiMetadata, storage: Storage): string[] {
  if (storage.kind !== 'mongodb' || api.settings.cluster.redisUrl || api.settings.httpCache.inProcessMaxBytes === 0)
    return [];
  return [
    'the in-process cache does not see writes made by other instances on this database; with more than one instance, set config { cluster { redis: "redis://…" } } (or APIDSL_REDIS_URL) so that they share invalidations (docs/deployment.md).',
  ];
}

/**
 * GraphQL subscriptions are kept by the process that registered them (docs/graphql.md, "Subscriptions"): a write
 * answered by another worker or instance publishes nothing to them.
 */
function subscriptionWarnings(api: ApiMetadata, workers: number): string[] {
  const subscribes = api.resources.some((r) => r.graphQlOperations.some((o) => o.kind === 'Subscription'));
  if (!subscribes || !api.settings.mercure || (workers <= 1 && !api.settings.cluster.redisUrl)) return [];
  return [
    'GraphQL subscriptions are kept by the process that registered them: a change written through another worker or instance is not published to them (docs/graphql.md, "Subscriptions"); serve them from one process.',
  ];
}

/**
 * What `serve` warns about at start: a JWT secret variable that is unset, and an HMAC secret shorter than its
 * hash (RFC 7518 §3.2): the one of `security.jwt`, and the Mercure keys the service signs or verifies with.
 */
function keyWarnings(api: ApiMetadata, env: NodeJS.ProcessEnv = process.env): string[] {
  const jwt = api.security.jwt;
  const mercure = api.settings.mercure;
  const mercureKeys = mercure
    ? [mercure.publisherJwtSecretEnv, ...(mercure.hub === 'builtin' ? [mercure.subscriberJwtSecretEnv] : [])]
    : [];
  const short = mercureKeys.map((name) => {
    const secret = env[name];
    return secret ? shortSecretWarning(name, secret, ['HS256']) : undefined;
  });
  return [jwt?.unusable, jwt?.weakSecret, ...short].filter((w): w is string => w !== undefined);
}
