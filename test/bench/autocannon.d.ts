// The part of autocannon's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    /** Milliseconds a sample lasts (default 1000); the result is reported when one ends. */
    sampleInt?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    /** Stop after this many requests (duration is then ignored). */
    amount?: number;
    /** Seconds before a request counts as an error. */
    timeout?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
