/**
 * Publishing to an external Mercure hub: the official hub (built from its Go module by .ci/run), and our
 * built-in hub run as a separate `apidsl serve` process. A real EventSource subscribes to the hub while the
 * service writes: order, content, private updates; a hub that is down never slows or fails a write, and an
 * update is retried until the hub is back.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findMercure, MERCURE_MISSING, startOfficialHub, type RunningHub } from '../support/mercure-hub.js';
import { freePort } from '../support/mongodb.js';
import { request, startServer, type RunningServer } from './harness.js';
import { mercureJwt, subscribe, type Subscription } from './sse-client.js';

const PUBLISHER_KEY = 'external-publisher-key-0123456789abcdef';
const SUBSCRIBER_KEY = 'external-subscriber-key-0123456789abcdef';

function apiFile(hub: string, retries = 5): string {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-external-hub-'));
  const file = join(dir, 'books.api');
  writeFileSync(
    file,
    `api "Books" { version: "1" }
config {
  patch_formats: ["application/merge-patch+json"]
  mercure { hub: "${hub}", publish_retries: ${retries} }
}
resource Book {
  mercure: true
  properties {
    id: int { identifier: true }
    title: string
  }
}
resource Secret {
  mercure: { private: true }
  properties {
    id: int { identifier: true }
    text: string
  }
}
`,
  );
  return file;
}

/** Our built-in hub in a process of its own, accepting updates signed with PUBLISHER_KEY. */
async function startBuiltinHubProcess(port?: number): Promise<RunningHub> {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-hub-'));
  const file = join(dir, 'hub.api');
  writeFileSync(file, 'api "Hub" { version: "1" }\nconfig {\n  mercure { hub: "builtin" }\n}\n');
  const server = await startServer(file, port ? ['--port', String(port)] : []);
  return { url: `${server.url}/.well-known/mercure`, stop: async () => void (await server.stop()) };
}

const official = findMercure();
/** `start` is undefined for a hub that is not installed here: its suite is then skipped, or fails under CI=true. */
const hubs: { name: string; start?: (port?: number) => Promise<RunningHub> }[] = [
  {
    name: `the official Mercure hub (${official ?? 'no mercure binary'})`,
    start: official
      ? (port) => startOfficialHub(official, { publisher: PUBLISHER_KEY, subscriber: SUBSCRIBER_KEY }, port)
      : undefined,
  },
  { name: 'our built-in hub in a separate process', start: startBuiltinHubProcess },
];

for (const kind of hubs) {
  describe(`Mercure: external hub — ${kind.name}`, function () {
    this.timeout(60_000);
    let start: (port?: number) => Promise<RunningHub>;
    let hub: RunningHub;
    let server: RunningServer;
    const open: Subscription[] = [];

    before(async function () {
      if (!kind.start) {
        if (process.env.CI === 'true') throw new Error(`CI=true and ${MERCURE_MISSING}`);
        process.stderr.write(`\n!!! Mercure official-hub tests SKIPPED: ${MERCURE_MISSING}.\n\n`);
        this.skip();
      }
      start = kind.start;
      process.env.MERCURE_PUBLISHER_JWT_KEY = PUBLISHER_KEY;
      process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY;
      hub = await start();
      server = await startServer(apiFile(hub.url));
    });
    afterEach(() => open.splice(0).forEach((s) => s.close()));
    after(async () => {
      await server?.stop();
      await hub?.stop();
      delete process.env.MERCURE_PUBLISHER_JWT_KEY;
      delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
    });

    it('a subscriber of the hub sees create, update and delete in order', async () => {
      const s = subscribe(hub.url, [`${server.url}/books/{id}`]);
      open.push(s);
      await s.opened;
      const created = await request(server.url, 'POST', '/books', { body: { title: 'Far away' } });
      expect(created.status).to.equal(201);
      expect(created.headers.get('link')).to.contain(`<${hub.url}>; rel="mercure"`);
      const iri = created.json['@id'] as string;
      await request(server.url, 'PATCH', iri, {
        body: { title: 'Farther' },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      const got = await request(server.url, 'GET', iri);
      await request(server.url, 'DELETE', iri);
      const events = await s.waitFor(3, 15_000);
      expect(JSON.parse(events[0].data).title).to.equal('Far away');
      expect(JSON.parse(events[1].data)).to.deep.equal(got.json);
      expect(JSON.parse(events[2].data)).to.deep.equal({ '@id': iri });
    });

    it('private updates reach only subscribers with a valid JWT for the topic', async () => {
      // The anonymous subscriber also follows the public books: the hub delivers in order, so once the book
      // created after the secret reaches it, the secret would have come first.
      const anonymous = subscribe(hub.url, [`${server.url}/secrets/{id}`, `${server.url}/books/{id}`]);
      const allowed = subscribe(hub.url, [`${server.url}/secrets/{id}`], {
        Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: [`${server.url}/secrets/{id}`] })}`,
      });
      open.push(anonymous, allowed);
      await Promise.all([anonymous.opened, allowed.opened]);
      await request(server.url, 'POST', '/secrets', { body: { text: 'between us' } });
      expect(JSON.parse((await allowed.waitFor(1, 15_000))[0].data).text).to.equal('between us');
      await request(server.url, 'POST', '/books', { body: { title: 'for everybody' } });
      const [first] = await anonymous.waitFor(1, 15_000);
      expect(JSON.parse(first.data).title).to.equal('for everybody');
    });

    it('a hub that is down neither fails nor slows a write; the update is retried until the hub is back', async () => {
      const port = await freePort();
      // Enough retries (delays double up to 10 s) to outlast a hub that is slow to start on a loaded machine.
      const later = await startServer(apiFile(`http://127.0.0.1:${port}/.well-known/mercure`, 10));
      let revived: RunningHub | undefined;
      try {
        const started = Date.now();
        const created = await request(later.url, 'POST', '/books', { body: { title: 'while down' } });
        expect(created.status).to.equal(201);
        // Generous: waiting for the hub would take the whole retry schedule (over a minute with 10 retries), or
        // never end, since the hub starts only after this write answered.
        expect(Date.now() - started).to.be.below(10_000);
        await new Promise((r) => setTimeout(r, 700)); // a couple of failed attempts
        revived = await start(port);
        // From the earliest update the hub holds: the retry may land before this subscription opens.
        const s = subscribe(revived.url, [`${later.url}/books/{id}`], { 'Last-Event-ID': 'earliest' });
        open.push(s);
        await s.opened;
        const [event] = await s.waitFor(1, 15_000);
        expect(JSON.parse(event.data).title).to.equal('while down');
      } finally {
        await later.stop();
        await revived?.stop();
      }
    });
  });
}
