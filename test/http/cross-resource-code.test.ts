/**
 * Custom code that works across resources (docs/custom-code.md, "Working across resources"), over real HTTP on
 * the store the suite runs against (SQLite, or MongoDB/FerretDB with APIDSL_TEST_STORE=mongodb):
 * examples/shop-orders.api's order processor takes stock with `ctx.increment(..., { min: 0 })`.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { request, startServer, type RunningServer } from './harness.js';

const JSON_BODY = { 'Content-Type': 'application/json', Accept: 'application/ld+json' };

describe('custom code across resources (examples/shop-orders.api)', function () {
  this.timeout(120_000);
  let server: RunningServer;

  before(async () => {
    server = await startServer(fromRoot('examples/shop-orders.api'));
  });
  after(() => server?.stop());

  const product = async (body: Record<string, unknown>): Promise<string> => {
    const r = await request(server.url, 'POST', '/products', { body, headers: JSON_BODY });
    expect(r.status).to.equal(201);
    return (r.json as { '@id': string })['@id'];
  };
  const order = (lines: unknown[]) => request(server.url, 'POST', '/orders', { body: { lines }, headers: JSON_BODY });
  const stockOf = async (iri: string): Promise<number> =>
    ((await request(server.url, 'GET', iri)).json as { stock: number }).stock;
  const orderCount = async (): Promise<number> =>
    ((await request(server.url, 'GET', '/orders')).json as { totalItems: number }).totalItems;

  it('30 concurrent orders for a stock of 7: exactly 7 succeed, the others 409, the stock ends at 0', async () => {
    const lamp = await product({ name: 'Lamp', price: 25.5, stock: 7 });
    const before = await orderCount();
    const answers = await Promise.all(Array.from({ length: 30 }, () => order([{ product: lamp, quantity: 1 }])));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).to.have.length(7);
    expect(statuses.filter((s) => s === 409)).to.have.length(23);
    expect(answers.find((r) => r.status === 409)!.headers.get('content-type')).to.match(/problem\+json/);
    expect(await stockOf(lamp)).to.equal(0);
    expect((await orderCount()) - before).to.equal(7);
    for (const r of answers.filter((a) => a.status === 201)) expect((r.json as { total: number }).total).to.equal(25.5);
  });

  it('computes the total from the products of the lines', async () => {
    const a = await product({ name: 'A', price: 2.5, stock: 10 });
    const b = await product({ name: 'B', price: 4, stock: 10 });
    const r = await order([
      { product: a, quantity: 2 },
      { product: b, quantity: 3 },
    ]);
    expect(r.status).to.equal(201);
    expect((r.json as { total: number }).total).to.equal(17);
    expect([await stockOf(a), await stockOf(b)]).to.deep.equal([8, 7]);
  });

  it('a violation thrown by the code answers 422 with its path, and nothing is written', async () => {
    const a = await product({ name: 'C', price: 1, stock: 5 });
    const before = await orderCount();
    const r = await order([
      { product: a, quantity: 1 },
      { product: '/products/999999', quantity: 1 },
    ]);
    expect(r.status).to.equal(422);
    const body = r.json as { violations: { propertyPath: string; message: string }[] };
    expect(body.violations).to.deep.equal([
      { propertyPath: 'lines[1].product', message: 'No product "/products/999999".', code: 'custom' },
    ]);
    expect(await stockOf(a)).to.equal(5); // the first line's decrement was undone
    expect(await orderCount()).to.equal(before);
  });

  it('a failing processor leaves nothing half-written: an earlier line keeps its stock', async () => {
    const plenty = await product({ name: 'Plenty', price: 1, stock: 5 });
    const none = await product({ name: 'None', price: 1, stock: 0 });
    const before = await orderCount();
    const r = await order([
      { product: plenty, quantity: 2 },
      { product: none, quantity: 1 },
    ]);
    expect(r.status).to.equal(409);
    expect(await stockOf(plenty)).to.equal(5);
    expect(await stockOf(none)).to.equal(0);
    expect(await orderCount()).to.equal(before);
  });
});

describe('custom code across resources: get, find, persist, remove (fixture cross-resource.api)', function () {
  this.timeout(60_000);
  let server: RunningServer;

  before(async () => {
    server = await startServer(fromRoot('test/fixtures/http/cross-resource.api'));
  });
  after(() => server?.stop());

  const post = async (path: string, body: Record<string, unknown>): Promise<void> => {
    expect((await request(server.url, 'POST', path, { body, headers: JSON_BODY })).status).to.equal(201);
  };
  const members = async (path: string): Promise<Record<string, unknown>[]> =>
    ((await request(server.url, 'GET', path)).json as { member: Record<string, unknown>[] }).member;
  const shopWithProducts = async (slug: string): Promise<void> => {
    await post('/shops', { slug, name: slug });
    for (const [title, price] of [
      ['cheap', 1],
      ['dear', 30],
      ['middle', 10],
    ] as const)
      await post('/products', { title, price, shop: `/shops/${slug}` });
  };

  it('reads another resource in order, stores into a third, deletes with the referential actions', async () => {
    await shopWithProducts('north');
    const r = await request(server.url, 'POST', '/shops/north/close');
    expect(r.status).to.equal(200);
    const closings = await members('/closings');
    expect(closings.map((c) => [c.shop, c.dearest])).to.deep.include(['north', ['dear', 'middle']]);
    expect((await request(server.url, 'GET', '/shops/north')).status).to.equal(404);
    // The cascade of Product.shop ran: the shop's products went with it.
    expect((await members('/products')).filter((p) => p.shop === '/shops/north')).to.deep.equal([]);
  });

  it('code that throws after its writes leaves the shop, its products and no closing', async () => {
    await shopWithProducts('south');
    const before = (await members('/closings')).length;
    const r = await request(server.url, 'POST', '/shops/south/close?fail=1');
    expect(r.status).to.equal(500);
    expect((await request(server.url, 'GET', '/shops/south')).status).to.equal(200);
    expect((await members('/products')).filter((p) => p.shop === '/shops/south')).to.have.length(3);
    expect(await members('/closings')).to.have.length(before);
  });

  it('ctx.violation answers 422 with the path', async () => {
    const r = await request(server.url, 'POST', '/shops/nowhere/close');
    expect(r.status).to.equal(422);
    expect((r.json as { violations: { propertyPath: string }[] }).violations.map((v) => v.propertyPath)).to.deep.equal([
      'slug',
    ]);
  });
});
