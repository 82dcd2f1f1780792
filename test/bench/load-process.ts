/**
 * Runs one autocannon load in a child process (forked by pagination.ts), so the load generator does
 * not share the event loop of the servers it measures. A child process rather than a worker thread:
 * inside a worker thread autocannon takes itself for one of its own workers and returns raw histograms.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface LoadRequest {
  url: string;
  connections: number;
  /** Seconds (ignored when `amount` is given). */
  duration: number;
  /** Request headers (a Bearer token for the security benchmark). */
  headers?: Record<string, string>;
  /** POST and its body (the bulk benchmark); default GET. */
  method?: 'GET' | 'POST';
  body?: string;
  /** Stop after this many requests instead of after `duration`. */
  amount?: number;
  /** Seconds a request may take before it counts as an error (autocannon's default: 10). */
  timeout?: number;
}

export interface LoadResult {
  /** Requests per second: the mean of the per-second counts, or (a run of `amount`) the total over the duration. */
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Milliseconds. */
  latencyMean: number;
  latencyP99: number;
  /** How long the load ran, in seconds (autocannon's own clock, 10 ms resolution). */
  seconds: number;
}

/** Runs `request` in a child process and resolves with its result. */
export function load(request: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(request)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: LoadResult | undefined;
    child.once('message', (message) => {
      result = message as LoadResult;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result && code === 0 ? resolve(result) : reject(new Error(`the load process exited with ${code} and no result`)),
    );
  });
}

if (process.send) {
  const request = JSON.parse(process.argv[2]) as LoadRequest;
  const result = await autocannon({
    url: request.url,
    connections: request.connections,
    duration: request.duration,
    headers: request.headers,
    method: request.method ?? 'GET',
    body: request.body,
    amount: request.amount,
    timeout: request.timeout,
    // autocannon reports when a sample ends: with its default 1 s samples, a run of `amount` requests would
    // last a whole number of seconds. Short samples make the duration exact to 10 ms.
    ...(request.amount ? { sampleInt: 10 } : {}), // autocannon refuses an undefined one
  });
  const answer: LoadResult = {
    rps: request.amount ? result.requests.total / result.duration : result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    latencyMean: result.latency.average,
    latencyP99: result.latency.p99,
    seconds: result.duration,
  };
  process.send(answer, () => process.disconnect());
}
