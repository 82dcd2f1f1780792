/**
 * Values the server sets (docs/behaviour.md, "Values the server sets"): `default: now` on datetime and date,
 * `onUpdate: now`, and `default: { expression: … }` with `user` in scope, on every write path (POST, PUT, PUT that
 * creates, PATCH, a bulk POST's items, GraphQL mutations); such properties are read-only unless they say
 * `readOnly: false`. A default that cannot be computed refuses the write (401 anonymous, 403 a user). Runs on
 * both stores (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { type HttpResponse, PROBLEM_JSON, fixture, get, request, useServer } from './harness.js';
import { as, users } from './security-helpers.js';
import { graphql } from './graphql-helpers.js';

/** A datetime in the stored form: UTC, API Platform's `Y-m-d\TH:i:sP`, milliseconds when not zero. */
const STORED_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+00:00$/;
const LONG_AGO = '2001-02-03T04:05:06+00:00';

describe('HTTP values the server sets (default: now, onUpdate: now, default: { expression })', () => {
  const server = useServer(fixture('server-values.api'));
  let tokens: Awaited<ReturnType<typeof users>>;
  before(async () => {
    tokens = await users();
  });

  const write = (t: string | undefined, method: string, path: string, body: unknown): Promise<HttpResponse> =>
    as(t, server.url, method, path, {
      body: JSON.stringify(body),
      headers: { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json' },
    });

  /** The server's answers are its stored values: the stored item read back equals the write's answer. */
  const expectStored = async (r: HttpResponse): Promise<void> => {
    const read = await get(server.url, r.json['@id'] as string);
    expect(read.json).to.deep.equal(r.json);
  };

  it('fills a created item: the time of the create, its UTC date, the user; ignores what the body says of them', async () => {
    const lower = new Date().toISOString();
    const r = await write(tokens.alice, 'POST', '/articles', {
      title: 'Dune',
      createdAt: LONG_AGO,
      createdOn: '2001-02-03',
      owner: 'mallory',
    });
    const upper = new Date().toISOString();
    expect(r.status, r.text).to.equal(201);
    const { createdAt, createdOn, updatedAt, publishedAt, owner } = r.json;
    expect(createdAt).to.match(STORED_DATETIME);
    // The time of the create: between the moments before and after the request (string order is time order).
    expect(new Date(createdAt).toISOString() >= lower.slice(0, 19)).to.equal(true);
    expect(new Date(createdAt).toISOString() <= upper).to.equal(true);
    expect([lower.slice(0, 10), upper.slice(0, 10)]).to.include(createdOn);
    expect(updatedAt).to.equal(createdAt);
    expect(publishedAt).to.equal(createdAt);
    expect(owner).to.equal('alice');
    await expectStored(r);
  });

  it('takes a value a client gives where the property says readOnly: false, but onUpdate: now overrides it', async () => {
    const r = await write(tokens.alice, 'POST', '/articles', {
      title: 'Emma',
      publishedAt: '2001-02-03T05:05:06+01:00',
      updatedAt: LONG_AGO,
    });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.publishedAt).to.equal(LONG_AGO);
    expect(r.json.updatedAt).to.match(STORED_DATETIME).and.not.equal(LONG_AGO);
  });

  it('stamps every update (PATCH, PUT) and keeps the create values and the owner', async () => {
    const created = await write(tokens.alice, 'POST', '/articles', { title: 'Kim' });
    const iri = created.json['@id'] as string;
    // An old updatedAt stored first (through a value the client may give) shows the stamp replacing it.
    for (const [method, body] of [
      ['PATCH', { title: 'Kim II', updatedAt: LONG_AGO }],
      ['PUT', { title: 'Kim III', updatedAt: LONG_AGO }],
    ] as const) {
      const r = await write(tokens.bob, method, iri, body);
      expect(r.status, r.text).to.equal(200);
      expect(r.json.updatedAt, method).to.match(STORED_DATETIME).and.not.equal(LONG_AGO);
      expect(r.json.updatedAt >= created.json.updatedAt, method).to.equal(true);
      expect(r.json).to.include({
        createdAt: created.json.createdAt,
        createdOn: created.json.createdOn,
        publishedAt: created.json.publishedAt,
        owner: 'alice',
      });
      await expectStored(r);
    }
  });

  it('fills an item a PUT creates (allowCreate) as a POST does', async () => {
    const r = await write(tokens.bob, 'PUT', '/articles/500', { title: 'Created by PUT' });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.owner).to.equal('bob');
    expect(r.json.createdAt).to.match(STORED_DATETIME);
    expect(r.json.updatedAt).to.equal(r.json.createdAt);
  });

  it('fills every item of a bulk POST', async () => {
    const r = await write(tokens.bob, 'POST', '/articles', [{ title: 'One' }, { title: 'Two', owner: 'eve' }]);
    expect(r.status, r.text).to.equal(201);
    for (const member of r.json.member) {
      expect(member.owner).to.equal('bob');
      expect(member.createdAt).to.match(STORED_DATETIME);
    }
  });

  it('fills an item a GraphQL mutation creates and stamps one it updates (the same pipeline)', async () => {
    const answer = await graphql(
      server.url,
      'mutation { createArticle(input: { title: "By GraphQL" }) { article { id owner createdAt updatedAt } } }',
      {},
      { Authorization: `Bearer ${tokens.alice}` },
    );
    expect(answer.errors).to.equal(undefined);
    const article = answer.data.createArticle.article;
    expect(article.owner).to.equal('alice');
    expect(article.createdAt).to.match(STORED_DATETIME);
    expect(article.updatedAt).to.equal(article.createdAt);
    const updated = await graphql(
      server.url,
      `mutation { updateArticle(input: { id: "${article.id}", title: "Again", updatedAt: "${LONG_AGO}" }) {
        article { owner createdAt updatedAt } } }`,
      {},
      { Authorization: `Bearer ${tokens.bob}` },
    );
    expect(updated.errors).to.equal(undefined);
    const again = updated.data.updateArticle.article;
    expect(again).to.include({ owner: 'alice', createdAt: article.createdAt });
    expect(again.updatedAt).to.match(STORED_DATETIME).and.not.equal(LONG_AGO);
  });

  it('refuses an anonymous create whose default needs a user (401) rather than store an item without its owner', async () => {
    const before = (await get(server.url, '/articles')).json.totalItems;
    const r = await write(undefined, 'POST', '/articles', { title: 'Nobody' });
    expect(r.status, r.text).to.equal(401);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json.detail).to.equal('The server could not set "owner" for this request.');
    expect((await get(server.url, '/articles')).json.totalItems).to.equal(before);
  });

  it('refuses a create whose default gives a value of the wrong type (403 to a user), storing nothing', async () => {
    const r = await write(tokens.alice, 'POST', '/drafts', {});
    expect(r.status, r.text).to.equal(403);
    expect(r.json.detail).to.equal('The server could not set "words" for this request.');
    expect((await get(server.url, '/drafts')).json.totalItems).to.equal(0);
  });

  it('documents such properties as read-only (OpenAPI) and not writeable (Hydra), unless they say readOnly: false', async () => {
    const doc = (await request(server.url, 'GET', '/docs.json')).json;
    const properties = doc.components.schemas.Article.properties;
    for (const name of ['createdAt', 'createdOn', 'owner']) expect(properties[name].readOnly, name).to.equal(true);
    for (const name of ['updatedAt', 'publishedAt']) expect(properties[name].readOnly, name).to.equal(undefined);
    const hydra = (await request(server.url, 'GET', '/docs.jsonld')).json;
    type Supported = { title: string; writeable: boolean };
    const article = (hydra.supportedClass as { '@id': string; supportedProperty: Supported[] }[]).find(
      (c) => c['@id'] === '#Article',
    )!;
    const writeable = (name: string): boolean | undefined =>
      article.supportedProperty.find((p) => p.title === name)?.writeable;
    for (const name of ['createdAt', 'createdOn', 'owner']) expect(writeable(name), name).to.equal(false);
    for (const name of ['updatedAt', 'publishedAt']) expect(writeable(name), name).to.equal(true);
  });
});
