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

/** One GET of `url` through `listener` (with `headers` besides the defaults): the answer's status and body. */
export async function inject(
  listener: Listener,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = url;
  req.headers = { host: '127.0.0.1', accept: 'application/ld+json', connection: 'keep-alive', ...headers };
  req.push(null);
  const res = new ServerResponse(req);
  await listener(req, res);
  // Headers and body as the socket would have received them (kept while the response has no socket).
  const written = (res as ServerResponse & { outputData: { data: string | Buffer }[] }).outputData;
  const text = written.map((chunk) => chunk.data.toString()).join('');
  return { status: res.statusCode, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

/** Median over `runs` runs of the CPU microseconds (user + system) one request takes, after a warm-up. */
export async function cpuPerRequest(listener: Listener, url: string, requests = 20_000, runs = 5): Promise<number> {
  for (let i = 0; i < requests / 4; i++) await inject(listener, url);
  const figures: number[] = [];
  for (let run = 0; run < runs; run++) {
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i++) await inject(listener, url);
    const spent = process.cpuUsage(before);
    figures.push((spent.user + spent.system) / requests);
  }
  figures.sort((a, b) => a - b);
  return figures[Math.floor(runs / 2)];
}
