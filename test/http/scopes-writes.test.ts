/**
 * Row-level scopes on writes item by item, over real HTTP (docs/scopes.md, "Writes"; fixture
 * test/fixtures/http/scopes-writes.api), two users and a staff role: every item of a bulk POST holds to the write
 * scope or none is stored, also when a processor stores them one by one; nested documents are checked against their
 * own resource's scopes (a new folder against Folder's write scope, a changed one found through Folder's read
 * scope and held to its write scope before and after); a creating PUT checks the new item, and a PUT naming an item
 * the caller cannot read answers the 404 of an unknown identifier. The store is read after each refusal.
 */
import { expect } from 'chai';
import { fixture, useServer, type HttpResponse } from './harness.js';
import { as, SECRET, token } from './security-helpers.js';

process.env.APIDSL_JWT_SECRET = SECRET;

const JSON_BODY = { 'Content-Type': 'application/json' };
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

describe('row-level scopes on writes item by item', function () {
  this.timeout(60_000);
  const server = useServer(fixture('scopes-writes.api'));
  let ann: string, bob: string, staff: string;

  const send = (who: string | undefined, method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    as(who, server.url, method, path, {
      headers: method === 'PATCH' ? MERGE_PATCH : JSON_BODY,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const expectStatus = async (r: Promise<HttpResponse>, status: number): Promise<HttpResponse> => {
    const response = await r;
    expect(response.status, response.text).to.equal(status);
    return response;
  };
  /** Everything stored, as staff reads it: the titles of the notes and the names and owners of the folders. */
  const stored = async (): Promise<unknown> => {
    const notes = (await send(staff, 'GET', '/notes?itemsPerPage=100')).json.member as Record<string, unknown>[];
    const folders = (await send(staff, 'GET', '/folders?itemsPerPage=100')).json.member as Record<string, unknown>[];
    return {
      notes: notes.map((n) => [n.id, n.title, n.owner, n.folder ?? null, n.shelves]),
      folders: folders.map((f) => [f.id, f.name, f.owner]),
    };
  };
  /** A request refused with `status` (and `detail`, when given) that leaves the store as it was. */
  const refused = async (r: () => Promise<HttpResponse>, status: number, detail?: string): Promise<HttpResponse> => {
    const before = await stored();
    const response = await expectStatus(r(), status);
    if (detail !== undefined) expect(response.json.detail).to.equal(detail);
    expect(await stored()).to.deep.equal(before);
    return response;
  };

  before(async () => {
    ann = await token({ sub: 'ann' });
    bob = await token({ sub: 'bob' });
    staff = await token({ sub: 'sam', roles: ['ROLE_STAFF'] });
    await expectStatus(send(ann, 'POST', '/folders', { name: 'Ann’s' }), 201); // folder 1
    await expectStatus(send(bob, 'POST', '/folders', { name: 'Bob’s' }), 201); // folder 2
    await expectStatus(send(ann, 'POST', '/notes', { title: 'Ann’s note', folder: '/folders/1' }), 201); // note 1
    await expectStatus(send(bob, 'POST', '/notes', { title: 'Bob’s note' }), 201); // note 2
  });

  describe('a bulk POST', () => {
    for (const path of ['/bulk-notes', '/coded-bulk-notes'])
      it(`stores none of its items when one is outside the write scope (${path})`, async () => {
        const batch = [{ title: 'Mine' }, { title: 'Planted', owner: 'bob' }, { title: 'Mine too' }];
        await refused(() => send(ann, 'POST', path, batch), 403, 'Not your note.');
        const created = await expectStatus(send(ann, 'POST', path, [{ title: 'One' }, { title: 'Two' }]), 201);
        expect(created.json.member.map((n: { owner: string }) => n.owner)).to.deep.equal(['ann', 'ann']);
      });
  });

  describe('nested documents', () => {
    it('checks a new related item against its own resource’s write scope', async () => {
      const planted = { title: 'Planted', folder: { name: 'For Bob', owner: 'bob' } };
      await refused(() => send(ann, 'POST', '/notes', planted), 403, 'Not your folder.');
      const shelves = { shelves: [{ name: 'Fine' }, { name: 'For Bob', owner: 'bob' }] };
      await refused(() => send(ann, 'POST', '/notes', { title: 'Shelved', ...shelves }), 403, 'Not your folder.');
      await refused(() => send(ann, 'PATCH', '/notes/1', shelves), 403, 'Not your folder.');
      await refused(() => send(ann, 'PUT', '/notes/1', { title: 'Again', ...shelves }), 403, 'Not your folder.');
      const own = await expectStatus(send(ann, 'POST', '/notes', { title: 'Filed', folder: { name: 'New' } }), 201);
      const folder = await expectStatus(send(ann, 'GET', own.json.folder as string), 200);
      expect(folder.json.owner).to.equal('ann');
    });

    it('finds a changed related item through its resource’s read scope, as an unknown IRI', async () => {
      const hidden = await refused(
        () => send(ann, 'POST', '/notes', { title: 'Grab', folder: { '@id': '/folders/2', name: 'Mine now' } }),
        400,
      );
      const unknown = await send(ann, 'POST', '/notes', { title: 'Grab', folder: { '@id': '/folders/99', name: 'X' } });
      expect(hidden.json.detail).to.equal('Item not found for "/folders/2".');
      expect(unknown.json.detail).to.equal('Item not found for "/folders/99".');
      const listed = { shelves: [{ '@id': '/folders/2', name: 'Mine now' }] };
      await refused(() => send(ann, 'PATCH', '/notes/1', listed), 400, 'Item not found for "/folders/2".');
    });

    it('holds a changed related item to its write scope before and after the change', async () => {
      const giveAway = { folder: { '@id': '/folders/1', owner: 'bob' } };
      await refused(() => send(ann, 'PATCH', '/notes/1', giveAway), 403, 'Not your folder.');
      await refused(() => send(ann, 'POST', '/notes', { title: 'Move', ...giveAway }), 403, 'Not your folder.');
      await refused(() => send(ann, 'PUT', '/notes/1', { title: 'Move', ...giveAway }), 403, 'Not your folder.');
      const renamed = { folder: { '@id': '/folders/1', name: 'Ann’s, renamed' } };
      await expectStatus(send(ann, 'PATCH', '/notes/1', renamed), 200);
      expect((await send(staff, 'GET', '/folders/1')).json.name).to.equal('Ann’s, renamed');
      // Staff read and change every folder, through a note of their own.
      const bobs = { title: 'Staff', folder: { '@id': '/folders/2', name: 'Bob’s, by staff' } };
      await expectStatus(send(staff, 'POST', '/notes', bobs), 201);
      expect((await send(bob, 'GET', '/folders/2')).json.name).to.equal('Bob’s, by staff');
    });
  });

  describe('a creating PUT', () => {
    it('checks the new item against the write scope', async () => {
      await refused(() => send(ann, 'PUT', '/notes/50', { title: 'Planted', owner: 'bob' }), 403, 'Not your note.');
      const made = await expectStatus(send(ann, 'PUT', '/notes/51', { title: 'Made by PUT' }), 201);
      expect(made.json.owner).to.equal('ann');
    });

    it('answers an item outside the read scope as an unknown identifier, neither creating nor overwriting', async () => {
      const hidden = await refused(() => send(bob, 'PUT', '/notes/1', { title: 'Taken' }), 404);
      const creationOff = await send(bob, 'PUT', '/fixed-notes/999', { title: 'Taken' });
      expect(creationOff.status).to.equal(404);
      expect(hidden.text).to.equal(creationOff.text);
      expect(hidden.headers.get('content-type')).to.equal(creationOff.headers.get('content-type'));
      // Creation off, an existing hidden item: the same 404 again.
      const hiddenFixed = await refused(() => send(bob, 'PUT', '/fixed-notes/1', { title: 'Taken' }), 404);
      expect(hiddenFixed.text).to.equal(creationOff.text);
    });
  });
});
