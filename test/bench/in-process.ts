/**
 * What a request costs inside the process, without the network (part of the throughput benchmark,
 * pagination.ts): a Koa app's callback is handed requests on an unconnected socket, and the answer stays in
 * the response's buffer. No HTTP parsing, no socket writes and no load generator share the CPU, so the figure
 * moves by a microsecond where the load runs swing by tens: the measure for a step of per-request work.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/** A Node request listener, as Koa's `app.callback()` gives it. */
export type Listener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const socket = new Socket();

/** A request to inject: a URL (a GET of JSON-LD), or a method, headers and body besides. */
export type Injected = string | { url: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };

/** One request through `listener`: the answer's status and body. */
export async function inject(listener: Listener, target: Injected): Promise<{ status: number; body: string }> {
  const { url, method, headers, body } =
    typeof target === 'string' ? { url: target, method: 'GET', headers: { accept: 'application/ld+json' } } : target;
  const req = new IncomingMessage(socket);
  req.method = method;
  req.url = url;
  req.headers = { host: '127.0.0.1', connection: 'keep-alive', ...headers };
  if (body !== undefined) {
    req.headers['content-length'] = String(Buffer.byteLength(body));
    req.push(body);
  }
  req.push(null);
  const res = new ServerResponse(req);
  await listener(req, res);
  // Headers and body as the socket would have received them (kept while the response has no socket).
  const written = (res as ServerResponse & { outputData: { data: string | Buffer }[] }).outputData;
  const text = written.map((chunk) => chunk.data.toString()).join('');
  return { status: res.statusCode, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

/** Median over `runs` runs of the CPU microseconds (user + system) one request takes, after a warm-up. */
export async function cpuPerRequest(listener: Listener, url: Injected, requests = 20_000, runs = 5): Promise<number> {
  return (await cpuPerRequestInTurns(listener, [url], requests, runs))[0];
}

/**
 * `cpuPerRequest` of several requests, in turns (run 1 of each, then run 2 of each…), so that a busy spell of the
 * machine weighs on all of them: the medians, in the order of `targets`.
 */
export async function cpuPerRequestInTurns(
  listener: Listener,
  targets: readonly Injected[],
  requests = 20_000,
  runs = 5,
): Promise<number[]> {
  for (const target of targets) for (let i = 0; i < requests / 4; i++) await inject(listener, target);
  const figures = targets.map((): number[] => []);
  for (let run = 0; run < runs; run++)
    for (const [k, target] of targets.entries()) {
      const before = process.cpuUsage();
      for (let i = 0; i < requests; i++) await inject(listener, target);
      const spent = process.cpuUsage(before);
      figures[k].push((spent.user + spent.system) / requests);
    }
  return figures.map((f) => f.sort((a, b) => a - b)[Math.floor(runs / 2)]);
}
