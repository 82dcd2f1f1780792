/**
 * The service the instances suites run several times on one store (instances.test.ts through Redis,
 * instances-postgres.test.ts through PostgreSQL), and its twin: the same tables without cache nor link, which
 * writes behind the instances' backs to see whether they cache (caches-probe.ts); and an `apidsl consume` process
 * whose writes a serving instance must see.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { fixture, request, startServer } from './harness.js';
import { startConsumer } from './messenger-fixture.js';
import { sleep, subscribe, type Subscription } from './sse-client.js';

/** Authors and their books (Mercure on books), cached in process; `cluster` is the service's cluster setting. */
export const instancesService = (title: string, cluster: string): string => `api "${title}" { version: "1.0.0" }

config {
  patch_formats: ["application/merge-patch+json"]
  ${cluster}
  http_cache { in_process { max_bytes: 10000000 } }
  mercure { hub: "builtin", history_size: 1000 }
}

resource Author {
  properties { id: int { identifier: true }, name: string }
  operations { GetCollection, Post, Get, Patch }
}

resource Book {
  mercure: true
  properties { id: int { identifier: true }, title: string, author: Author }
  operations {
    GetCollection
    Post
    Get
    Patch
    GetCollection { uriTemplate: "/authors/{author}/books", links: [{ parameterName: "author", fromClass: "Author", toProperty: "author" }] }
  }
}
`;

/**
 * The same tables without cache. Its `title` names its channel: on PostgreSQL every process has a link, so a
 * twin must have another title than the instances for them not to hear its writes.
 */
export const twinService = (title: string): string => `api "${title}" { version: "1.0.0" }
config { patch_formats: ["application/merge-patch+json"] }
resource Author { properties { id: int { identifier: true }, name: string } }
resource Book { properties { id: int { identifier: true }, title: string, author: Author } }
`;

/** Tasks queued on the embedded transport and handled by `apidsl consume` (test/fixtures/http/messenger-handlers.mjs). */
const queuedService = (title: string, config: string): string => `api "${title}" { version: "1" }
config {
  ${config}
}
resource Task {
  mercure: true
  properties { id: int { identifier: true }, title: string { required: true }, handledBy: string, attempts: int, raw: string }
  operations { GetCollection {}, Get {}, Post { messenger: ${config.includes('messenger') ? 'true' : 'false'} } }
}
`;

/**
 * A server caching `/tasks` and an `apidsl consume` process on `store`, with `cluster` (a Redis, or none on
 * PostgreSQL): once the server is seen to cache (a twin's write behind its back does not show), a task queued
 * through it and handled by the consumer shows in its next pages, and the consumer's update reaches its hub.
 */
export async function expectConsumerWritesSeen(dir: string, cluster: string, store: string[]): Promise<void> {
  copyFileSync(fixture('messenger-handlers.mjs'), join(dir, 'handlers.mjs'));
  const file = join(dir, 'queued.api');
  writeFileSync(
    file,
    queuedService(
      'Queued',
      `${cluster}
  http_cache { in_process { max_bytes: 1000000 } }
  mercure { hub: "builtin" }
  messenger { transport: "embedded", handlers { Task: "./handlers.mjs#onTask" } }`,
    ),
  );
  writeFileSync(join(dir, 'twin.api'), queuedService('Twin', ''));
  const started: { stop(): Promise<unknown> }[] = [];
  const kept = <T extends { stop(): Promise<unknown> }>(running: T): T => {
    started.push(running);
    return running;
  };
  let subscription: Subscription | undefined;
  try {
    const server = kept(await startServer(file, store, 60_000));
    const twin = kept(await startServer(join(dir, 'twin.api'), store, 60_000));
    kept(await startConsumer(file, store));
    subscription = subscribe(`${server.url}/.well-known/mercure`, ['/tasks/{id}']);
    const total = async (): Promise<number> => (await request(server.url, 'GET', '/tasks')).json.totalItems;
    await subscription.opened;
    await sleep(500); // every process hears itself
    expect(await total()).to.equal(0);
    expect((await request(twin.url, 'POST', '/tasks', { body: { title: 'behind its back' } })).status).to.equal(201);
    expect(await total(), 'the page is kept in the cache').to.equal(0);
    expect((await request(server.url, 'POST', '/tasks', { body: { title: 'queued' } })).status).to.equal(202);
    let seen = 0;
    for (const deadline = Date.now() + 15_000; seen < 2 && Date.now() < deadline; await sleep(100))
      seen = await total();
    expect(seen, 'the page the consumer changed is read anew').to.equal(2);
    const [event] = await subscription.waitFor(1, 10_000);
    expect(JSON.parse(event!.data)).to.include({ title: 'queued', handledBy: 'embedded' });
  } finally {
    subscription?.close();
    await Promise.all(started.map((p) => p.stop()));
  }
}
