/**
 * A process start (a server, a consumer, a hub) takes its own bound, not the time bound of the mocha test or hook
 * that asked for it: on a loaded machine a start can take tens of seconds, which a test's 20 s would count as its
 * own. While starts run, the running test may take `boundMs` more; once the last one ends, its own bound resumes,
 * lengthened by the time they took.
 */
import { createRequire } from 'node:module';

interface Runnable {
  timeout(): number;
  timeout(ms: number): unknown;
  run(fn: unknown): unknown;
}

// Mocha runs one test or hook at a time and has no public way to ask which: its `run` is wrapped (once per
// process, whichever file loads this first) to note it.
const { Runnable } = createRequire(import.meta.url)('mocha') as { Runnable: { prototype: Runnable } };
const RUNNING = Symbol.for('apidsl.runningTest');
const WRAPPED = Symbol.for('apidsl.runningTestNoted');
const global = globalThis as Record<symbol, unknown>;
if (!global[WRAPPED]) {
  global[WRAPPED] = true;
  const run = Runnable.prototype.run;
  Runnable.prototype.run = function (this: Runnable, fn: unknown) {
    global[RUNNING] = this;
    return run.call(this, fn);
  };
}

/** Starts under way per test or hook: how many, since when, and its own bound before them. */
const starting = new WeakMap<Runnable, { count: number; since: number; own: number }>();

export async function outsideTestBound<T>(boundMs: number, start: () => Promise<T>): Promise<T> {
  const runnable = global[RUNNING] as Runnable | undefined;
  const own = runnable?.timeout() ?? 0;
  if (!runnable || own === 0) return start(); // 0: the test has no bound
  const under = starting.get(runnable) ?? { count: 0, since: Date.now(), own };
  starting.set(runnable, { ...under, count: under.count + 1 });
  runnable.timeout(under.own + (Date.now() - under.since) + boundMs);
  try {
    return await start();
  } finally {
    const now = starting.get(runnable)!;
    if (now.count > 1) starting.set(runnable, { ...now, count: now.count - 1 });
    else {
      starting.delete(runnable);
      runnable.timeout(now.own + (Date.now() - now.since));
    }
  }
}
