/**
 * The signals that stop a long-running command (`serve`, its primary and workers, `consume`); docs/behaviour.md,
 * "Stopping". The handlers are installed before the command's own modules load, so that no SIGINT or SIGTERM,
 * whenever it comes, ends the process by the default action: the first one asks for a stop, every later one is absorbed
 * (a worker gets two by design: one sent to its process group, one from the primary). A command that does not
 * finish its stop in the drain bound ends itself (exit code 1); SIGKILL remains the way to force.
 */

import cluster from 'node:cluster';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The commands that run until stopped: bin/apidsl.js installs their handlers before it loads anything else. */
export const LONG_RUNNING: readonly string[] = ['serve', 'consume', 'mcp'];

/** How long a stop may take, `APIDSL_DRAIN_TIMEOUT` seconds (default 30), before it is cut short. */
export function drainBoundMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.APIDSL_DRAIN_TIMEOUT);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 30) * 1000;
}

let requested: Promise<void> | undefined;
let asked = false;

/**
 * Installs the handlers (once per process; later calls change nothing: the first caller, bin/apidsl.js for the
 * commands of LONG_RUNNING, names the command). A repeated signal is said to be absorbed on stderr under
 * `command`'s name, except in a worker, to which the repeat is expected.
 */
export function catchStopSignals(command?: string): void {
  if (requested) return;
  requested = new Promise<void>((resolve) => {
    const caught = (): void => {
      if (!asked) {
        asked = true;
        return resolve();
      }
      if (command && !cluster.isWorker)
        process.stderr.write(
          `apidsl ${command}: already stopping; it ends once the work in flight is done (at most ${drainBoundMs() / 1000} s).\n`,
        );
    };
    for (const signal of SIGNALS) process.on(signal, caught);
  });
}

/** Resolves at the first SIGINT or SIGTERM (the handlers are installed if they were not). */
export function stopRequested(): Promise<void> {
  catchStopSignals();
  return requested!;
}

/** Whether a stop was asked for already. */
export const stopping = (): boolean => asked;

/** Ends the process with exit code 1 if the stop has not ended it within the drain bound (the timer holds nothing open). */
export function boundTheStop(command: string, what: string): void {
  const ms = drainBoundMs();
  setTimeout(() => {
    process.stderr.write(`apidsl ${command}: ${what} still not finished after ${ms / 1000} s; exiting anyway.\n`);
    process.exit(1);
  }, ms).unref();
}
