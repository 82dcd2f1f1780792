/**
 * Rate limits at the pipeline's entry (server/pipeline/rate-limit.ts, rate-limit-stores.ts), without HTTP, as
 * GraphQL or MCP would call it: two runtimes counting in one Redis share one count; with Redis unreachable each
 * process still limits in its memory and says so in the log; a counter that fails (not a refusal) serves the
 * request and logs. Needs the machine's Redis on 127.0.0.1:6379 (`redis-cli ping`); without it the suite fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Redis, type RedisOptions } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ApiMetadata, OperationMetadata } from '../../server/metadata/types.js';
import { executeOperation, type OperationRequest } from '../../server/pipeline/execute.js';
import { memoryStore, redisStore } from '../../server/pipeline/rate-limit-stores.js';
import { startRuntime } from '../../server/pipeline/runtime.js';
import type { RateLimitStore, Runtime } from '../../server/pipeline/state.js';
import { loadApi, openStore } from '../../server/serve.js';
import type { Store } from '../../server/store/types.js';
import { operationRequest } from '../support/operation-request.js';

const API = `api "Limited" { version: "1" }
resource Book {
  properties { id: int { identifier: true }, title: string }
  operations { GetCollection { rateLimit: { limit: 3, interval: "1 hour" } } }
}
`;

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
  /** A prefix of this run's own, so that no earlier run's counts are met. */
  const prefix = `apidsl-test-${process.pid}-${Date.now()}`;

  const list = (): OperationMetadata => api.resource('Book')!.operations.find((o) => o.isCollection)!;
  const request = (peer: string): OperationRequest => operationRequest({ peer });
  const runtime = async (rateLimits: RateLimitStore, logger: Logger = pino({ level: 'silent' })) => {
    const made = await startRuntime(api, store, { logger, rateLimits });
    runtimes.push(made);
    return made;
  };
  const redis = (options: RedisOptions): Redis => {
    const client = new Redis(options);
    clients.push(client);
    return client;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-limits-'));
    writeFileSync(join(dir, 'limited.api'), API);
    api = await loadApi(join(dir, 'limited.api'));
    store = await openStore({ kind: 'memory' });
  });
  after(async () => {
    const [client] = clients;
    if (client?.status === 'ready') {
      const keys = await client.keys(`${prefix}:*`);
      if (keys.length) await client.del(...keys);
    }
    for (const c of clients) c.disconnect();
    for (const r of runtimes) await r.bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts in Redis: two runtimes, each with its own client as two processes would have, share one count', async () => {
    const silent = pino({ level: 'silent' });
    const a = await runtime(redisStore(redis({ host: '127.0.0.1', port: 6379 }), silent, prefix));
    const b = await runtime(redisStore(redis({ host: '127.0.0.1', port: 6379 }), silent, prefix));
    for (const c of clients) if (c.status !== 'ready') await new Promise((ready) => c.once('ready', ready));
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

  it('with Redis unreachable, still limits in the process and logs it', async () => {
    const { logger, lines } = keptLog();
    // Nothing listens on port 1: the client never becomes ready.
    const down = redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false });
    const r = await runtime(redisStore(down, logger, prefix), logger);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await executeOperation(r, list(), request('192.0.2.3'))).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    expect(lines.join('')).to.contain('Redis unreachable; counting in this process meanwhile');
  });

  it('serves the request and logs when a counter fails (no refusal, no 500)', async () => {
    const { logger, lines } = keptLog();
    const failing: RateLimitStore = {
      counter: () => ({ consume: () => Promise.reject(new Error('store broken')) }) as unknown as RateLimiterAbstract,
    };
    const r = await runtime(failing, logger);
    const result = await executeOperation(r, list(), request('192.0.2.4'));
    expect(result.status).to.equal(200);
    expect(result.headers).to.not.have.property('RateLimit');
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
