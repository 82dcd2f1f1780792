/**
 * Row-level scopes on pushed updates (docs/scopes.md, "Pushed updates"), with real EventSource clients on the
 * built-in Mercure hub (fixture scopes-push.api). Mercure: a scoped resource's updates are private, so the hub
 * gives them only to subscribers its JWTs authorize; with a topic per owner each user's feed carries only their
 * items, and an item that changes owner goes to the new owner's feed alone, its deletion too. GraphQL subscriptions
 * are re-run as their subscriber: each user gets only what their scope lets them read, and nothing, not even a
 * deletion, about an item once it left their scope, until it comes back.
 */
import { expect } from 'chai';
import { fixture, request, useServer, type HttpResponse } from './harness.js';
import { bearer, token } from './security-helpers.js';
import { mercureJwt, sleep, subscribe, type Subscription } from './sse-client.js';

const SUBSCRIBER_KEY = 'subscriber-key-for-scoped-push-tests-0123456789';
const PATCH = { 'Content-Type': 'application/merge-patch+json' };
/** What a subscriber following `/pings/{id}` gets for every ping: it tells that the hub delivered what came before. */
const PINGS = '/pings/{id}';

describe('row-level scopes on pushed updates (fixture scopes-push.api)', function () {
  this.timeout(60_000);
  before(() => void (process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY));
  after(() => delete process.env.MERCURE_SUBSCRIBER_JWT_KEY);
  const server = useServer(fixture('scopes-push.api'));
  const users: Record<string, Record<string, string>> = {};
  const open: Subscription[] = [];
  afterEach(() => open.splice(0).forEach((s) => s.close()));

  before(async () => {
    for (const who of ['ann', 'bob']) users[who] = bearer(await token({ sub: who }));
    users.sam = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
  });

  /** An open subscription to `topics` at `hub`, authorized by its JWT for `allowed` (none: public updates only). */
  const listen = async (topics: string[], allowed?: string[], hub = `${server.url}/.well-known/mercure`) => {
    const headers = allowed
      ? { Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: allowed })}` }
      : undefined;
    const s = subscribe(hub, topics, headers);
    open.push(s);
    await s.opened;
    return s;
  };
  const send = async (method: string, path: string, body: unknown, who: string): Promise<HttpResponse> => {
    const headers = { ...users[who], ...(method === 'PATCH' ? PATCH : {}) };
    const r = await request(server.url, method, path, { body, headers });
    expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 201, 204]);
    return r;
  };
  /** A public ping, once the updates before it had time to be built (topics read, subscriptions re-run). */
  const ping = async (): Promise<string> => {
    await sleep(200);
    return (await request(server.url, 'POST', '/pings', { body: { n: 1 } })).json['@id'] as string;
  };
  const received = (s: Subscription): Record<string, unknown>[] => s.events.map((e) => JSON.parse(e.data));

  describe('Mercure updates', () => {
    const feed = (who: string) => `/users/${who}/tasks`;

    it("gives each user's feed only their tasks, and a subscriber the hub does not authorize nothing", async () => {
      const ann = await listen([feed('ann')], [feed('ann')]);
      const bob = await listen([feed('bob')], [feed('bob')]);
      const anonymous = await listen(['*']);
      const dan = await listen(['*'], [feed('dan')]);
      for (const who of ['ann', 'bob', 'ann']) await send('POST', '/tasks', { owner: who, title: who }, who);
      expect((await ann.waitFor(2)).map((e) => JSON.parse(e.data).owner)).to.deep.equal(['ann', 'ann']);
      expect((await bob.waitFor(1)).map((e) => JSON.parse(e.data).owner)).to.deep.equal(['bob']);
      const pinged = await ping();
      for (const stranger of [anonymous, dan]) {
        await stranger.waitFor(1);
        expect(received(stranger).map((d) => d['@id'])).to.deep.equal([pinged]);
      }
      expect([ann.events.length, bob.events.length]).to.deep.equal([2, 1]);
    });

    it("sends a task that changed owner to the new owner's feed alone, its later changes and deletion too", async () => {
      const ann = await listen([feed('ann'), PINGS], [feed('ann')]);
      const bob = await listen([feed('bob')], [feed('bob')]);
      const task = (await send('POST', '/tasks', { owner: 'ann', title: 'mine' }, 'sam')).json['@id'] as string;
      await ann.waitFor(1);
      await send('PATCH', task, { owner: 'bob' }, 'sam');
      await send('PATCH', task, { title: 'yours' }, 'sam');
      await send('DELETE', task, undefined, 'sam');
      await bob.waitFor(3);
      expect(received(bob)).to.deep.include.members([{ '@id': task }]);
      expect(
        received(bob)
          .slice(0, 2)
          .map((d) => [d.owner, d.title]),
      ).to.deep.equal([
        ['bob', 'mine'],
        ['bob', 'yours'],
      ]);
      const pinged = await ping();
      await ann.waitFor(2);
      expect(received(ann).map((d) => [d['@id'], d.owner])).to.deep.equal([
        [task, 'ann'],
        [pinged, undefined],
      ]);
    });

    it('keeps the updates of a scoped resource private: published on item IRIs, and scoped on its Get alone', async () => {
      const anonymous = await listen(['*']);
      const notes = await listen(['/notes/{id}'], ['/notes/{id}']);
      const memos = await listen(['/memos/{id}'], ['/memos/{id}']);
      const note = (await send('POST', '/notes', { owner: 'ann', text: 'n' }, 'ann')).json['@id'];
      const memo = (await send('POST', '/memos', { owner: 'ann', text: 'm' }, 'ann')).json['@id'];
      expect(received(await notes.waitFor(1).then(() => notes)).map((d) => d['@id'])).to.deep.equal([note]);
      expect(received(await memos.waitFor(1).then(() => memos)).map((d) => d['@id'])).to.deep.equal([memo]);
      const pinged = await ping();
      await anonymous.waitFor(1);
      expect(received(anonymous).map((d) => d['@id'])).to.deep.equal([pinged]);
    });

    it('writes a scoped related item as its IRI in a public update, whereas a reader in its scope gets it embedded', async () => {
      const cards = await listen(['/cards/{id}']);
      const note = (await send('POST', '/notes', { owner: 'ann', text: 'inside' }, 'ann')).json['@id'];
      const card = (await send('POST', '/cards', { label: 'c', note }, 'ann')).json['@id'] as string;
      await cards.waitFor(1);
      expect(received(cards)[0]).to.include({ '@id': card, note });
      const read = await request(server.url, 'GET', card, { headers: users.ann });
      expect(read.json.note).to.include({ '@id': note, text: 'inside' });
    });

    it('lists no scoped member of a to-many relation in a public update, whereas a reader sees those in scope', async () => {
      const decks = await listen(['/decks/{id}']);
      const note = (await send('POST', '/notes', { owner: 'ann', text: 'listed' }, 'ann')).json['@id'];
      const deck = (await send('POST', '/decks', { label: 'd', notes: [note] }, 'ann')).json['@id'] as string;
      await decks.waitFor(1);
      expect(received(decks)[0]).to.deep.include({ '@id': deck, notes: [] });
      expect((await request(server.url, 'GET', deck, { headers: users.ann })).json.notes).to.deep.equal([note]);
      expect((await request(server.url, 'GET', deck, { headers: users.bob })).json.notes).to.deep.equal([]);
    });
  });

  describe('GraphQL subscriptions', () => {
    const graphql = (query: string, who: string) =>
      request(server.url, 'POST', '/graphql', {
        headers: { 'Content-Type': 'application/json', ...users[who] },
        body: JSON.stringify({ query }),
      });
    /** `who`'s subscription to `iri` selecting `{ title owner }`: its topic, or the errors when refused. */
    const subscribeTo = async (iri: string, who: string) => {
      const r = await graphql(
        `subscription { updateTaskSubscribe(input: { id: "${iri}" }) { task { title owner } mercureUrl } }`,
        who,
      );
      const payload = (r.json.data as { updateTaskSubscribe?: { mercureUrl: string } | null } | undefined)
        ?.updateTaskSubscribe;
      const topic = payload ? new URL(payload.mercureUrl).searchParams.get('topic')! : undefined;
      return { topic, errors: r.json.errors as { message: string }[] | undefined };
    };
    /** An open subscription to the topics of `who`'s subscriptions, authorized for them. */
    const follow = (topics: string[]) => listen(topics, topics);
    const task = async (owner: string, title: string): Promise<string> =>
      (await send('POST', '/tasks', { owner, title }, owner)).json['@id'] as string;

    it("re-runs each subscription as its subscriber: each user gets only their tasks' changes", async () => {
      const [annTask, bobTask] = [await task('ann', 'a'), await task('bob', 'b')];
      const refused = await subscribeTo(annTask, 'bob');
      expect(refused.topic).to.equal(undefined);
      expect(refused.errors?.map((e) => e.message)).to.deep.equal(['Not Found']);
      const ann = await follow([(await subscribeTo(annTask, 'ann')).topic!]);
      const bob = await follow([(await subscribeTo(bobTask, 'bob')).topic!]);
      await send('PATCH', annTask, { title: 'a2' }, 'sam');
      await send('PATCH', bobTask, { title: 'b2' }, 'sam');
      await ann.waitFor(1);
      await bob.waitFor(1);
      await sleep(300);
      expect(received(ann)).to.deep.equal([{ task: { title: 'a2', owner: 'ann' } }]);
      expect(received(bob)).to.deep.equal([{ task: { title: 'b2', owner: 'bob' } }]);
    });

    it("publishes under each subscriber's own path: a user's JWT, or API Platform's template, gets no other user's", async () => {
      const [annTask, bobTask] = [await task('ann', 'a'), await task('bob', 'b')];
      const [annTopic, bobTopic] = [
        (await subscribeTo(annTask, 'ann')).topic!,
        (await subscribeTo(bobTask, 'bob')).topic!,
      ];
      const own = (who: string) => `${server.url}/users/${who}/subscriptions/{id}`;
      expect([annTopic, bobTopic].map((t) => new URL(t).pathname.split('/').slice(0, 4).join('/'))).to.deep.equal([
        '/users/ann/subscriptions',
        '/users/bob/subscriptions',
      ]);
      // Both follow every topic (`*`): what they receive is what their JWT allows.
      const ann = await listen(['*'], [own('ann')]);
      const template = await listen(['*'], [`${server.url}/subscriptions/{id}`]);
      await send('PATCH', bobTask, { title: 'b2' }, 'sam');
      await send('PATCH', annTask, { title: 'a2' }, 'sam');
      await ann.waitFor(1);
      const pinged = await ping();
      await Promise.all([template.waitFor(1), ann.waitFor(2)]);
      await sleep(300);
      expect(received(ann)).to.deep.equal([{ task: { title: 'a2', owner: 'ann' } }, received(ann)[1]]);
      expect(received(ann)[1]!['@id']).to.equal(pinged);
      expect(received(template).map((d) => d['@id'])).to.deep.equal([pinged]);
    });

    it('sends nothing about a task once it left the subscriber’s scope, its deletion neither, until it comes back', async () => {
      const [moving, staying] = [await task('ann', 'moving'), await task('ann', 'staying')];
      const topics = [(await subscribeTo(moving, 'ann')).topic!, (await subscribeTo(staying, 'ann')).topic!];
      const ann = await follow(topics);
      await send('PATCH', moving, { owner: 'bob' }, 'sam');
      await send('PATCH', moving, { title: 'away' }, 'sam');
      await sleep(200);
      await send('PATCH', staying, { title: 'one' }, 'sam');
      await ann.waitFor(1);
      await send('PATCH', moving, { owner: 'ann', title: 'back' }, 'sam');
      await ann.waitFor(2);
      await send('PATCH', moving, { owner: 'bob' }, 'sam');
      await send('DELETE', moving, undefined, 'sam');
      await sleep(200);
      await send('PATCH', staying, { title: 'two' }, 'sam');
      await ann.waitFor(3);
      await sleep(300);
      expect(received(ann)).to.deep.equal([
        { task: { title: 'one', owner: 'ann' } },
        { task: { title: 'back', owner: 'ann' } },
        { task: { title: 'two', owner: 'ann' } },
      ]);
    });
  });
});
