/**
 * The security stages over real HTTP (fixture security/books.api): pre-read (no existence leak),
 * security after read (404 first), securityPostDenormalize, securityPostValidation (422 first), the
 * 401/403 split and the messages, resource-level defaults, every operation kind (QUERY and a custom
 * HttpOperation included), voters, and failures that deny.
 */
import { expect } from 'chai';
import { type HttpResponse, PROBLEM_JSON, request, useServer } from './harness.js';
import { as, securityFixture, token, users } from './security-helpers.js';

function expectDenied(r: HttpResponse, status: 401 | 403, detail = 'Access Denied.'): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
  expect(r.json.detail).to.equal(detail);
  if (status === 401) expect(r.headers.get('www-authenticate')).to.equal('Bearer');
  else expect(r.headers.get('www-authenticate')).to.equal(null);
}

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('security stages (fixture security/books.api)', () => {
  const server = useServer(securityFixture('books.api'));
  let u: Awaited<ReturnType<typeof users>>;
  before(async () => {
    u = await users();
    const created = await as(u.admin, server.url, 'POST', '/books', {
      body: { title: 'Dune', owner: 'alice', price: 10 },
    });
    expect(created.status, created.text).to.equal(201);
    const secret = await as(u.admin, server.url, 'POST', '/secrets', { body: { text: 'launch codes' } });
    expect(secret.status, secret.text).to.equal(201);
    const note = await as(u.alice, server.url, 'POST', '/notes', { body: { owner: 'alice', text: 'mine' } });
    expect(note.status, note.text).to.equal(201);
    const probe = await as(u.alice, server.url, 'POST', '/probes', { body: { name: 'p' } });
    expect(probe.status, probe.text).to.equal(201);
  });

  describe('resource-level security is the default of every operation', () => {
    it('anonymous: 401 on GetCollection, Get, Post; a user with the role: 200/201', async () => {
      expectDenied(await as(undefined, server.url, 'GET', '/books'), 401);
      expectDenied(await as(undefined, server.url, 'GET', '/books/1'), 401);
      expectDenied(await as(undefined, server.url, 'POST', '/books', { body: { title: 'X', owner: 'x' } }), 401);
      expect((await as(u.alice, server.url, 'GET', '/books')).status).to.equal(200);
      expect((await as(u.alice, server.url, 'GET', '/books/1')).status).to.equal(200);
    });

    it('an authenticated user without the role gets 403 (Access Denied.)', async () => {
      expectDenied(await as(u.nobody, server.url, 'GET', '/books'), 403);
      expectDenied(await as(u.nobody, server.url, 'GET', '/books/1'), 403);
    });

    it("an operation's own security wins over the resource's, with its message", async () => {
      expectDenied(await as(u.alice, server.url, 'DELETE', '/books/1'), 403, 'Only administrators delete books.');
      expectDenied(await as(undefined, server.url, 'DELETE', '/books/1'), 401, 'Only administrators delete books.');
      const getAfter = await as(u.alice, server.url, 'GET', '/books/1');
      expect(getAfter.status, 'the denied DELETE removed nothing').to.equal(200);
    });
  });

  describe('pre-read: no existence leak', () => {
    it('an expression without object denies before the read: 401/403 for ids that exist and ids that do not', async () => {
      for (const path of ['/secrets/1', '/secrets/999999', '/secrets/not-a-number']) {
        expectDenied(await as(undefined, server.url, 'GET', path), 401);
        expectDenied(await as(u.alice, server.url, 'GET', path), 403);
      }
      expectDenied(await as(u.alice, server.url, 'DELETE', '/secrets/999999'), 403);
      expectDenied(
        await as(u.alice, server.url, 'PATCH', '/secrets/999999', { body: { text: 'x' }, headers: MERGE }),
        403,
      );
    });

    it('a granted user then sees the real answer: 200 or 404', async () => {
      expect((await as(u.admin, server.url, 'GET', '/secrets/1')).status).to.equal(200);
      expect((await as(u.admin, server.url, 'GET', '/secrets/999999')).status).to.equal(404);
    });

    it('a denied write never reaches the body checks (403 before 415/400)', async () => {
      expectDenied(
        await as(u.alice, server.url, 'POST', '/secrets', {
          body: '{not json',
          headers: { 'Content-Type': 'application/ld+json' },
        }),
        403,
      );
      expectDenied(await as(u.alice, server.url, 'POST', '/secrets', { body: 'x' }), 403);
    });
  });

  describe('security after read (the expression uses object)', () => {
    it('a missing item is a 404, an existing one someone else owns a 403 with the message, the owner 200', async () => {
      expect((await as(u.bob, server.url, 'GET', '/notes/999')).status).to.equal(404);
      expectDenied(await as(u.bob, server.url, 'GET', '/notes/1'), 403, 'Not your note.');
      expectDenied(await as(undefined, server.url, 'GET', '/notes/1'), 401, 'Not your note.');
      const own = await as(u.alice, server.url, 'GET', '/notes/1');
      expect(own.status, own.text).to.equal(200);
      expect(own.json.text).to.equal('mine');
    });

    it("voters decide is_granted('EDIT', object): the owner may PATCH, another user may not", async () => {
      expectDenied(
        await as(u.bob, server.url, 'PATCH', '/books/1', { body: { price: 1 }, headers: MERGE }),
        403,
        'Only the owner may edit this book.',
      );
      const ok = await as(u.alice, server.url, 'PATCH', '/books/1', { body: { price: 12 }, headers: MERGE });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.json.price).to.equal(12);
      expect(
        (await as(u.bob, server.url, 'PATCH', '/books/424242', { body: { price: 1 }, headers: MERGE })).status,
      ).to.equal(404);
    });
  });

  describe('securityPostDenormalize', () => {
    it('object is the unsaved item: a user may only create a book they own (nothing stored otherwise)', async () => {
      const before = await as(u.admin, server.url, 'GET', '/books');
      const denied = await as(u.bob, server.url, 'POST', '/books', { body: { title: 'Not mine', owner: 'alice' } });
      expectDenied(denied, 403, 'You can only create your own books.');
      const after = await as(u.admin, server.url, 'GET', '/books');
      expect(after.json.totalItems).to.equal(before.json.totalItems);
      const own = await as(u.bob, server.url, 'POST', '/books', { body: { title: 'Mine', owner: 'bob' } });
      expect(own.status, own.text).to.equal(201);
    });

    it('its check comes after the body is parsed (400 for malformed JSON wins)', async () => {
      const r = await as(u.bob, server.url, 'POST', '/books', {
        body: '{oops',
        headers: { 'Content-Type': 'application/ld+json' },
      });
      expect(r.status).to.equal(400);
    });
  });

  describe('securityPostValidation', () => {
    it('a 422 wins over it; a valid body is then denied with its message (and not stored)', async () => {
      const invalid = await as(u.alice, server.url, 'POST', '/articles', { body: { title: '' } });
      expect(invalid.status, invalid.text).to.equal(422);
      expectDenied(
        await as(u.alice, server.url, 'POST', '/articles', { body: { title: 'Hello' } }),
        403,
        'Only administrators publish articles.',
      );
      expectDenied(
        await as(undefined, server.url, 'POST', '/articles', { body: { title: 'Hello' } }),
        401,
        'Only administrators publish articles.',
      );
      expect((await as(u.admin, server.url, 'GET', '/articles/1')).status, 'nothing was stored').to.equal(404);
      const ok = await as(u.admin, server.url, 'POST', '/articles', { body: { title: 'Hello' } });
      expect(ok.status, ok.text).to.equal(201);
    });
  });

  describe('every operation kind', () => {
    it('Put with allowCreate: denied before it creates anything; an editor creates', async () => {
      expectDenied(
        await as(u.alice, server.url, 'PUT', '/books/77', { body: { title: 'Upsert', owner: 'alice' } }),
        403,
      );
      expect((await as(u.admin, server.url, 'GET', '/books/77')).status).to.equal(404);
      const created = await as(u.editor, server.url, 'PUT', '/books/77', { body: { title: 'Upsert', owner: 'erin' } });
      expect(created.status, created.text).to.equal(201);
    });

    it('Delete: an administrator deletes', async () => {
      expect((await as(u.admin, server.url, 'DELETE', '/books/77')).status).to.equal(204);
    });

    it('Query (HTTP QUERY): 401/403 by role, 200 for an editor', async () => {
      const query = (t: string | undefined): Promise<HttpResponse> =>
        as(t, server.url, 'QUERY', '/books', { body: '{}', headers: { 'Content-Type': 'application/json' } });
      expectDenied(await query(undefined), 401);
      expectDenied(await query(u.alice), 403);
      const ok = await query(u.editor);
      expect(ok.status, ok.text).to.equal(200);
    });

    it('a custom HttpOperation with a controller: denied to anonymous, and the controller sees ctx.user', async () => {
      expectDenied(await as(undefined, server.url, 'GET', '/books/whoami'), 401);
      const r = await as(u.bob, server.url, 'GET', '/books/whoami', { headers: { Accept: 'application/json' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.title).to.equal('bob ROLE_USER');
    });
  });

  describe('custom provider and processor', () => {
    it('a provider behind a guard sees ctx.user; anonymous requests never reach it', async () => {
      expectDenied(await as(undefined, server.url, 'GET', '/profiles/me'), 401);
      const r = await as(u.bob, server.url, 'GET', '/profiles/me');
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.include({ id: 'bob', name: 'Profile of bob' });
    });

    it('a processor sees ctx.user (it stamps the owner); anonymous writes are denied before it runs', async () => {
      expectDenied(await as(undefined, server.url, 'POST', '/profiles', { body: { name: 'x' } }), 401);
      const r = await as(u.alice, server.url, 'POST', '/profiles', { body: { name: 'Alice', owner: 'mallory' } });
      expect(r.status, r.text).to.equal(201);
      expect(r.json.owner).to.equal('alice');
    });
  });

  describe('fail closed', () => {
    it('a voter that throws denies (403), and the service keeps answering', async () => {
      expectDenied(await as(u.admin, server.url, 'GET', '/probes/thrown/1'), 403);
      expect((await as(u.admin, server.url, 'GET', '/probes/1')).status).to.equal(200);
    });

    it('an attribute every voter abstains on is denied', async () => {
      expectDenied(await as(u.admin, server.url, 'GET', '/probes/abstained/1'), 403);
    });

    it('an expression that fails at run time denies (never 5xx)', async () => {
      expectDenied(await as(u.admin, server.url, 'GET', '/probes/broken/1'), 403);
      expectDenied(await as(undefined, server.url, 'GET', '/probes/broken/1'), 401);
    });

    it('a token holding roles the hierarchy does not know grants nothing more', async () => {
      const stranger = await token({ sub: 'mallory', roles: ['ROLE_SUPERUSER', 'ROLE_ADMINISTRATOR'] });
      expectDenied(await as(stranger, server.url, 'GET', '/secrets/1'), 403);
    });
  });

  describe('afterwards', () => {
    it('no request of this suite answered 5xx or crashed the server', async () => {
      expect((await request(server.url, 'GET', '/')).status).to.equal(200);
      expect(server.output()).not.to.match(/"status":5\d\d/);
      expect(server.output()).not.to.contain('request failed');
    });
  });
});
