/**
 * `apidsl serve --workers N`: N processes serving one port through Node's cluster module (docs/behaviour.md,
 * "Workers"). The primary serves nothing itself: it starts worker 1 (which checks the file, opens the store,
 * applies its layout and prints the banner), then the others (the cluster module hands them the socket worker 1
 * listens on, the one `--port 0` picked included; each worker accepts its own connections from it); relays cache
 * invalidations, hub updates and heartbeats between them (server/cluster/primary-link.ts); replaces a worker that
 * dies; and on SIGINT or SIGTERM, at any moment (docs/behaviour.md, "Stopping"), starts no other worker, tells
 * each worker once to stop (each finishes its requests in flight), waits for all of them and exits.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { relayBetweenWorkers } from '../server/cluster/primary-link.js';
import { countInPrimary } from '../server/pipeline/rate-limit-stores.js';
import type { Storage } from '../server/storage.js';
import { serveLogger } from './request-log.js';
import { drainBoundMs, stopRequested } from './signals.js';

/** Set in a worker's environment: its number (1 prints the banner and consumes messages). */
export const WORKER_NUMBER = 'APIDSL_WORKER_NUMBER';
const LISTENING = 'apidsl:listening';
const ALL_LISTENING = 'apidsl:all-listening';

/** `--workers` as a number of processes, or the message saying why it is not one. */
export function workerCount(value: string | undefined): number | string {
  if (value === undefined) return 1;
  if (value === 'auto') return availableParallelism();
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 1024 ? n : `invalid --workers "${value}" (a number from 1, or auto).`;
}

/** Why `--workers` above 1 cannot serve this storage or these flags; undefined when it can. */
export function refusal(storage: Storage, watch: boolean | undefined): string | undefined {
  if (storage.kind === 'memory')
    return '--memory keeps the data inside one process; --workers above 1 needs a store every worker shares: --data DIR (embedded SQLite) or --db URI (MongoDB).';
  if (watch) return '--watch reloads one process; use it with --workers 1.';
  return undefined;
}

/** This worker's number, or undefined in a process that is not a worker of `serve --workers`. */
export const workerNumber = (): number | undefined =>
  cluster.isWorker && process.env[WORKER_NUMBER] ? Number(process.env[WORKER_NUMBER]) : undefined;

/**
 * Tells the primary this worker listens (the port goes to the next workers); resolves once every worker listens,
 * so that the banner, which scripts take as "ready", is printed when all of them are.
 */
export function announceListening(): Promise<void> {
  return new Promise((resolve) => {
    const ready = (m: { type?: string }): void => {
      if (m?.type !== ALL_LISTENING) return;
      process.off('message', ready);
      resolve();
    };
    process.on('message', ready);
    process.send?.({ type: LISTENING });
  });
}

export async function runPrimary(count: number): Promise<number> {
  // The workers accept their connections themselves from the one listening socket (not the cluster module's default
  // round robin, where the primary accepts each connection and hands it over): a connection handed to a worker that
  // dies before taking it stays open in the primary, unanswered, for ever. With the shared socket, a worker's death
  // closes the connections it had (the client sees it at once) and the ones still queued go to the others.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  relayBetweenWorkers(serveLogger());
  countInPrimary();
  const stop = stopRequested();
  let serving = false;
  // Set once a stop is under way (a signal, or a worker that failed to start): no worker is started or replaced.
  let stopping = false;
  // Whether a worker ended its stop badly (an exit code other than 0, or killed at the drain bound).
  let stoppedBadly = false;
  const fork = (number: number): Worker => {
    const worker = cluster.fork({ [WORKER_NUMBER]: String(number) });
    worker.on('exit', (code, signal) => {
      if (stopping) {
        // A stop signal ends a worker only before its handlers are installed: it had served nothing.
        if (signal ? signal !== 'SIGTERM' && signal !== 'SIGINT' : code !== 0) stoppedBadly = true;
        return;
      }
      if (!serving) return;
      process.stderr.write(
        `apidsl serve: worker ${number} stopped (${signal ?? `exit code ${code}`}); starting another.\n`,
      );
      fork(number);
    });
    return worker;
  };
  const listening = (worker: Worker): Promise<true | { exit: number }> =>
    new Promise((resolve) => {
      worker.on('message', (m: { type?: string }) => {
        if (m?.type === LISTENING) resolve(true);
      });
      worker.once('exit', (code) => resolve({ exit: code ?? 1 }));
    });
  void stop.then(() => {
    stopping = true;
    for (const worker of liveWorkers()) tellToStop(worker);
    // A worker bounds its own drain; one that still runs a little after that bound is killed.
    setTimeout(() => {
      for (const worker of liveWorkers()) {
        stoppedBadly = true;
        process.stderr.write(`apidsl serve: worker ${worker.id} did not stop in time; killed.\n`);
        worker.process.kill('SIGKILL');
      }
    }, drainBoundMs() + KILL_GRACE_MS).unref();
  });
  const stopped = async (): Promise<number> => {
    await allExited();
    return stoppedBadly ? 1 : 0;
  };
  // Worker 1 alone first: it reports a file with errors once and applies the store's layout with no one else writing.
  const first = await listening(fork(1));
  if (stopping) return stopped();
  if (first !== true) return first.exit;
  const rest = Array.from({ length: count - 1 }, (_, i) => listening(fork(i + 2)));
  const started = await Promise.all(rest);
  if (stopping) return stopped();
  const failed = started.find((s) => s !== true);
  if (failed) {
    stopping = true;
    for (const worker of liveWorkers()) tellToStop(worker);
    await allExited();
    return (failed as { exit: number }).exit || 1;
  }
  serving = true;
  for (const worker of liveWorkers()) worker.send({ type: ALL_LISTENING });
  await stop;
  return stopped();
}

/** How long after the drain bound the primary waits before it kills a worker still running. */
const KILL_GRACE_MS = 5000;

const liveWorkers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());

const told = new WeakSet<Worker>();

/**
 * Asks a worker to drain, once: one SIGTERM (not `worker.kill()`, which would first cut the channel the worker
 * still needs to relay the cache invalidations of its requests in flight). A worker that also got the signal
 * sent to its process group drains once all the same.
 */
function tellToStop(worker: Worker): void {
  if (told.has(worker)) return;
  told.add(worker);
  worker.process.kill('SIGTERM');
}

/** Resolves once every worker has exited. */
async function allExited(): Promise<void> {
  await Promise.all(liveWorkers().map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve()))));
}
