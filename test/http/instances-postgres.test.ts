/**
 * Several instances of one service on one PostgreSQL database and no Redis (docs/deployment.md): two `apidsl
 * serve` processes hear each other through the database (LISTEN/NOTIFY). One reaches PostgreSQL through a relay
 * the test cuts for its LISTEN connection alone (its store's pool still works): it stops answering from its cache
 * at once, the other within a second, and both cache again once it is back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { HAMMER_MS, hammer } from './cache-staleness.js';
import { caches, cachesSoon as cachesWithin } from './caches-probe.js';
import { expectConsumerWritesSeen, instancesService, twinService } from './instances-service.js';
import { request, startServer, tempDir, type RunningServer } from './harness.js';
import { receivedTitles, sleep, subscribe, type Subscription } from './sse-client.js';
import { freshPostgresUrl, postgresOrSkip, testPostgresUrl } from '../support/postgres.js';
import { cuttableRelay, type CuttableRelay } from '../support/tcp-cut.js';

const STARTUP_MS = 60_000;

const service = instancesService('Listening', '');
/** Another title, so another channel: the instances do not hear its writes. */
const twinText = twinService('Twin');

/** Whether PostgreSQL's startup message names the link's connection (`application_name` "apidsl cluster"). */
const linkConnection = (first: Buffer): boolean => first.includes('apidsl cluster');

describe('several instances on one PostgreSQL database, without Redis (LISTEN/NOTIFY)', function () {
  this.timeout(HAMMER_MS);
  let relay: CuttableRelay;
  let direct: RunningServer;
  let relayed: RunningServer;
  let twin: RunningServer;
  let instances: RunningServer[] = [];
  let subscriptions: Subscription[] = [];

  before(async function () {
    this.timeout(STARTUP_MS * 2);
    await postgresOrSkip(this);
    const url = await freshPostgresUrl('cluster');
    relay = await cuttableRelay(Number(new URL(testPostgresUrl()).port || 5432), linkConnection);
    const relayedUrl = url.replace(/@[^/]+\//, `@127.0.0.1:${relay.port}/`);
    const dir = tempDir();
    writeFileSync(join(dir, 'listening.api'), service);
    writeFileSync(join(dir, 'twin.api'), twinText);
    direct = await startServer(join(dir, 'listening.api'), ['--db', url], STARTUP_MS);
    [relayed, twin] = await Promise.all([
      startServer(join(dir, 'listening.api'), ['--db', relayedUrl], STARTUP_MS),
      startServer(join(dir, 'twin.api'), ['--db', url], STARTUP_MS),
    ]);
    instances = [direct, relayed];
    expect((await request(direct.url, 'POST', '/authors', { body: { name: 'Ann' } })).status).to.equal(201);
    const book = await request(relayed.url, 'POST', '/books', { body: { title: 'v0', author: '/authors/1' } });
    expect(book.status).to.equal(201);
    subscriptions = instances.map((i) => subscribe(`${i.url}/.well-known/mercure`, ['/books/{id}']));
    await Promise.all(subscriptions.map((s) => s.opened));
  });
  after(async () => {
    subscriptions.forEach((s) => s.close());
    await Promise.all([direct, relayed, twin].filter(Boolean).map((i) => i.stop()));
    await relay?.close();
  });

  const cachesSoon = (instance: RunningServer): Promise<boolean> => cachesWithin(instance, twin, 15_000);

  it('each instance caches pages (a change made behind its back is not seen)', async () => {
    for (const instance of instances) expect(await cachesSoon(instance), instance.url).to.equal(true);
  });

  it('no GET on either instance is older than a write acknowledged by the other', async () => {
    const reads = await hammer(
      instances.map((i) => i.url),
      { writes: 60, readers: 6 },
    );
    expect(reads).to.be.greaterThan(0);
  });

  it('every update written through either instance reaches the subscribers of both', async () => {
    const before = subscriptions.map((s) => s.events.length);
    const titles = Array.from({ length: 6 }, (_, n) => `broadcast ${n}`);
    for (const [n, title] of titles.entries()) {
      const created = await request(instances[n % 2]!.url, 'POST', '/books', { body: { title, author: '/authors/1' } });
      expect(created.status).to.equal(201);
    }
    await Promise.all(subscriptions.map((s, i) => receivedTitles(s, before[i]!, titles, 10_000)));
  });

  it('its LISTEN connection cut: neither instance answers from its cache, writes stay true; mended: both cache again', async () => {
    expect(await cachesSoon(direct), 'the direct instance caches').to.equal(true);
    const before = subscriptions.map((s) => s.events.length);
    relay.cut();
    await sleep(300);
    expect(await caches(relayed, twin), 'the cut instance stops at once').to.equal(false);
    await sleep(1200);
    expect(await caches(direct, twin), 'the other stops within a second').to.equal(false);
    const patched = await request(relayed.url, 'PATCH', '/books/1', {
      body: JSON.stringify({ title: 'written while cut off' }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect((await request(direct.url, 'GET', '/books/1')).json.title).to.equal('written while cut off');
    const created = await request(relayed.url, 'POST', '/books', { body: { title: 'cut', author: '/authors/1' } });
    expect(created.status).to.equal(201);
    relay.mend();
    for (const server of instances) expect(await cachesSoon(server), server.url).to.equal(true);
    // The update written while cut off was kept and reaches the other instance's subscribers once it is back.
    await Promise.all(subscriptions.map((s, i) => receivedTitles(s, before[i]!, ['cut'], 10_000)));
    expect(relayed.output()).to.contain('cluster: PostgreSQL unreachable');
    expect(relayed.output()).to.contain('not hearing the other instances through PostgreSQL');
  });
});

describe('apidsl consume on the same PostgreSQL database, without Redis nor broker', function () {
  this.timeout(STARTUP_MS * 3);

  it("a consumer process's writes drop the serving instance's cached pages, and its updates reach that hub", async function () {
    await postgresOrSkip(this);
    await expectConsumerWritesSeen(tempDir(), '', ['--db', await freshPostgresUrl('consume')]);
  });
});
