/**
 * Row-level scopes over real HTTP (docs/scopes.md), on examples/marketplace.api: pages and totalItems, item reads
 * (404 byte-identical to an unknown identifier), an operation's own scope, a scope through one and two relations,
 * writes outside the write scope (403 with scopeMessage, nothing stored), a body naming an item outside the read
 * scope (as an unknown IRI), and anonymous callers (`user?.identifier` null matches nothing); the HTTP cache keeps no
 * scoped page.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../support/paths.js';
import { request, tempDir, useServer, type HttpResponse } from './harness.js';
import { as, SECRET, token } from './security-helpers.js';

process.env.APIDSL_JWT_SECRET = SECRET;

const JSON_BODY = { 'Content-Type': 'application/json' };
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

describe('row-level scopes (examples/marketplace.api)', function () {
  this.timeout(60_000);
  const server = useServer(fromRoot('examples/marketplace.api'));
  let ann: string, bob: string, carl: string, staff: string;

  const send = (who: string | undefined, method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    as(who, server.url, method, path, {
      headers: method === 'PATCH' ? MERGE_PATCH : JSON_BODY,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const ids = (r: HttpResponse): number[] => (r.json.member as { id: number }[]).map((m) => m.id);
  const created = async (r: Promise<HttpResponse>): Promise<void> => {
    const response = await r;
    expect(response.status, response.text).to.equal(201);
  };

  before(async () => {
    ann = await token({ sub: 'ann' });
    bob = await token({ sub: 'bob' });
    carl = await token({ sub: 'carl' });
    staff = await token({ sub: 'sam', roles: ['ROLE_STAFF'] });
    await created(send(ann, 'POST', '/shops', { name: 'Lamps' })); // shop 1
    await created(send(bob, 'POST', '/shops', { name: 'Chairs' })); // shop 2
    await created(send(ann, 'POST', '/products', { name: 'Draft lamp', price: 10, shop: '/shops/1' })); // 1
    await created(send(ann, 'POST', '/products', { name: 'Lamp', price: 20, shop: '/shops/1', published: true })); // 2
    await created(send(bob, 'POST', '/products', { name: 'Draft chair', price: 30, shop: '/shops/2' })); // 3
    await created(send(bob, 'POST', '/orders', { product: '/products/2', quantity: 1 })); // 1: Bob buys Ann's lamp
  });

  it('lists and counts only the items in the caller’s read scope', async () => {
    const expected: [string | undefined, number[]][] = [
      [ann, [1, 2]],
      [bob, [2, 3]],
      [carl, [2]],
      [undefined, [2]],
      [staff, [1, 2, 3]],
    ];
    for (const [who, visible] of expected) {
      const r = await send(who, 'GET', '/products');
      expect(r.status, r.text).to.equal(200);
      expect(ids(r)).to.deep.equal(visible);
      expect(r.json.totalItems).to.equal(visible.length);
    }
  });

  it('answers an item outside the scope exactly as an unknown identifier', async () => {
    const hidden = await send(bob, 'GET', '/products/1');
    const unknown = await send(bob, 'GET', '/products/999');
    expect(hidden.status).to.equal(404);
    expect(hidden.text).to.equal(unknown.text);
    expect(hidden.headers.get('content-type')).to.equal(unknown.headers.get('content-type'));
    expect((await send(ann, 'GET', '/products/1')).status).to.equal(200);
  });

  it('reads through two relations: the seller sees the orders of their products, nobody else does', async () => {
    expect(ids(await send(ann, 'GET', '/orders'))).to.deep.equal([1]);
    expect(ids(await send(bob, 'GET', '/orders'))).to.deep.equal([1]);
    const carls = await send(carl, 'GET', '/orders');
    expect(ids(carls)).to.deep.equal([]);
    expect(carls.json.totalItems).to.equal(0);
    expect((await send(carl, 'GET', '/orders/1')).status).to.equal(404);
    expect((await send(undefined, 'GET', '/orders/1')).status).to.equal(404);
  });

  it("takes an operation's own scope in place of the resource's", async () => {
    expect(ids(await send(ann, 'GET', '/products/drafts'))).to.deep.equal([1]);
    expect(ids(await send(bob, 'GET', '/products/drafts'))).to.deep.equal([3]);
    expect(ids(await send(staff, 'GET', '/products/drafts'))).to.deep.equal([]);
  });

  it('refuses a write outside the write scope with 403 and scopeMessage, storing nothing', async () => {
    const patch = await send(bob, 'PATCH', '/products/2', { price: 1 });
    expect(patch.status, patch.text).to.equal(403);
    expect(patch.json.detail).to.equal("Only the shop's owner changes its products.");
    expect((await send(bob, 'DELETE', '/products/2')).status).to.equal(403);
    const post = await send(bob, 'POST', '/products', { name: 'Fake', price: 1, shop: '/shops/1' });
    expect(post.status, post.text).to.equal(403);
    // The item as it would be stored: Bob may not move his chair into Ann's shop.
    expect((await send(bob, 'PATCH', '/products/3', { shop: '/shops/1' })).status).to.equal(403);
    const stored = await send(staff, 'GET', '/products');
    expect(stored.json.totalItems).to.equal(3);
    expect((await send(staff, 'GET', '/products/2')).json.price).to.equal(20);
    expect((await send(staff, 'GET', '/products/3')).json.shop).to.equal('/shops/2');
  });

  it('finds the target of a write through the read scope (404)', async () => {
    expect((await send(bob, 'PATCH', '/products/1', { price: 1 })).status).to.equal(404);
    expect((await send(bob, 'DELETE', '/products/1')).status).to.equal(404);
    expect((await send(carl, 'DELETE', '/orders/1')).status).to.equal(404);
    expect((await send(staff, 'GET', '/orders/1')).status).to.equal(200);
  });

  it('answers a body naming an item outside the read scope as an unknown IRI', async () => {
    const hidden = await send(bob, 'POST', '/orders', { product: '/products/1', quantity: 1 });
    const unknown = await send(bob, 'POST', '/orders', { product: '/products/999', quantity: 1 });
    expect(hidden.status, hidden.text).to.equal(400);
    expect(hidden.json.detail).to.equal('Item not found for "/products/1".');
    expect(unknown.json.detail).to.equal('Item not found for "/products/999".');
  });

  it('lets the owner change their own items, and staff every item', async () => {
    expect((await send(ann, 'PATCH', '/products/1', { price: 11 })).status).to.equal(200);
    expect((await send(staff, 'PATCH', '/products/3', { price: 31 })).status).to.equal(200);
    expect((await send(bob, 'PATCH', '/shops/1', { name: 'Mine' })).status).to.equal(403);
    expect((await send(ann, 'PATCH', '/shops/1', { name: 'Lamps & co' })).status).to.equal(200);
  });
});

describe('row-level scopes and the HTTP cache', function () {
  this.timeout(60_000);
  const server = useServer(() => {
    const file = join(tempDir(), 'tenants.api');
    writeFileSync(
      file,
      `api "Tenants" { version: "1.0.0" }
config { http_cache { public: true, max_age: 60, shared_max_age: 3600, in_process { max_bytes: 1000000 } } }
resource Note {
  scope: "object.tenant == request.headers['x-tenant']"
  properties { id: int { identifier: true }, tenant: string, title: string }
}`,
    );
    return file;
  });
  const as = (tenant: string) => ({ 'X-Tenant': tenant, 'Content-Type': 'application/json' });

  it('keeps no scoped page in the response cache and marks it private for shared caches', async () => {
    for (const [tenant, title] of [
      ['a', 'A'],
      ['b', 'B'],
    ]) {
      const r = await request(server.url, 'POST', '/notes', { headers: as(tenant), body: { tenant, title } });
      expect(r.status, r.text).to.equal(201);
    }
    for (let round = 0; round < 2; round++) {
      for (const tenant of ['a', 'b']) {
        const page = await request(server.url, 'GET', '/notes', { headers: as(tenant) });
        expect(page.json.member.map((m: { tenant: string }) => m.tenant)).to.deep.equal([tenant]);
        expect(page.headers.get('cache-control')).to.equal('private, max-age=60');
      }
    }
  });
});
