/**
 * The runnable examples of docs/realtime.md and docs/messenger.md, served as those pages say:
 * examples/live-books.api (a subscriber of the built-in hub sees a created book; a review's private update
 * needs a token) and examples/async-books.api with `--consume` (202, then the worker's result).
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../support/paths.js';
import { request, startServer, type RunningServer } from './harness.js';
import { eventually } from './messenger-fixture.js';
import { mercureJwt, subscribe } from './sse-client.js';

describe('examples: live-books.api and async-books.api', function () {
  this.timeout(60_000);

  it('live-books.api: a subscriber of /books/{id} sees a created book; reviews only with a token', async () => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = 'change-me-change-me-change-me-0123';
    const server: RunningServer = await startServer(fromRoot('examples/live-books.api'));
    const hub = `${server.url}/.well-known/mercure`;
    const books = subscribe(hub, ['/books/{id}']);
    // Also follows the public books: once a book created after the review reaches it, the review would have
    // come first (the hub delivers in order).
    const anonymous = subscribe(hub, ['/reviews/{id}', '/books/{id}']);
    const reviewer = subscribe(hub, ['/reviews/{id}'], {
      Authorization: `Bearer ${await mercureJwt(process.env.MERCURE_SUBSCRIBER_JWT_KEY, { subscribe: ['/reviews/{id}'] })}`,
    });
    try {
      await Promise.all([books.opened, anonymous.opened, reviewer.opened]);
      const created = await request(server.url, 'POST', '/books', { body: { title: 'Dune' } });
      expect(created.status).to.equal(201);
      expect(JSON.parse((await books.waitFor(1))[0].data)).to.include({ title: 'Dune', '@id': created.json['@id'] });
      expect(
        (await request(server.url, 'POST', '/reviews', { body: { book: created.json['@id'], rating: 5 } })).status,
      ).to.equal(201);
      expect(JSON.parse((await reviewer.waitFor(1))[0].data).rating).to.equal(5);
      const later = await request(server.url, 'POST', '/books', { body: { title: 'Later' } });
      expect(later.status).to.equal(201);
      const seen = (await anonymous.waitFor(2)).map((e) => JSON.parse(e.data)['@id']);
      expect(seen).to.deep.equal([created.json['@id'], later.json['@id']]);
    } finally {
      [books, anonymous, reviewer].forEach((s) => s.close());
      delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
      await server.stop();
    }
  });

  it('async-books.api with --consume: 202 at once, the worker stores the processed book and the imports', async () => {
    // --data: the embedded queue needs the embedded store (also when the suite runs against MongoDB).
    const server = await startServer(fromRoot('examples/async-books.api'), [
      '--data',
      mkdtempSync(join(tmpdir(), 'apidsl-async-books-')),
      '--consume',
    ]);
    try {
      const r = await request(server.url, 'POST', '/books', { body: { title: 'Dune' } });
      expect(r.status).to.equal(202);
      expect(
        (await request(server.url, 'POST', '/imports', { body: { titles: ['Emma', 'Ulysses'] } })).status,
      ).to.equal(202);
      type Books = { member: { title: string; status: string }[] };
      const books = await eventually<Books>(server.url, '/books', (b) => b.member.length === 3);
      expect(books.member.map((b) => [b.title, b.status]).sort()).to.deep.equal([
        ['Dune', 'processed'],
        ['Emma', 'imported'],
        ['Ulysses', 'imported'],
      ]);
    } finally {
      await server.stop();
    }
  });
});
