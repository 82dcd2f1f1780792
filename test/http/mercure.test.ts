/**
 * Real-time updates through the built-in Mercure hub, observed with a real EventSource client: the order
 * and content of updates, URI-template subscriptions, private updates and subscriber JWTs, replay with
 * Last-Event-ID, publishing by POST, heartbeats, slow subscribers, and hub discovery.
 */
import { expect } from 'chai';
import { connect } from 'node:net';
import { seriousme } from '../openapi/validators.js';
import { cuttableRelay } from '../support/cuttable-relay.js';
import { fixture, request, startServer, type RunningServer } from './harness.js';
import { mercureJwt, sleep, subscribe, type Subscription } from './sse-client.js';

const PATCH = { 'Content-Type': 'application/merge-patch+json' };
const patch = (base: string, iri: string, body: unknown) => request(base, 'PATCH', iri, { body, headers: PATCH });

const SUBSCRIBER_KEY = 'subscriber-key-for-tests-0123456789';
const PUBLISHER_KEY = 'publisher-key-for-tests-0123456789';

describe('Mercure: built-in hub (fixture mercure.api)', function () {
  this.timeout(30_000);
  let server: RunningServer;
  let hub: string;
  const open: Subscription[] = [];
  const sub = async (
    topics: string[],
    headers: Record<string, string> = {},
    types: string[] = [],
  ): Promise<Subscription> => {
    const s = subscribe(hub, topics, headers, types);
    open.push(s);
    await s.opened;
    return s;
  };

  before(async () => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY;
    process.env.MERCURE_PUBLISHER_JWT_KEY = PUBLISHER_KEY;
    server = await startServer(fixture('mercure.api'));
    hub = `${server.url}/.well-known/mercure`;
  });
  afterEach(() => open.splice(0).forEach((s) => s.close()));
  after(async () => {
    delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
    delete process.env.MERCURE_PUBLISHER_JWT_KEY;
    await server?.stop();
  });

  it('a subscriber sees create, update and delete in order, each as the GET document (delete as {"@id"})', async () => {
    const s = await sub([`${server.url}/books/{id}`]);
    const created = await request(server.url, 'POST', '/books', {
      body: { title: 'Dune', secretCode: 'x', shelf: 'A3' },
    });
    expect(created.status).to.equal(201);
    expect(created.json.shelf, 'a guarded property the writer may see').to.equal('A3');
    const iri = created.json['@id'] as string;
    const patched = await patch(server.url, iri, { title: 'Dune II' });
    expect(patched.status).to.equal(200);
    const got = await request(server.url, 'GET', iri);
    expect((await request(server.url, 'DELETE', iri)).status).to.equal(204);
    const events = await s.waitFor(3);
    expect(JSON.parse(events[0].data)).to.deep.equal({ ...got.json, title: 'Dune' });
    expect(JSON.parse(events[1].data)).to.deep.equal(got.json);
    expect(JSON.parse(events[1].data)).to.not.have.property('secretCode');
    expect(JSON.parse(events[1].data)).to.not.have.property('shelf');
    expect(JSON.parse(events[2].data)).to.deep.equal({ '@id': iri });
    expect(new Set(events.map((e) => e.id)).size).to.equal(3);
  });

  it('matches URI templates, relative IRIs, exact topics and *; other topics get nothing', async () => {
    const template = await sub(['/books/{id}']);
    const all = await sub(['*']);
    const other = await sub([`${server.url}/notes/{id}`, '/secrets/{id}']);
    const created = await request(server.url, 'POST', '/books', { body: { title: 'Exact' } });
    const exact = await sub([`${server.url}${created.json['@id']}`]);
    await patch(server.url, created.json['@id'], { title: 'Exact 2' });
    await request(server.url, 'POST', '/notes', { body: { text: 'no mercure' } });
    expect((await template.waitFor(2)).map((e) => JSON.parse(e.data).title)).to.deep.equal(['Exact', 'Exact 2']);
    expect((await exact.waitFor(1))[0].data).to.contain('Exact 2');
    await all.waitFor(2);
    await sleep(300);
    expect(other.events).to.have.length(0);
    expect(all.events).to.have.length(2); // the note published nothing
  });

  it('private updates reach only subscribers whose JWT allows the topic', async () => {
    // The two that may not see the secret also follow the public books: the hub delivers in order, so once the
    // book created after the secret reaches them, the secret would have come first.
    const anonymous = await sub(['/secrets/{id}', '/books/{id}'], {}, ['secret']);
    const allowed = await sub(
      ['/secrets/{id}'],
      { Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: ['/secrets/{id}'] })}` },
      ['secret'],
    );
    const otherTopics = await sub(
      ['/secrets/{id}', '/books/{id}'],
      { Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: ['/books/{id}'] })}` },
      ['secret'],
    );
    const created = await request(server.url, 'POST', '/secrets', { body: { text: 'psst' } });
    expect(created.status).to.equal(201);
    const [event] = await allowed.waitFor(1);
    expect(event.type).to.equal('secret');
    expect(JSON.parse(event.data).text).to.equal('psst');
    expect((await request(server.url, 'POST', '/books', { body: { title: 'Public' } })).status).to.equal(201);
    for (const s of [anonymous, otherTopics]) {
      const [first] = await s.waitFor(1);
      expect([first.type, JSON.parse(first.data).title]).to.deep.equal(['message', 'Public']);
    }
  });

  it('refuses a subscriber JWT signed with another key, or not a JWT (401)', async () => {
    for (const token of [await mercureJwt('another-key-entirely-0123456789', { subscribe: ['*'] }), 'not-a-jwt']) {
      const r = await fetch(`${hub}?topic=*`, { headers: { Authorization: `Bearer ${token}` } });
      expect(r.status).to.equal(401);
      await r.body?.cancel();
    }
    const s = subscribe(hub, ['*'], { Authorization: 'Bearer not-a-jwt' });
    open.push(s);
    let failed = false;
    await s.opened.catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('replays from Last-Event-ID whatever was published after it, then goes on live', async () => {
    const first = await sub(['/books/{id}']);
    const created = await request(server.url, 'POST', '/books', { body: { title: 'Replay 1' } });
    const [seen] = await first.waitFor(1);
    first.close();
    await patch(server.url, created.json['@id'], { title: 'Replay 2' });
    await patch(server.url, created.json['@id'], { title: 'Replay 3' });
    const again = await sub(['/books/{id}'], { 'Last-Event-ID': seen.id });
    const replayed = await again.waitFor(2);
    expect(replayed.map((e) => JSON.parse(e.data).title)).to.deep.equal(['Replay 2', 'Replay 3']);
    await request(server.url, 'DELETE', created.json['@id']);
    expect(JSON.parse((await again.waitFor(3))[2].data)).to.deep.equal({ '@id': created.json['@id'] });
    // The lastEventID query parameter works as the header does, and the response says where replay starts.
    const r = await fetch(
      `${hub}?topic=${encodeURIComponent('/books/{id}')}&lastEventID=${encodeURIComponent(seen.id)}`,
    );
    expect(r.headers.get('last-event-id')).to.equal(seen.id);
    await r.body?.cancel();
  });

  it('an EventSource whose connection is cut reconnects with Last-Event-ID and misses nothing', async () => {
    const relay = await cuttableRelay(server.url);
    try {
      const s = subscribe(`${relay.url}/.well-known/mercure`, ['/books/{id}']);
      open.push(s);
      await s.opened;
      const created = await request(server.url, 'POST', '/books', { body: { title: 'Before the cut' } });
      await s.waitFor(1);
      const reconnecting = new Promise<void>((resolve) =>
        s.source.addEventListener('error', () => resolve(), { once: true }),
      );
      relay.cut();
      await reconnecting; // EventSource noticed, and will reconnect on its own (sending Last-Event-ID)
      await patch(server.url, created.json['@id'], { title: 'During the cut' });
      await request(server.url, 'DELETE', created.json['@id']);
      const events = await s.waitFor(3, 10_000);
      expect(events.map((e) => JSON.parse(e.data).title ?? JSON.parse(e.data)['@id'])).to.deep.equal([
        'Before the cut',
        'During the cut',
        created.json['@id'],
      ]);
    } finally {
      relay.close();
    }
  });

  it('the history is bounded: an id older than it replays all it still holds, and says earliest', async () => {
    const s = await sub(['/books/{id}']);
    await request(server.url, 'POST', '/books', { body: { title: 'Old' } });
    const [old] = await s.waitFor(1);
    for (let i = 0; i < 25; i++) await request(server.url, 'POST', '/notes', { body: { text: 'filler' } });
    for (let i = 0; i < 21; i++) await request(server.url, 'POST', '/secrets', { body: { text: `s${i}` } });
    await request(server.url, 'POST', '/books', { body: { title: 'New' } });
    const r = await fetch(`${hub}?topic=${encodeURIComponent('/books/{id}')}`, {
      headers: { 'Last-Event-ID': old.id },
    });
    expect(r.headers.get('last-event-id')).to.equal('earliest');
    await r.body?.cancel();
    const replay = await sub(['/books/{id}'], { 'Last-Event-ID': old.id });
    expect(JSON.parse((await replay.waitFor(1))[0].data).title).to.equal('New');
  });

  it('publishes a POSTed update for a publisher JWT allowing the topic; refuses others (401, 403)', async () => {
    const s = await sub(['urn:example:topic']);
    const form = (topic: string) => new URLSearchParams({ topic, data: 'hello' }).toString();
    const post = async (token: string | undefined, topic: string) =>
      fetch(hub, {
        method: 'POST',
        body: form(topic),
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
      });
    expect((await post(undefined, 'urn:example:topic')).status).to.equal(401);
    expect((await post(await mercureJwt(SUBSCRIBER_KEY, { publish: ['*'] }), 'urn:example:topic')).status).to.equal(
      401,
    );
    expect(
      (await post(await mercureJwt(PUBLISHER_KEY, { publish: ['urn:other'] }), 'urn:example:topic')).status,
    ).to.equal(403);
    const ok = await post(await mercureJwt(PUBLISHER_KEY, { publish: ['urn:example:{x}'] }), 'urn:example:topic');
    expect(ok.status).to.equal(200);
    const id = await ok.text();
    const [event] = await s.waitFor(1);
    expect(event).to.deep.include({ id, data: 'hello' });
  });

  it('sends heartbeats on an idle subscription', async () => {
    const r = await fetch(`${hub}?topic=urn:idle`);
    expect(r.headers.get('content-type')).to.match(/^text\/event-stream/);
    const reader = r.body!.getReader();
    let text = '';
    const until = Date.now() + 2500;
    while (Date.now() < until && (text.match(/:\n\n/g) ?? []).length < 2)
      text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect((text.match(/:\n\n/g) ?? []).length).to.be.at.least(2); // the opening comment, then a heartbeat
  });

  it('drops a subscriber that does not read, instead of buffering for it', async () => {
    const url = new URL(hub);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.write(`GET /.well-known/mercure?topic=*&x=1 HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    socket.pause(); // never reads: the kernel buffers fill, then the hub's
    const big = 'x'.repeat(60_000);
    for (let i = 0; i < 150 && !closed; i++) await request(server.url, 'POST', '/books', { body: { title: big } });
    await sleep(200);
    socket.resume();
    const until = Date.now() + 15_000; // generous: a hub that buffered for it would never close it
    while (!closed && Date.now() < until) await sleep(50);
    expect(closed).to.equal(true);
    // The service is fine.
    expect((await request(server.url, 'GET', '/books?itemsPerPage=1')).status).to.equal(200);
  });

  it('announces the hub with Link rel="mercure" on responses of publishing resources only', async () => {
    const books = await request(server.url, 'GET', '/books');
    expect(books.headers.get('link')).to.contain(`<${hub}>; rel="mercure"`);
    const notes = await request(server.url, 'GET', '/notes');
    expect(notes.headers.get('link')).to.not.contain('rel="mercure"');
  });

  it('documents the hub: the Link header in OpenAPI (still a valid document), a note on the Hydra class', async () => {
    const openapi = await request(server.url, 'GET', '/docs.json');
    expect((await seriousme(openapi.json)).valid).to.equal(true);
    const link = openapi.json.paths['/books'].post.responses['201'].headers.Link;
    expect(link.description).to.contain('</.well-known/mercure>; rel="mercure"');
    expect(openapi.json.paths['/notes'].post.responses['201'].headers?.Link).to.equal(undefined);
    const hydra = await request(server.url, 'GET', '/docs.jsonld');
    const classes = hydra.json['hydra:supportedClass'] ?? hydra.json.supportedClass;
    const book = (classes as { '@id': string; 'hydra:description'?: string; description?: string }[]).find(
      (c) => c['@id'] === '#Book',
    )!;
    expect(book['hydra:description'] ?? book.description).to.contain(hub);
  });

  it('answers 400 to a subscription without topic, 405 to other methods', async () => {
    const r = await fetch(hub);
    expect(r.status).to.equal(400);
    expect((await fetch(hub, { method: 'DELETE' })).status).to.be.oneOf([404, 405]);
  });
});
