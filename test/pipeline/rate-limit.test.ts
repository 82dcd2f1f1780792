/**
 * Rate limits at the pipeline's entry (server/pipeline/rate-limit.ts, rate-limit-stores.ts), without HTTP, as
 * GraphQL or MCP would call it: two runtimes counting in one Redis share one count; with Redis unreachable each
 * process still limits in its memory and says so in the log; a counter that fails (not a refusal) refuses the
 * request and logs. Redis is a server of the suite's own (test/support/redis-server.ts: redis-server must be
 * installed, else the suite fails).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ApiMetadata, OperationMetadata } from '../../server/metadata/types.js';
import { executeOperation, type OperationRequest } from '../../server/pipeline/execute.js';
import { memoryStore, redisStore } from '../../server/pipeline/rate-limit-stores.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import type { RateLimitStore, Runtime } from '../../server/pipeline/runtime.js';
import { loadApi } from '../../server/load-api.js';
import { openStore } from '../../server/storage.js';
import type { Store } from '../../server/store/types.js';
import { operationRequest } from '../support/operation-request.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

const API = `api "Limited" { version: "1" }
resource Book {
  properties { id: int { identifier: true }, title: string }
  operations { GetCollection { rateLimit: { limit: 3, interval: "1 hour" } } }
}
`;

const whenReady = async (client: Redis): Promise<void> => {
  if (client.status !== 'ready') await new Promise((ready) => client.once('ready', ready));
};

/** A logger whose lines are kept. */
function keptLog(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

describe('pipeline: rate limits and their stores', function () {
  this.timeout(20_000);
  let dir: string;
  let api: ApiMetadata;
  let store: Store;
  const runtimes: Runtime[] = [];
  const clients: Redis[] = [];
  const prefix = 'apidsl-test';
  /** A Redis server of the suite's own, which a test stops and starts again. */
  let server: TestRedis;

  const list = (): OperationMetadata => api.resource('Book')!.operations.find((o) => o.isCollection)!;
  const request = (peer: string): OperationRequest => operationRequest({ peer });
  const runtime = async (rateLimits: RateLimitStore, logger: Logger = pino({ level: 'silent' })) => {
    const made = await startRuntime(api, store, { logger, rateLimits });
    runtimes.push(made);
    return made;
  };
  /** A client as a service makes one: no queue while Redis is down, so a count never waits for it. */
  const redis = async (): Promise<Redis> => {
    const client = new Redis(server.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 100,
    });
    clients.push(client);
    await whenReady(client);
    return client;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-limits-'));
    writeFileSync(join(dir, 'limited.api'), API);
    api = await loadApi(join(dir, 'limited.api'));
    store = await openStore({ kind: 'memory' });
    server = await startTestRedis();
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    await server?.stop();
    for (const r of runtimes) await r.bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts in Redis: two runtimes, each with its own client as two processes would have, share one count', async () => {
    const silent = pino({ level: 'silent' });
    const a = await runtime(redisStore(await redis(), silent, prefix));
    const b = await runtime(redisStore(await redis(), silent, prefix));
    const statuses: number[] = [];
    for (const r of [a, b, a, b]) statuses.push((await executeOperation(r, list(), request('192.0.2.1'))).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    // The count is Redis's: it holds the client's key with the 4 requests.
    const keys = await clients[0].keys(`${prefix}:*192.0.2.1`);
    expect(keys).to.have.length(1);
    expect(await clients[0].get(keys[0])).to.equal('4');
    // Another client of the same runtimes has a count of its own.
    expect((await executeOperation(b, list(), request('192.0.2.2'))).status).to.equal(200);
  });

  it('with Redis gone, still limits in the process and logs it; counts in Redis again once it is back', async () => {
    const { logger, lines } = keptLog();
    const client = await redis();
    const r = await runtime(redisStore(client, logger, prefix), logger);
    const count = async (n: number): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) statuses.push((await executeOperation(r, list(), request('192.0.2.3'))).status);
      return statuses;
    };
    expect(await count(2)).to.deep.equal([200, 200]);
    await server.stop();
    while (client.status === 'ready') await new Promise((later) => setTimeout(later, 20));
    // The process's own count starts afresh, and holds the limit.
    expect(await count(4)).to.deep.equal([200, 200, 200, 429]);
    expect(lines.join('')).to.contain('Redis unreachable; counting in this process meanwhile');
    await server.start(); // empty: the counts kept there are gone
    await whenReady(client);
    expect(await count(1)).to.deep.equal([200]);
    expect(await client.get(`${prefix}:rl:${list().name}:ip:192.0.2.3`)).to.equal('1');
  });

  it('refuses the request (503, Retry-After) and logs when a counter fails: a fault never lifts the limit', async () => {
    const { logger, lines } = keptLog();
    const failing: RateLimitStore = {
      counter: () => ({ consume: () => Promise.reject(new Error('store broken')) }) as unknown as RateLimiterAbstract,
    };
    const r = await runtime(failing, logger);
    const result = await executeOperation(r, list(), request('192.0.2.4'));
    expect(result.status).to.equal(503);
    expect(result.headers).to.include({ 'Retry-After': '1' });
    expect(result.headers).to.not.have.property('RateLimit');
    expect(JSON.stringify(result.body)).to.contain('could not be counted');
    expect(lines.join('')).to.contain('rate limits: the counter failed');
    expect(lines.join('')).to.contain('store broken');
  });

  it('counts an in-process caller without a peer address as one client', async () => {
    const r = await runtime(memoryStore());
    const { peer: _, ...local } = request('');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await executeOperation(r, list(), local)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });
});
