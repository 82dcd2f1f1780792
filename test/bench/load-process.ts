/**
 * Runs one autocannon load in a child process (forked by pagination.ts), so the load generator does
 * not share the event loop of the servers it measures. A child process rather than a worker thread:
 * inside a worker thread autocannon takes itself for one of its own workers and returns raw histograms.
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Request headers (a Bearer token for the security benchmark). */
  headers?: Record<string, string>;
}

export interface LoadResult {
  /** Mean of the per-second request counts. */
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Milliseconds. */
  latencyMean: number;
  latencyP99: number;
}

if (process.send) {
  const request = JSON.parse(process.argv[2]) as LoadRequest;
  const result = await autocannon({ url: request.url, connections: request.connections, duration: request.duration, headers: request.headers });
  const answer: LoadResult = {
    rps: result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    latencyMean: result.latency.average,
    latencyP99: result.latency.p99,
  };
  process.send(answer, () => process.disconnect());
}
