/**
 * MCP against REST (part `mcp` of `npm run bench`), on test/fixtures/bench/mcp.api: a `get_book` tool call over
 * Streamable HTTP (one JSON-RPC POST to /mcp, stateless) against `GET /books/1` in JSON-LD, the same document, one
 * app on a node:http server, autocannon in a child process, in pairs of runs in turns (graphql.ts's `pairs`). The
 * bar: a call costs at most 1.5× the GET, so its req/s are at least 0.67× the GET's. A second row, for the record,
 * sends the GET with an Origin, so that it goes through the whole middleware chain as a call does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp } from '../../server/http/app.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import { storageSpec } from '../../server/pipeline/representation/rendering.js';
import { loadApi } from '../../server/load-api.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Item } from '../../server/store/types.js';
import { pairs, type Target } from './graphql.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bench/mcp.api', import.meta.url));
const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_book', arguments: { id: 1 } } };

export async function runMcpBench(): Promise<void> {
  const api = await loadApi(FIXTURE);
  const store = await openSqliteStore({ memory: true });
  const books = await store.collection(storageSpec(api.resource('Book')!));
  await books.insert({ id: 1, title: 'Dune', price: 9.5 } as Item);
  const runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
  const app = (await createApp(runtime, undefined)).callback();
  const server = createServer((req, res) => void app(req, res));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call: Target = {
    url: `${base}/mcp`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(CALL),
  };
  const rows: string[] = [];
  try {
    const get = { url: `${base}/books/1`, headers: { accept: 'application/ld+json' } };
    rows.push(await pairs('get_book tool call / GET /books/1', get, call, 2 / 3));
    // For the record, not a bar: with an Origin the GET goes through CORS, authentication and the router too.
    const chained = { ...get, headers: { ...get.headers, origin: 'http://localhost:5173' } };
    rows.push(await pairs('get_book tool call / GET /books/1 with Origin (whole chain)', chained, call, 2 / 3));
  } finally {
    await new Promise((closed) => server.close(closed));
    await runtime.bus.close();
    await store.close();
  }
  console.log(
    `\nmcp: ${cpus().length} CPUs, node ${process.version}; pairs of runs in turns; ratio: median of the pairs' ` +
      `req/s ratios (MCP / REST); bar: a call costs at most 1.5× the GET\n`,
  );
  console.log('| comparison | baseline req/s | measured req/s | ratio |');
  console.log('|---|---:|---:|---|');
  for (const row of rows) console.log(row);
}
