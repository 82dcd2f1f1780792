/**
 * Several instances of one service (docs/deployment.md): three `apidsl serve` processes on their own ports, on one
 * store (one `--data` directory, or one database of the suite's MongoDB or PostgreSQL), sharing invalidations
 * and hub updates through a Redis of the test's own (`cluster.redis`), which is stopped and restarted mid-run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { HAMMER_MS, hammer } from './cache-staleness.js';
import { cachesSoon as cachesWithin } from './caches-probe.js';
import { request, startServer, tempDir, type RunningServer } from './harness.js';
import { expectConsumerWritesSeen, instancesService, twinService } from './instances-service.js';
import { lastingStore } from './lasting-store.js';
import { receivedTitles, subscribe, sleep, type Subscription } from './sse-client.js';
import { freshDatabaseUri } from '../support/mongodb.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

const STARTUP_MS = 60_000;

const service = (redis: string): string => instancesService('Instances', `cluster { redis: "${redis}" }`);
/** Without Redis nor cache: writes behind the instances' backs, to see whether they cache. */
const twinText = twinService('Instances');

describe('several instances through Redis (cluster.redis)', function () {
  this.timeout(HAMMER_MS);
  let redis: TestRedis;
  let instances: RunningServer[] = [];
  let twin: RunningServer;
  let subscriptions: Subscription[] = [];
  const dir = tempDir();

  before(async function () {
    this.timeout(STARTUP_MS * 2);
    redis = await startTestRedis();
    const file = join(dir, 'instances.api');
    writeFileSync(file, service(redis.url));
    const twinFile = join(dir, 'twin.api');
    writeFileSync(twinFile, twinText);
    const store = await lastingStore(dir);
    instances = [await startServer(file, store, STARTUP_MS)];
    instances.push(...(await Promise.all([1, 2].map(() => startServer(file, store, STARTUP_MS)))));
    twin = await startServer(twinFile, store, STARTUP_MS);
    expect((await request(instances[0]!.url, 'POST', '/authors', { body: { name: 'Ann' } })).status).to.equal(201);
    const book = await request(instances[1]!.url, 'POST', '/books', { body: { title: 'v0', author: '/authors/1' } });
    expect(book.status).to.equal(201);
    subscriptions = instances.map((i) => subscribe(`${i.url}/.well-known/mercure`, ['/books/{id}']));
    await Promise.all(subscriptions.map((s) => s.opened));
  });
  after(async () => {
    subscriptions.forEach((s) => s.close());
    await Promise.all([...instances, twin].filter(Boolean).map((i) => i.stop()));
    await redis?.stop();
  });

  /** Whether `instance` comes to answer from its cache within a generous time (each try leaves the page as it was). */
  const cachesSoon = (instance: RunningServer): Promise<boolean> => cachesWithin(instance, twin, 15_000);

  it('each instance caches pages (a change made behind its back is not seen)', async () => {
    for (const instance of instances) expect(await cachesSoon(instance), instance.url).to.equal(true);
  });

  it('no GET on any instance is older than a write acknowledged by another', async () => {
    const reads = await hammer(
      instances.map((i) => i.url),
      { writes: 60, readers: 6 },
    );
    expect(reads).to.be.greaterThan(0);
  });

  it('every update written through any instance reaches the subscribers of every instance', async () => {
    const before = subscriptions.map((s) => s.events.length);
    for (let n = 0; n < 9; n++) {
      const created = await request(instances[n % 3]!.url, 'POST', '/books', {
        body: { title: `broadcast ${n}`, author: '/authors/1' },
      });
      expect(created.status).to.equal(201);
    }
    const titles = Array.from({ length: 9 }, (_, n) => `broadcast ${n}`);
    await Promise.all(subscriptions.map((s, i) => receivedTitles(s, before[i]!, titles, 10_000)));
  });

  it('Redis stopped mid-run: still serving, no stale read; restarted: caching and updates resume, none lost', async () => {
    const before = subscriptions.map((s) => s.events.length);
    const outage = (async () => {
      await sleep(1500);
      await redis.stop();
      await sleep(4000);
      await redis.start();
    })();
    const load = hammer(
      instances.map((i) => i.url),
      { writes: 80, readers: 6 },
    );
    const [reads] = await Promise.all([load, outage]);
    expect(reads).to.be.greaterThan(0);
    // The hammer created 80 books ("extra 1"…), each published through the instance that wrote it.
    const titles = Array.from({ length: 80 }, (_, n) => `extra ${n + 1}`);
    await Promise.all(subscriptions.map((s, i) => receivedTitles(s, before[i]!, titles, 20_000)));
    // Once the instances hear themselves again.
    for (const instance of instances) expect(await cachesSoon(instance), `${instance.url} caches again`).to.equal(true);
    const logs = instances.map((i) => i.output()).join('\n');
    expect(logs).to.contain('Redis unreachable');
    expect(logs).to.contain('not hearing the other instances');
  });
});

describe('serve --db with the in-process cache', function () {
  this.timeout(STARTUP_MS);
  const cachedService = (cluster: string): string => `api "Warned" { version: "1.0.0" }
config {
  http_cache { in_process { max_bytes: 1000000 } }
  ${cluster}
}
resource Book { properties { id: int { identifier: true }, title: string } }
`;

  const WARNING = 'the in-process cache does not see writes made by other instances on this database';

  /**
   * The server's output up to the log line of a request made after its start: the start warnings are written to
   * stderr before the URL, so they come before that line on the same pipe.
   */
  async function startOutput(text: string): Promise<string> {
    const file = join(tempDir(), 'warned.api');
    writeFileSync(file, text);
    const server = await startServer(file, ['--db', await freshDatabaseUri()], STARTUP_MS);
    try {
      expect((await request(server.url, 'GET', '/books/1')).status).to.equal(404);
      const logged = '"url":"/books/1"';
      for (const deadline = Date.now() + 10_000; !server.output().includes(logged); await sleep(20))
        if (Date.now() > deadline) throw new Error(`the request was not logged; output: ${server.output()}`);
      return server.output();
    } finally {
      await server.stop();
    }
  }

  it('warns that other instances’ writes are not seen without cluster, and not with cluster.redis', async () => {
    expect(await startOutput(cachedService(''))).to.contain(WARNING);
    const redis = await startTestRedis();
    try {
      expect(await startOutput(cachedService(`cluster { redis: "${redis.url}" }`))).not.to.contain(
        'does not see writes made by other instances',
      );
    } finally {
      await redis.stop();
    }
  });
});

describe('apidsl consume with cluster.redis', function () {
  this.timeout(STARTUP_MS * 3);

  it("a consumer process's writes drop the serving instance's cached pages, and its updates reach that hub", async () => {
    const redis = await startTestRedis();
    try {
      const dir = tempDir();
      await expectConsumerWritesSeen(dir, `cluster { redis: "${redis.url}" }`, ['--data', join(dir, 'data')]);
    } finally {
      await redis.stop();
    }
  });
});
