/**
 * Property-level security over real HTTP (fixture security/books.api, resource Book): `security`
 * leaves a property out of items, collections and the OpenAPI schemas that user sees;
 * `securityPostDenormalize` keeps the stored value on a denied write (200), or answers 403 with
 * `throwOnAccessDenied`.
 */
import { expect } from 'chai';
import { useServer } from './harness.js';
import { as, securityFixture, users } from './security-helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('security: property rules (fixture security/books.api)', () => {
  const server = useServer(securityFixture('books.api'));
  let u: Awaited<ReturnType<typeof users>>;
  before(async () => {
    u = await users();
    const created = await as(u.admin, server.url, 'POST', '/books', {
      body: { title: 'Dune', owner: 'alice', internalNote: 'reorder soon', status: 'available', featured: false },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.json.internalNote).to.equal('reorder soon');
  });

  describe('security (read)', () => {
    it('an item leaves the property out for a user the rule denies, and shows it to one it grants', async () => {
      const alice = await as(u.alice, server.url, 'GET', '/books/1');
      expect(alice.status, alice.text).to.equal(200);
      expect(alice.json).not.to.have.property('internalNote');
      expect(alice.json.title).to.equal('Dune');
      const admin = await as(u.admin, server.url, 'GET', '/books/1');
      expect(admin.json.internalNote).to.equal('reorder soon');
    });

    it('collections leave it out of every member (JSON-LD and plain JSON), page after page', async () => {
      for (let i = 0; i < 3; i++) {
        const r = await as(u.admin, server.url, 'POST', '/books', {
          body: { title: `Book ${i}`, owner: 'alice', internalNote: `note ${i}` },
        });
        expect(r.status, r.text).to.equal(201);
      }
      const page = await as(u.alice, server.url, 'GET', '/books');
      expect(page.status, page.text).to.equal(200);
      expect(page.json.member).to.have.length(4);
      for (const m of page.json.member) expect(m).not.to.have.property('internalNote');
      const plain = await as(u.alice, server.url, 'GET', '/books', { headers: { Accept: 'application/json' } });
      for (const m of plain.json) expect(m).not.to.have.property('internalNote');
      const unpaginated = await as(u.alice, server.url, 'GET', '/books?pagination=false');
      expect(unpaginated.json.member).to.have.length(4);
      for (const m of unpaginated.json.member) expect(m).not.to.have.property('internalNote');
      const admin = await as(u.admin, server.url, 'GET', '/books');
      expect(admin.json.member.filter((m: Record<string, unknown>) => 'internalNote' in m)).to.have.length(4);
    });

    it('a write answer follows the same rule: the owner PATCHing sees no internalNote in the response', async () => {
      const r = await as(u.alice, server.url, 'PATCH', '/books/1', { body: { price: 9 }, headers: MERGE });
      expect(r.status, r.text).to.equal(200);
      expect(r.json).not.to.have.property('internalNote');
      expect(
        (await as(u.admin, server.url, 'GET', '/books/1')).json.internalNote,
        'the stored value is untouched',
      ).to.equal('reorder soon');
    });

    it('the OpenAPI schemas a user sees leave out the properties they may not read', async () => {
      const schemaProps = async (t: string | undefined): Promise<string[]> => {
        const r = await as(t, server.url, 'GET', '/docs.json');
        expect(r.status, r.text).to.equal(200);
        const schemas = r.json.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
        return Object.entries(schemas)
          .filter(([name]) => name.startsWith('Book'))
          .flatMap(([, s]) => Object.keys(s.properties ?? {}));
      };
      expect(await schemaProps(u.alice)).not.to.include('internalNote');
      expect(await schemaProps(undefined)).not.to.include('internalNote');
      expect(await schemaProps(u.admin)).to.include('internalNote');
    });
  });

  describe('securityPostDenormalize (write)', () => {
    it('a denied write keeps the stored value and answers 200; the rest of the change is applied', async () => {
      const r = await as(u.alice, server.url, 'PATCH', '/books/1', {
        body: { status: 'sold', price: 11 },
        headers: MERGE,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.status).to.equal('available');
      expect(r.json.price).to.equal(11);
      const stored = await as(u.admin, server.url, 'GET', '/books/1');
      expect(stored.json.status).to.equal('available');
    });

    it('a new item does not get the denied property at all', async () => {
      const r = await as(u.bob, server.url, 'POST', '/books', {
        body: { title: 'Own', owner: 'bob', status: 'bestseller' },
      });
      expect(r.status, r.text).to.equal(201);
      expect(r.json).not.to.have.property('status');
    });

    it('with throwOnAccessDenied the write answers 403 and changes nothing', async () => {
      const r = await as(u.alice, server.url, 'PATCH', '/books/1', {
        body: { featured: true, price: 99 },
        headers: MERGE,
      });
      expect(r.status, r.text).to.equal(403);
      const stored = await as(u.admin, server.url, 'GET', '/books/1');
      expect(stored.json.featured).to.equal(false);
      expect(stored.json.price).to.equal(11);
    });

    it('a user the rule grants changes both', async () => {
      const owner = await as(u.admin, server.url, 'POST', '/books', { body: { title: 'Admin book', owner: 'root' } });
      const id = owner.json.id as number;
      const r = await as(u.admin, server.url, 'PATCH', `/books/${id}`, {
        body: { status: 'sold', featured: true },
        headers: MERGE,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.status).to.equal('sold');
      expect(r.json.featured).to.equal(true);
    });
  });
});
