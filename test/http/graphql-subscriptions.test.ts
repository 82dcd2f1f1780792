/**
 * GraphQL subscriptions over the built-in Mercure hub (docs/graphql.md, "Subscriptions"), against a real
 * `apidsl serve`: the schema's names, subscribing (the item now and a mercureUrl), and what an EventSource on that
 * URL receives after REST and GraphQL writes: the selected fields as the subscriber sees them, one topic per
 * selection, private updates for a private resource, a delete; a subscription security denies.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findMercure, MERCURE_MISSING, startOfficialHub, type RunningHub } from '../support/mercure-hub.js';
import { fixture, get, request, useServer, type HttpResponse } from './harness.js';
import { suiteDatabase } from './lasting-store.js';
import { startServer, tempDir, type RunningServer } from './harness.js';
import { bearer, token } from './security-helpers.js';
import { mercureJwt, sleep, subscribe, type Subscription } from './sse-client.js';

const SUBSCRIBER_KEY = 'subscriber-key-for-graphql-tests-0123456789';
const PUBLISHER_KEY = 'publisher-key-for-graphql-tests-0123456789';

/** The hub keys, set before a server starts (other suites set and delete their own). */
function useHubKeys(): void {
  before(() => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY;
    process.env.MERCURE_PUBLISHER_JWT_KEY = PUBLISHER_KEY;
  });
  after(() => {
    delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
    delete process.env.MERCURE_PUBLISHER_JWT_KEY;
  });
}

const PATCH = { 'Content-Type': 'application/merge-patch+json' };

const graphql = (base: string, query: string, headers: Record<string, string> = {}): Promise<HttpResponse> =>
  request(base, 'POST', '/graphql', {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

/** An EventSource on a mercureUrl (not yet open). */
function listenAt(mercureUrl: string, headers: Record<string, string> = {}): Subscription {
  const url = new URL(mercureUrl);
  return subscribe(`${url.origin}${url.pathname}`, url.searchParams.getAll('topic'), headers);
}

/** A new book titled `title`, subscribed to with `{ book { title } }`: its IRI and the subscription's mercureUrl. */
async function subscribedBook(base: string, title: string): Promise<{ iri: string; mercureUrl: string }> {
  const created = await request(base, 'POST', '/books', { body: { title } });
  const iri = created.json['@id'] as string;
  const r = await graphql(
    base,
    `subscription { updateBookSubscribe(input: { id: "${iri}" }) { book { title } mercureUrl } }`,
  );
  return { iri, mercureUrl: (r.json.data as any).updateBookSubscribe.mercureUrl as string };
}

interface Subscribed {
  data: Record<string, unknown>;
  mercureUrl: string;
  topic: string;
}

describe('GraphQL subscriptions (built-in Mercure hub)', function () {
  this.timeout(30_000);
  useHubKeys();
  const server = useServer(fixture('graphql-subscriptions.api'));
  const open: Subscription[] = [];
  afterEach(() => open.splice(0).forEach((s) => s.close()));

  const create = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<string> => {
    const r = await request(server.url, 'POST', path, { body, headers });
    expect(r.status, JSON.stringify(r.json)).to.equal(201);
    return r.json['@id'] as string;
  };

  /** Runs `update<Type>Subscribe` on `iri` with `selection` for the item field; expects no error. */
  const subscribeTo = async (
    type: string,
    iri: string,
    selection: string,
    headers: Record<string, string> = {},
  ): Promise<Subscribed> => {
    const r = await graphql(
      server.url,
      `subscription { update${type}Subscribe(input: { id: "${iri}", clientSubscriptionId: "cid" }) { ${type.toLowerCase()} ${selection} mercureUrl clientSubscriptionId } }`,
      headers,
    );
    expect(r.status).to.equal(200);
    expect(r.json.errors, JSON.stringify(r.json.errors)).to.equal(undefined);
    const payload = (r.json.data as Record<string, Record<string, unknown>>)[`update${type}Subscribe`]!;
    expect(payload.clientSubscriptionId).to.equal('cid');
    const url = new URL(payload.mercureUrl as string);
    return { data: payload, mercureUrl: payload.mercureUrl as string, topic: url.searchParams.get('topic')! };
  };

  /** An EventSource on a mercureUrl, open. */
  const listen = async (mercureUrl: string, headers: Record<string, string> = {}): Promise<Subscription> => {
    const s = listenAt(mercureUrl, headers);
    open.push(s);
    await s.opened;
    return s;
  };

  const dataOf = (s: Subscription, index: number): unknown => JSON.parse(s.events[index]!.data);

  it('has API Platform’s Subscription type: update<Type>Subscribe(input): update<Type>SubscriptionPayload', async () => {
    const r = await graphql(
      server.url,
      `
        {
          __type(name: "Subscription") {
            fields {
              name
              description
              type {
                name
                kind
              }
              args {
                name
                type {
                  kind
                  ofType {
                    name
                    kind
                  }
                }
              }
            }
          }
          input: __type(name: "updateBookSubscriptionInput") {
            inputFields {
              name
              type {
                kind
                name
                ofType {
                  name
                }
              }
            }
          }
          payload: __type(name: "updateBookSubscriptionPayload") {
            fields {
              name
              type {
                name
              }
            }
          }
        }
      `,
    );
    const data = r.json.data as Record<string, any>;
    const book = (data.__type.fields as any[]).find((f) => f.name === 'updateBookSubscribe');
    expect(book).to.deep.equal({
      name: 'updateBookSubscribe',
      description: 'Subscribes to the update event of a Book.',
      type: { name: 'updateBookSubscriptionPayload', kind: 'OBJECT' },
      args: [
        {
          name: 'input',
          type: { kind: 'NON_NULL', ofType: { name: 'updateBookSubscriptionInput', kind: 'INPUT_OBJECT' } },
        },
      ],
    });
    expect((data.__type.fields as any[]).map((f) => f.name)).to.have.members([
      'updateBookSubscribe',
      'updateSecretSubscribe',
      'updateVaultSubscribe',
    ]);
    expect(data.input.inputFields).to.deep.equal([
      { name: 'id', type: { kind: 'NON_NULL', name: null, ofType: { name: 'ID' } } },
      { name: 'clientSubscriptionId', type: { kind: 'SCALAR', name: 'String', ofType: null } },
    ]);
    expect((data.payload.fields as any[]).map((f) => [f.name, f.type.name])).to.have.deep.members([
      ['book', 'Book'],
      ['mercureUrl', 'String'],
      ['clientSubscriptionId', 'String'],
    ]);
  });

  it('answers the item now and a mercureUrl on the hub whose topic is <origin>/subscriptions/<id>; the same subscription twice is one', async () => {
    const iri = await create('/books', { title: 'Dune', author: 'Herbert' });
    const first = await subscribeTo('Book', iri, '{ id title }');
    expect(first.data.book).to.deep.equal({ id: iri, title: 'Dune' });
    expect(first.mercureUrl.startsWith(`${server.url}/.well-known/mercure?topic=`)).to.equal(true);
    expect(first.topic).to.match(new RegExp(`^${server.url}/subscriptions/[a-f0-9]+$`));
    const again = await subscribeTo('Book', iri, '{ id title }');
    expect(again.mercureUrl).to.equal(first.mercureUrl);
  });

  it('publishes the selected fields after a REST PATCH and after a GraphQL update mutation', async () => {
    const iri = await create('/books', { title: 'Emma', author: 'Austen' });
    const { mercureUrl } = await subscribeTo('Book', iri, '{ id title }');
    const s = await listen(mercureUrl);
    expect((await request(server.url, 'PATCH', iri, { body: { title: 'Emma 2' }, headers: PATCH })).status).to.equal(
      200,
    );
    await s.waitFor(1);
    expect(dataOf(s, 0)).to.deep.equal({ book: { id: iri, title: 'Emma 2' } });
    const mutation = await graphql(
      server.url,
      `mutation { updateBook(input: { id: "${iri}", title: "Emma 3" }) { book { id } } }`,
    );
    expect(mutation.json.errors).to.equal(undefined);
    await s.waitFor(2);
    expect(dataOf(s, 1)).to.deep.equal({ book: { id: iri, title: 'Emma 3' } });
  });

  it('keeps the fragments and variables of the selection when it runs it again', async () => {
    const iri = await create('/books', { title: 'Middlemarch', author: 'Eliot' });
    const r = await request(server.url, 'POST', '/graphql', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        query: `subscription S($id: ID!) { updateBookSubscribe(input: { id: $id }) { book { ...T } mercureUrl } }
                fragment T on Book { title }`,
        variables: { id: iri },
      }),
    });
    const payload = (r.json.data as Record<string, Record<string, unknown>>).updateBookSubscribe!;
    expect(payload.book).to.deep.equal({ title: 'Middlemarch' });
    const s = await listen(payload.mercureUrl as string);
    await request(server.url, 'PATCH', iri, { body: { title: 'Middlemarch II' }, headers: PATCH });
    await s.waitFor(1);
    expect(dataOf(s, 0)).to.deep.equal({ book: { title: 'Middlemarch II' } });
  });

  it('gives two selections of one item two topics, each with its own fields', async () => {
    const iri = await create('/books', { title: 'Ulysses', author: 'Joyce' });
    const ids = await subscribeTo('Book', iri, '{ id }');
    const titled = await subscribeTo('Book', iri, '{ title author }');
    expect(ids.topic).to.not.equal(titled.topic);
    const a = await listen(ids.mercureUrl);
    const b = await listen(titled.mercureUrl);
    await request(server.url, 'PATCH', iri, { body: { author: 'James Joyce' }, headers: PATCH });
    await a.waitFor(1);
    await b.waitFor(1);
    // A second change reaches both after anything the first one sent them.
    await request(server.url, 'PATCH', iri, { body: { title: 'Ulysses II' }, headers: PATCH });
    await a.waitFor(2);
    await b.waitFor(2);
    expect(a.events.map((e) => JSON.parse(e.data))).to.deep.equal([{ book: { id: iri } }, { book: { id: iri } }]);
    expect(b.events.map((e) => JSON.parse(e.data))).to.deep.equal([
      { book: { title: 'Ulysses', author: 'James Joyce' } },
      { book: { title: 'Ulysses II', author: 'James Joyce' } },
    ]);
  });

  it('re-executes as the subscriber: a field property security hides from them is null', async () => {
    const admin = bearer(await token({ sub: 'root', roles: ['ROLE_ADMIN'] }));
    const iri = await create('/books', { title: 'Kim', shelf: 'A1' }, admin);
    const asAdmin = await subscribeTo('Book', iri, '{ title shelf }', admin);
    const asAnyone = await subscribeTo('Book', iri, '{ title shelf }');
    expect(asAdmin.data.book).to.deep.equal({ title: 'Kim', shelf: 'A1' });
    expect(asAnyone.data.book).to.deep.equal({ title: 'Kim', shelf: null });
    expect(asAdmin.topic, 'who subscribed is part of the subscription').to.not.equal(asAnyone.topic);
    const adminEvents = await listen(asAdmin.mercureUrl);
    const anyoneEvents = await listen(asAnyone.mercureUrl);
    await request(server.url, 'PATCH', iri, { body: { shelf: 'B2' }, headers: { ...PATCH, ...admin } });
    await adminEvents.waitFor(1);
    await anyoneEvents.waitFor(1);
    expect(dataOf(adminEvents, 0)).to.deep.equal({ book: { title: 'Kim', shelf: 'B2' } });
    expect(dataOf(anyoneEvents, 0)).to.deep.equal({ book: { title: 'Kim', shelf: null } });
  });

  it('publishes a delete as API Platform does: {type: "delete", payload: {id, iri, type}}', async () => {
    const iri = await create('/books', { title: 'Gone' });
    const { mercureUrl } = await subscribeTo('Book', iri, '{ id title }');
    const s = await listen(mercureUrl);
    expect((await request(server.url, 'DELETE', iri)).status).to.equal(204);
    await s.waitFor(1);
    expect(dataOf(s, 0)).to.deep.equal({
      type: 'delete',
      payload: { id: iri, iri: `${server.url}${iri}`, type: 'Book' },
    });
  });

  it('makes the updates of a private resource private: only a subscriber JWT for the topic receives them', async () => {
    const iri = await create('/secrets', { text: 'psst' });
    const { mercureUrl, topic } = await subscribeTo('Secret', iri, '{ text }');
    // The refused subscribers also follow a public book: the hub delivers in order, so once the book's update,
    // sent after the secret's, reaches them, the secret's would have come first.
    const book = await create('/books', { title: 'Public' });
    const bookTopic = (await subscribeTo('Book', book, '{ title }')).topic;
    const withBook = `${mercureUrl}&topic=${encodeURIComponent(bookTopic)}`;
    const anonymous = await listen(withBook);
    const otherTopic = await listen(withBook, {
      Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: [`${server.url}/books/{id}`] })}`,
    });
    const allowed = await listen(mercureUrl, {
      Authorization: `Bearer ${await mercureJwt(SUBSCRIBER_KEY, { subscribe: [topic] })}`,
    });
    const wrongKey = subscribe(new URL(mercureUrl).origin + '/.well-known/mercure', [topic], {
      Authorization: `Bearer ${await mercureJwt('not-the-key-of-this-hub-0123456789', { subscribe: [topic] })}`,
    });
    open.push(wrongKey);
    let refused = '';
    await wrongKey.opened.catch((e: Error) => (refused = e.message));
    expect(refused).to.contain('401');
    await request(server.url, 'PATCH', iri, { body: { text: 'PSST' }, headers: PATCH });
    await allowed.waitFor(1);
    expect(dataOf(allowed, 0)).to.deep.equal({ secret: { text: 'PSST' } });
    await request(server.url, 'PATCH', book, { body: { title: 'Public II' }, headers: PATCH });
    for (const other of [anonymous, otherTopic]) {
      await other.waitFor(1);
      expect(other.events.map((e) => JSON.parse(e.data))).to.deep.equal([{ book: { title: 'Public II' } }]);
    }
  });

  it('refuses a subscription security denies (401 anonymous, 403), one to an item that does not exist (404), and one sent by GET (405)', async () => {
    const admin = bearer(await token({ sub: 'root', roles: ['ROLE_ADMIN'] }));
    const user = bearer(await token({ sub: 'alice', roles: ['ROLE_USER'] }));
    const iri = await create('/vaults', { content: 'gold' }, admin);
    const query = `subscription { updateVaultSubscribe(input: { id: "${iri}" }) { vault { content } mercureUrl } }`;
    const anonymous = await graphql(server.url, query);
    expect((anonymous.json.errors as any[]).map((e) => e.extensions.status)).to.deep.equal([401]);
    const denied = await graphql(server.url, query, user);
    expect(denied.json.data).to.deep.equal({ updateVaultSubscribe: null });
    expect((denied.json.errors as any[]).map((e) => e.extensions.status)).to.deep.equal([403]);
    const allowed = await graphql(server.url, query, admin);
    expect((allowed.json.data as any).updateVaultSubscribe.vault).to.deep.equal({ content: 'gold' });

    const missing = await graphql(
      server.url,
      'subscription { updateBookSubscribe(input: { id: "/books/999999" }) { book { id } mercureUrl } }',
    );
    expect((missing.json.errors as any[]).map((e) => e.extensions.status)).to.deep.equal([404]);

    const overGet = await get(
      server.url,
      `/graphql?query=${encodeURIComponent(`subscription { updateBookSubscribe(input: { id: "/books/1" }) { mercureUrl } }`)}`,
    );
    expect(overGet.status).to.equal(405);
    expect(overGet.headers.get('allow')).to.equal('POST');
  });

  it('checks a subscription against the schema and the limits before it runs', async () => {
    const r = await graphql(server.url, 'subscription { updateBookSubscribe(input: { id: "/books/1" }) { nope } }');
    expect((r.json.errors as any[]).map((e) => e.extensions.status)).to.deep.equal([400]);
    expect(r.json.data).to.equal(undefined);
    // max_query_complexity (500 by default) counts every alias.
    const aliases = Array.from({ length: 600 }, (_, i) => `t${i}: title`).join(' ');
    const costly = await graphql(
      server.url,
      `subscription { updateBookSubscribe(input: { id: "/books/1" }) { book { ${aliases} } } }`,
    );
    expect((costly.json.errors as any[])[0].message).to.match(/complexity/i);
    expect((costly.json.errors as any[])[0].extensions.status).to.equal(400);
    expect(costly.json.data).to.equal(undefined);
  });
});

describe('GraphQL subscriptions: a message handler’s write', function () {
  this.timeout(30_000);
  useHubKeys();
  const server = useServer(fixture('graphql-subscriptions-messenger.api'));

  it('is published to the subscriptions of the item it stores', async () => {
    const { iri, mercureUrl } = await subscribedBook(server.url, 'Persuasion');
    const s = listenAt(mercureUrl);
    try {
      await s.opened;
      const patched = await request(server.url, 'PATCH', iri, { body: { title: 'Persuasion II' }, headers: PATCH });
      expect(patched.status, 'dispatched to the handler').to.equal(202);
      const [event] = await s.waitFor(1);
      expect(JSON.parse(event!.data)).to.deep.equal({ book: { title: 'Persuasion II (handled)' } });
    } finally {
      s.close();
    }
  });
});

describe('GraphQL subscriptions with --workers 2', () => {
  it('warns at start that a subscription hears only the writes of the process that registered it', async function () {
    this.timeout(90_000);
    const store = suiteDatabase() ? [] : ['--data', join(tempDir(), 'data')];
    const server = await startServer(fixture('graphql-subscriptions.api'), [...store, '--workers', '2'], 60_000);
    try {
      const warning = /apidsl serve: warning: GraphQL subscriptions are kept by the process that registered them/;
      for (let waited = 0; !warning.test(server.output()) && waited < 5000; waited += 100) await sleep(100);
      expect(server.output()).to.match(warning);
    } finally {
      await server.stop();
    }
  });
});

/**
 * The official hub when its binary is there (CI builds it). Without it, CI=true fails; elsewhere our built-in
 * hub in a process of its own stands in, and says so.
 */
async function startExternalHub(): Promise<RunningHub> {
  const official = findMercure();
  if (official) return startOfficialHub(official, { publisher: PUBLISHER_KEY, subscriber: SUBSCRIBER_KEY });
  if (process.env.CI === 'true') throw new Error(`CI=true and ${MERCURE_MISSING}`);
  process.stderr.write(`\n!!! GraphQL external-hub test uses our built-in hub: ${MERCURE_MISSING}.\n\n`);
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-hub-'));
  const file = join(dir, 'hub.api');
  writeFileSync(file, 'api "Hub" { version: "1" }\nconfig {\n  mercure { hub: "builtin" }\n}\n');
  const hub = await startServer(file);
  return { url: `${hub.url}/.well-known/mercure`, stop: async () => void (await hub.stop()) };
}

describe('GraphQL subscriptions with an external hub', function () {
  this.timeout(60_000);
  useHubKeys();
  let hub: RunningHub;
  let server: RunningServer;
  before(async () => {
    hub = await startExternalHub();
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-subscriptions-'));
    const file = join(dir, 'books.api');
    writeFileSync(
      file,
      readFileSync(fixture('graphql-subscriptions.api'), 'utf8').replace('hub: "builtin"', `hub: "${hub.url}"`),
    );
    server = await startServer(file);
  });
  after(async () => {
    await server?.stop();
    await hub?.stop();
  });

  it('gives the external hub’s URL and publishes there', async () => {
    const { iri, mercureUrl } = await subscribedBook(server.url, 'Far');
    expect(mercureUrl.startsWith(`${hub.url}?topic=`)).to.equal(true);
    const s = listenAt(mercureUrl);
    try {
      await s.opened;
      await request(server.url, 'PATCH', iri, { body: { title: 'Farther' }, headers: PATCH });
      const [event] = await s.waitFor(1, 15_000);
      expect(JSON.parse(event!.data)).to.deep.equal({ book: { title: 'Farther' } });
    } finally {
      s.close();
    }
  });
});
