/**
 * Where rate-limit counts live (docs/behaviour.md, "Rate limits"), on rate-limiter-flexible: in the process
 * (one server), in the primary of `serve --workers N` (every worker asks it, so N workers share one count), or
 * in Redis (every process and machine sharing that Redis shares the count). A runtime gets one store
 * (runtime.ts, `RuntimeOptions.rateLimits`); without one it counts as `processStore` decides.
 */
import cluster from 'node:cluster';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  RateLimiterCluster,
  RateLimiterClusterMaster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateLimitStore } from './runtime.js';

/** Set by the primary of `serve --workers` in its workers' environment: they count in the primary. */
const COUNTS_IN_PRIMARY = 'APIDSL_RATE_LIMITS_IN_PRIMARY';

/** A store making each counter once per prefix, limit and window: handed to the runtime of each reload, it keeps the counts of the policies a reload leaves alone. */
function store(make: (options: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract) {
  const counters = new Map<string, RateLimiterAbstract>();
  return {
    counter(prefix: string, limit: number, seconds: number): RateLimiterAbstract {
      const key = `${prefix}\n${limit}\n${seconds}`;
      let counter = counters.get(key);
      if (!counter) counters.set(key, (counter = make({ keyPrefix: prefix, points: limit, duration: seconds })));
      return counter;
    },
  } satisfies RateLimitStore;
}

/** Counts in this process. */
export const memoryStore = (): RateLimitStore => store((options) => new RateLimiterMemory(options));

/**
 * Counts in the primary of `serve --workers` (which `countInPrimary` set up): a worker sends each count there
 * and waits at most a second for the answer; when none comes, it counts in its own memory meanwhile (the limit
 * still holds, per worker), and says so in the log, at most once a minute.
 */
export const primaryStore = (logger?: Logger): RateLimitStore => {
  const warn = warnAtMostEveryMinute(() =>
    logger?.warn('rate limits: the primary did not answer in time; counting in this worker meanwhile'),
  );
  return store((options) => {
    const inPrimary = new RateLimiterCluster({ ...options, timeoutMs: 1000 });
    const here = new RateLimiterMemory(options);
    const ask = inPrimary.consume.bind(inPrimary);
    inPrimary.consume = (key, points, opts) =>
      ask(key, points, opts).catch((e: unknown) => {
        if (e instanceof RateLimiterRes) throw e; // the limit is reached: that is an answer
        warn();
        return here.consume(key, points, opts);
      });
    return inPrimary;
  });
};

/** A worker of `serve --workers` counts in the primary; any other process in itself. */
export const processStore = (logger?: Logger): RateLimitStore =>
  cluster.isWorker && process.env[COUNTS_IN_PRIMARY] === '1' ? primaryStore(logger) : memoryStore();

/** Calls `say` at most once a minute. */
function warnAtMostEveryMinute(say: () => void): () => void {
  let said = 0;
  return () => {
    const now = Date.now();
    if (now - said < 60_000) return;
    said = now;
    say();
  };
}

/**
 * In the primary of `serve --workers`, before the workers are started: it keeps their counts (one in-memory
 * counter per operation, made when a worker first asks) and tells them to count there.
 */
export function countInPrimary(): void {
  new RateLimiterClusterMaster();
  process.env[COUNTS_IN_PRIMARY] = '1';
}

/**
 * Counts in Redis, through `client` (an ioredis client the caller made and closes), keys under `prefix:`.
 * While Redis cannot be reached (the client is not ready, or a command fails) each process counts in its own
 * memory instead (the insurance limiter: limits still hold, per process), and says so in the log, at most once
 * a minute.
 */
export function redisStore(client: Redis, logger: Logger, prefix = 'apidsl'): RateLimitStore {
  const warn = warnAtMostEveryMinute(() =>
    logger.warn({ redis: client.status }, 'rate limits: Redis unreachable; counting in this process meanwhile'),
  );
  return store((options) => {
    const insurance = new RateLimiterMemory(options);
    const consume = insurance.consume.bind(insurance);
    insurance.consume = (...args) => {
      warn();
      return consume(...args);
    };
    return new RateLimiterRedis({
      ...options,
      keyPrefix: `${prefix}:${options.keyPrefix}`,
      storeClient: client,
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance,
    });
  });
}
