/**
 * A write that names a related item racing a delete of that item (docs/behaviour.md, "Deleting a referenced
 * item", "Under concurrent writes"): on every store, whatever the interleaving, no item is left referencing a
 * deleted one, and every answer agrees with the final state. POSTs and PATCHes of products naming a shop are sent
 * together with the shop's DELETE (cascade), and deliveries naming a supplier with the supplier's DELETE
 * (restrict), many rounds over.
 */
import { expect } from 'chai';
import { fixture, request, useServer, type HttpResponse } from './harness.js';

const FIXTURE = fixture('reference-races.api');
const mongodb = process.env.APIDSL_TEST_STORE === 'mongodb';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const ROUNDS = 6;
const WRITES = 40;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Stored {
  '@id': string;
  shop?: string;
  supplier?: string;
}

/** Every item of a collection (its GetCollection is not paginated). */
async function all(url: string, path: string): Promise<Stored[]> {
  const r = await request(url, 'GET', path);
  expect(r.status, r.text).to.equal(200);
  return r.json.member as Stored[];
}

/** `count` writes sent at once, and `other` sent `delayMs` after the first of them; all answers. */
async function race(
  count: number,
  write: (n: number) => Promise<HttpResponse>,
  delayMs: number,
  other: () => Promise<HttpResponse>,
): Promise<{ writes: HttpResponse[]; other: HttpResponse }> {
  const writes = Array.from({ length: count }, (_, n) => write(n));
  await sleep(delayMs);
  const answer = await other();
  return { writes: await Promise.all(writes), other: answer };
}

describe('HTTP references racing deletes: no item is left naming a deleted one', function () {
  this.timeout(180_000);
  const server = useServer(FIXTURE);

  it(`POSTs naming a shop sent with its DELETE (cascade), ${ROUNDS} rounds: no orphan, and a new shop of the same slug inherits nothing`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const slug = `race-${round}`;
      const iri = `/shops/${slug}`;
      expect((await request(server.url, 'POST', '/shops', { body: { slug, name: 'First' } })).status).to.equal(201);
      const { writes, other } = await race(
        WRITES,
        (n) => request(server.url, 'POST', '/products', { body: { title: `p${n}`, shop: iri } }),
        round,
        () => request(server.url, 'DELETE', iri),
      );
      expect(other.status, other.text).to.equal(204);
      for (const w of writes) expect([201, 400], w.text).to.include(w.status);
      const orphans = (await all(server.url, '/products')).filter((p) => p.shop === iri);
      expect(
        orphans.map((p) => p['@id']),
        `round ${round}`,
      ).to.deep.equal([]);
      // Every product answered 400 was never stored; every one answered 201 went with the shop.
      for (const w of writes.filter((x) => x.status === 201))
        expect((await request(server.url, 'GET', w.json['@id'] as string)).status).to.equal(404);
      expect((await request(server.url, 'PUT', iri, { body: { name: 'Second' } })).status).to.equal(201);
      expect((await all(server.url, '/products')).filter((p) => p.shop === iri)).to.deep.equal([]);
    }
  });

  it(`PATCHes moving products to a shop sent with its DELETE (cascade), ${ROUNDS} rounds: no product names the deleted shop`, async () => {
    await request(server.url, 'POST', '/shops', { body: { slug: 'home', name: 'Home' } });
    for (let round = 0; round < ROUNDS; round++) {
      const slug = `moving-${round}`;
      const iri = `/shops/${slug}`;
      expect((await request(server.url, 'POST', '/shops', { body: { slug, name: 'Target' } })).status).to.equal(201);
      const products: string[] = [];
      for (let n = 0; n < WRITES; n++) {
        const r = await request(server.url, 'POST', '/products', { body: { title: `m${n}`, shop: '/shops/home' } });
        products.push(r.json['@id'] as string);
      }
      const { writes, other } = await race(
        WRITES,
        (n) => request(server.url, 'PATCH', products[n]!, { body: JSON.stringify({ shop: iri }), headers: MERGE }),
        round,
        () => request(server.url, 'DELETE', iri),
      );
      expect(other.status, other.text).to.equal(204);
      for (const w of writes) expect([200, 400, 404], w.text).to.include(w.status);
      const stored = await all(server.url, '/products');
      expect(stored.filter((p) => p.shop === iri).map((p) => p['@id'])).to.deep.equal([]);
      // A PATCH refused with 400 left its product where it was. FerretDB (the MongoDB server CI runs) does not
      // isolate a conditional delete from a concurrent write: the cascade may then take a product whose refused
      // PATCH was already undone. There the product may be gone, never left naming the deleted shop.
      for (const [n, w] of writes.entries()) {
        if (w.status !== 400) continue;
        const shop = stored.find((p) => p['@id'] === products[n])?.shop;
        if (mongodb) expect([undefined, '/shops/home'], `${products[n]}: ${w.text}`).to.include(shop);
        else expect(shop, `${products[n]}: ${w.text}`).to.equal('/shops/home');
      }
    }
  });

  it(`POSTs naming a supplier sent with its DELETE (restrict), ${ROUNDS} rounds: either the delete is refused or no delivery names it`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await request(server.url, 'POST', '/suppliers', { body: { name: `s${round}` } });
      const iri = created.json['@id'] as string;
      const { writes, other } = await race(
        WRITES,
        () => request(server.url, 'POST', '/deliveries', { body: { supplier: iri } }),
        round,
        () => request(server.url, 'DELETE', iri),
      );
      expect([204, 409], other.text).to.include(other.status);
      const naming = (await all(server.url, '/deliveries')).filter((d) => d.supplier === iri);
      const accepted = writes.filter((w) => w.status === 201);
      if (other.status === 204) {
        expect(naming, `round ${round}: the supplier was deleted`).to.deep.equal([]);
        expect((await request(server.url, 'GET', iri)).status).to.equal(404);
      } else {
        expect((await request(server.url, 'GET', iri)).status, `round ${round}: the delete was refused`).to.equal(200);
        expect(naming.length).to.equal(accepted.length);
      }
    }
  });
});
