/** `apidsl serve FILE.api [--port N] [--host H] [--data DIR | --memory | --db URI] [--debug]` */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pino } from 'pino';
import { MessengerConfigError } from '../server/messenger/index.js';
import { CodeLoadError } from '../server/metadata/code.js';
import { SecurityConfigError } from '../server/security/settings.js';
import { CheckFailed, defaultDataDir, startService, type RunningService, type Storage } from '../server/serve.js';
import { MongoConfigError, redactUri } from '../server/store/mongodb-errors.js';
import { UnsafeSchemaChange } from '../server/store/layout.js';
import { LayoutConflictError, StoreUnavailableError } from '../server/store/types.js';
import { toText } from './report.js';
import { routeTable } from './routes.js';

export interface ServeCliOptions {
  port?: string;
  host: string;
  data?: string;
  memory?: boolean;
  db?: string;
  debug?: boolean;
  watch?: boolean;
  consume?: boolean;
}

export function logger(): pino.Logger {
  // Logs go to stderr, so stdout holds only the listening URL and the route table.
  if (process.stderr.isTTY) return pino({ transport: { target: 'pino-pretty', options: { destination: 2 } } });
  return pino(pino.destination(2));
}

/** The store the flags choose (--data, --memory, --db, APIDSL_DB); undefined after printing why they are wrong. */
export function storageOf(command: string, file: string, opts: Pick<ServeCliOptions, 'data' | 'memory' | 'db'>): Storage | undefined {
  if ([opts.memory, opts.data, opts.db].filter(Boolean).length > 1) {
    process.stderr.write(`apidsl ${command}: choose one of --data, --memory and --db.\n`);
    return undefined;
  }
  // APIDSL_DB is the default store; --data and --memory on the command line still choose the embedded one.
  const db = opts.db ?? (opts.memory || opts.data ? undefined : process.env.APIDSL_DB || undefined);
  if (db !== undefined && !/^mongodb(\+srv)?:\/\//i.test(db)) {
    process.stderr.write(`apidsl ${command}: ${opts.db ? '--db' : 'APIDSL_DB'} must be a MongoDB connection string (mongodb://host:port/name).\n`);
    return undefined;
  }
  return db
    ? { kind: 'mongodb', uri: db }
    : opts.memory
      ? { kind: 'memory' }
      : { kind: 'file', dir: opts.data ?? defaultDataDir(file) };
}

export async function runServe(file: string, opts: ServeCliOptions): Promise<number> {
  const storage = storageOf('serve', file, opts);
  if (!storage) return 1;
  const port = Number(opts.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`apidsl serve: invalid port "${opts.port ?? process.env.PORT}".\n`);
    return 1;
  }
  let service;
  try {
    service = await startService({
      file,
      port,
      host: opts.host,
      storage,
      logger: logger(),
      debug: opts.debug,
      consume: opts.consume,
    });
  } catch (e) {
    if (e instanceof CheckFailed) {
      const errors = e.result.all.filter((d) => d.severity === 'error');
      process.stderr.write(`${toText({ file, text: readFileSync(file, 'utf8'), lines: e.result.lines, diagnostics: e.result.all })}\n`);
      process.stderr.write(`apidsl serve: ${file} has ${errors.length} error${errors.length === 1 ? '' : 's'}; not starting.\n`);
      return 1;
    }
    if (e instanceof UnsafeSchemaChange || e instanceof LayoutConflictError) {
      process.stderr.write(`apidsl serve: the stored data does not fit ${file}; not starting:\n${indent(e.message)}\n${wayOut(file, opts)}`);
      return 1;
    }
    if (e instanceof StoreUnavailableError || e instanceof MongoConfigError || e instanceof MessengerConfigError) {
      const line = `apidsl serve: ${(e as Error).message.split('\n')[0]}\n`;
      // Exits at once: the driver may still wait on a silent host's connection, which would hold the process.
      await new Promise<void>((written) => process.stderr.write(line, () => written()));
      process.exit(1);
    }
    if (e instanceof CodeLoadError || e instanceof SecurityConfigError || (e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`apidsl serve: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
  const unusable = service.api.security.jwt?.unusable;
  if (unusable) process.stderr.write(`apidsl serve: warning: ${unusable}\n`);
  process.stdout.write(`apidsl serving ${file} at ${service.url}\n\n${routeTable(service.api)}\n`);
  const watcher = opts.watch ? watchFile(file, service) : undefined;
  await stopSignal();
  watcher?.close();
  await service.close();
  return 0;
}

/** Resolves at the first SIGINT or SIGTERM. */
export function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
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
        process.stderr.write(`${toText({ file, text: readFileSync(file, 'utf8'), lines: e.result.lines, diagnostics: e.result.all })}\n`);
        process.stderr.write(`apidsl serve: ${file} has errors; still serving the previous version.\n`);
      } else process.stderr.write(`apidsl serve: cannot reload ${file}: ${(e as Error).message}; still serving the previous version.\n`);
    }
  };
  // The directory is watched, not the file: editors often replace a file rather than write it.
  return watch(dirname(resolve(file)), (_event, name) => {
    if (name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), 100);
  });
}

const indent = (text: string): string => text.replace(/^/gm, '  ');

/** What to do about a refused schema change, with the same store flags. */
function wayOut(file: string, opts: ServeCliOptions): string {
  const flags = opts.data ? ` --data ${opts.data}` : opts.db ? ` --db ${redactUri(opts.db)}` : '';
  return (
    `To list every change with the items it affects: apidsl migrate ${file}${flags} --dry-run\n` +
    `To apply those that can be applied (e.g. fill a default): apidsl migrate ${file}${flags}\n` +
    'Or serve the file on other data: --data with another directory, --memory, or --db with another database.\n'
  );
}
