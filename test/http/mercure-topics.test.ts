/**
 * Mercure topics written as expressions (fixture mercure-topics.api; docs/realtime.md, "Topics as expressions"),
 * observed through the built-in hub with a real EventSource client: `@=iri(object)` is the item's absolute IRI,
 * `@='/users/' ~ object.owner ~ '/orders'` a private per-user feed that only a subscriber authorized for that
 * topic receives, and a topic read through the `shop` relation with `escape()`; a topic without `@=` is published
 * as written. On both stores (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { request, startServer, fixture, type RunningServer } from './harness.js';
import { mercureJwt, sleep, subscribe, type Subscription } from './sse-client.js';

const SUBSCRIBER_KEY = 'subscriber-key-for-tests-0123456789';

describe('Mercure: topics written as expressions (fixture mercure-topics.api)', function () {
  this.timeout(30_000);
  let server: RunningServer;
  let hub: string;
  const open: Subscription[] = [];
  /** A subscription to `topics`, authorized (private updates) for `allowed`. */
  const sub = async (topics: string[], allowed?: string[]): Promise<Subscription> => {
    const headers: Record<string, string> = allowed
      ? { Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: allowed })}` }
      : {};
    const s = subscribe(hub, topics, headers);
    open.push(s);
    await s.opened;
    return s;
  };
  const order = async (body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await request(server.url, 'POST', '/orders', { body });
    expect(r.status, r.text).to.equal(201);
    return r.json;
  };
  let shop: string;

  before(async () => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY;
    server = await startServer(fixture('mercure-topics.api'));
    hub = `${server.url}/.well-known/mercure`;
    const created = await request(server.url, 'POST', '/shops', { body: { owner: 'carol & co' } });
    expect(created.status, created.text).to.equal(201);
    shop = created.json['@id'] as string;
  });
  afterEach(() => open.splice(0).forEach((s) => s.close()));
  after(async () => {
    delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
    await server?.stop();
  });

  it("a private per-user feed: '/users/' ~ object.owner ~ '/orders' reaches the subscriber authorized for it only", async () => {
    const alice = await sub(['/users/alice/orders'], ['/users/alice/orders']);
    // Bob follows every user's feed, but his JWT allows his own only.
    const bob = await sub(['/users/{name}/orders'], ['/users/bob/orders']);
    const anonymous = await sub(['/users/alice/orders', '/users/bob/orders']);
    const first = await order({ reference: 'a1', owner: 'alice', shop });
    await order({ reference: 'b1', owner: 'bob', shop });
    const [forAlice] = await alice.waitFor(1);
    expect(JSON.parse(forAlice.data)).to.include({ '@id': first['@id'], reference: 'a1' });
    // Updates come in order: once Bob has his, Alice's (published first) would have come before it.
    const [forBob] = await bob.waitFor(1);
    expect(JSON.parse(forBob.data)).to.include({ reference: 'b1' });
    await sleep(300);
    expect(alice.events).to.have.length(1);
    expect(anonymous.events, 'private updates reach no anonymous subscriber').to.deep.equal([]);
  });

  it('@=iri(object) is the absolute IRI; a literal topic is published as written', async () => {
    const byIri = await sub([`${server.url}/orders/{id}`], [`${server.url}/orders/{id}`]);
    const literal = await sub(['/orders'], ['/orders']);
    const created = await order({ reference: 'i1', owner: 'dave', shop });
    for (const s of [byIri, literal]) {
      const [event] = await s.waitFor(1);
      expect(JSON.parse(event.data)).to.include({ '@id': created['@id'], reference: 'i1' });
    }
  });

  it('a topic read through a relation: object.shop.owner and iri(object.shop), escaped', async () => {
    const topic = `/shops/carol%20%26%20co/orders?of=${encodeURIComponent(`${server.url}${shop}`)}`;
    const s = await sub([topic], [topic]);
    const other = await sub(['/shops/{owner}/orders'], ['/shops/{owner}/orders']);
    await order({ reference: 'r1', owner: 'erin', shop });
    const [event] = await s.waitFor(1);
    expect(JSON.parse(event.data)).to.include({ reference: 'r1' });
    await sleep(200);
    // The query string is part of the topic: the template without it matches nothing.
    expect(other.events).to.deep.equal([]);
  });

  it('an update whose topic expression fails (no shop: object.shop.owner of null) is not published', async () => {
    const all = await sub(['/orders'], ['*']);
    await order({ reference: 'no-shop', owner: 'frank' });
    await order({ reference: 'after', owner: 'frank', shop });
    const [event] = await all.waitFor(1);
    expect(JSON.parse(event.data)).to.include({ reference: 'after' });
    await sleep(200);
    expect(all.events).to.have.length(1);
  });
});
