/**
 * One instance of a service loses Redis while the others still reach it (docs/deployment.md, "How the in-process
 * caches stay true"): the others stop answering from their caches before its writes answer, since they no longer
 * hear it, and cache again once it is back. Redis is the test's own; the instance reaches it through a relay
 * the test cuts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { request, startServer, tempDir, type RunningServer } from './harness.js';
import { lastingStore } from './lasting-store.js';
import { cachesSoon as cachesWithin } from './caches-probe.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { cuttableRelay, type CuttableRelay } from '../support/tcp-cut.js';

const STARTUP_MS = 60_000;

const service = (redis: string): string => `api "CutOff" { version: "1.0.0" }
config {
  patch_formats: ["application/merge-patch+json"]
  cluster { redis: "${redis}" }
  http_cache { in_process { max_bytes: 10000000 } }
}
resource Book { properties { id: int { identifier: true }, title: string } }
`;

/** The same service without Redis or cache: writes behind the instances' backs, to see whether they cache. */
const twinService = `api "CutOff" { version: "1.0.0" }
config { patch_formats: ["application/merge-patch+json"] }
resource Book { properties { id: int { identifier: true }, title: string } }
`;

const title = async (server: RunningServer): Promise<string> =>
  (await request(server.url, 'GET', '/books/1')).json.title;

describe('an instance cut off from Redis while the others reach it (cluster.redis)', function () {
  this.timeout(STARTUP_MS * 3);
  let redis: TestRedis;
  let relay: CuttableRelay;
  let direct: RunningServer;
  let relayed: RunningServer;
  let twin: RunningServer;

  before(async () => {
    redis = await startTestRedis();
    relay = await cuttableRelay(Number(new URL(redis.url).port));
    const dir = tempDir();
    const files = ['direct', 'relayed', 'twin'].map((name) => join(dir, `${name}.api`));
    writeFileSync(files[0]!, service(redis.url));
    writeFileSync(files[1]!, service(`redis://127.0.0.1:${relay.port}`));
    writeFileSync(files[2]!, twinService);
    const store = await lastingStore(dir);
    direct = await startServer(files[0]!, store, STARTUP_MS);
    [relayed, twin] = await Promise.all([
      startServer(files[1]!, store, STARTUP_MS),
      startServer(files[2]!, store, STARTUP_MS),
    ]);
    expect((await request(direct.url, 'POST', '/books', { body: { title: 'v0' } })).status).to.equal(201);
  });
  after(async () => {
    await Promise.all([direct, relayed, twin].filter(Boolean).map((s) => s.stop()));
    await relay?.close();
    await redis?.stop();
  });

  const cachesSoon = (server: RunningServer): Promise<boolean> => cachesWithin(server, twin, 20_000);

  it('the others serve no page older than its write, and every instance caches again once it is back', async () => {
    expect(await cachesSoon(direct), 'the direct instance caches').to.equal(true);
    await title(direct); // kept in its cache
    relay.cut();
    const patched = await request(relayed.url, 'PATCH', '/books/1', {
      body: JSON.stringify({ title: 'written while cut off' }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(await title(direct)).to.equal('written while cut off');
    relay.mend();
    for (const server of [direct, relayed]) expect(await cachesSoon(server), server.url).to.equal(true);
    expect(relayed.output()).to.contain('Redis unreachable');
  });
});
