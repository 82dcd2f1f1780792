/**
 * GraphQL's limits at the API's own page sizes (docs/graphql.md, "Limits"), over HTTP with the defaults
 * (max_query_complexity 500, max_query_depth 20): a page at the global maximum (100) and at a per-resource maximum
 * (250) of 20 scalar fields and a to-one relation is served; the field count still refuses a selection of more than
 * 500 fields; nested lists are refused once the items they hold together pass 500,000, counted as the collections
 * serve their pages. Runs on the MongoDB store as well (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { fixture, useServer } from './harness.js';
import { data, graphql, nodesOf, seed } from './graphql-helpers.js';

/** f01 … f20 of the fixture: int, number, bool, string in turn. */
const FIELDS = Array.from({ length: 20 }, (_, i) => `f${String(i + 1).padStart(2, '0')}`);

const scalars = (n: number): Record<string, unknown> =>
  Object.fromEntries(FIELDS.map((f, i) => [f, [`s${n}`, n, n + 0.5, n % 2 === 0][(i + 1) % 4]]));

describe('GraphQL limits at the API’s page sizes (graphql-limits.api)', function () {
  this.timeout(120_000);
  const server = useServer(fixture('graphql-limits.api'));
  before(async () => {
    await seed(server.url, '/shops', [{ name: 'North' }, { name: 'South' }]);
    const products = Array.from({ length: 120 }, (_, i) => ({ ...scalars(i), shop: `/shops/${(i % 2) + 1}` }));
    await seed(server.url, '/products', products);
    const reviews = Array.from({ length: 260 }, (_, i) => ({ ...scalars(i), product: `/products/${(i % 120) + 1}` }));
    await seed(server.url, '/reviews', reviews);
    const hundred = Array.from({ length: 100 }, (_, i) => `/products/${i + 1}`);
    await seed(server.url, '/shops', [{ name: 'Full', products: hundred }]);
  });

  /** The errors of a refused query: their messages and statuses; fails if it ran (any data). */
  const refused = async (query: string): Promise<{ message: string; status?: number }[]> => {
    const answer = await graphql(server.url, query);
    expect(answer).to.not.have.property('data');
    return (answer.errors ?? []).map((e) => ({ message: e.message, status: e.extensions?.status }));
  };

  it('serves a page at the global maximum (100) of 20 scalar fields and a to-one relation', async () => {
    const d = await data(
      server.url,
      `{ products(first: 100) { totalCount edges { node { id _id ${FIELDS.join(' ')} shop { name } } } } }`,
    );
    expect(d.products.totalCount).to.equal(120);
    const nodes = nodesOf(d.products);
    expect(nodes).to.have.length(100);
    expect(nodes[7]).to.include({ _id: 8, f01: 7, f02: 7.5, f03: false, f04: 's7' });
    expect(nodes[7].shop).to.deep.equal({ name: 'South' });
  });

  it('serves a page at a per-resource maximum (250), and counts a larger `first` as the page it is served', async () => {
    const d = await data(
      server.url,
      `{ reviews(first: 250) { edges { node { _id ${FIELDS.join(' ')} product { _id f04 } } } } }`,
    );
    const nodes = nodesOf(d.reviews);
    expect(nodes).to.have.length(250);
    expect(nodes[249]).to.deep.include({ _id: 250, f04: 's249', product: { _id: 10, f04: 's9' } });
    // 1,000,000 asked, 250 served: counted as 250 items, not refused by the node bound.
    const clamped = await data(server.url, '{ reviews(first: 1000000) { edges { node { _id } } } }');
    expect(nodesOf(clamped.reviews)).to.have.length(250);
  });

  it('refuses more than 500 fields (aliases counted), with status 400, whatever the pages', async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: f01`).join(' ');
    expect(await refused(`{ products(first: 1) { edges { node { ${aliases(498)} } } } }`)).to.deep.equal([
      { message: "The query's complexity 501 is above the limit of 500.", status: 400 },
    ]);
    const d = await data(server.url, `{ products(first: 1) { edges { node { ${aliases(497)} } } } }`);
    expect(Object.keys(nodesOf(d.products)[0])).to.have.length(497);
  });

  it('refuses nested lists holding more than 500,000 items together, with status 400, before they run', async () => {
    const nested = (reviews: number) =>
      `{ shops(first: 100) { edges { node { name products(first: 100) { edges { node { _id ` +
      `reviews(first: ${reviews}) { edges { node { _id } } } } } } } } } }`;
    // 100 shops + 100 × 100 products + 100 × 100 × 50 reviews = 510,100.
    expect(await refused(nested(50))).to.deep.equal([
      { message: "The query's lists hold up to 510100 items, above the limit of 500000.", status: 400 },
    ]);
    // 100 + 10,000 + 480,000 = 490,100: served.
    const d = await data(server.url, nested(48));
    const full = nodesOf(d.shops).find((s: { name: string }) => s.name === 'Full');
    expect(nodesOf(full.products)).to.have.length(100);
    // A per-resource maximum counts too: 250 reviews in each of 100 products × 100 shops, asked as 1,000,000.
    expect(await refused(nested(1_000_000))).to.deep.equal([
      { message: "The query's lists hold up to 2510100 items, above the limit of 500000.", status: 400 },
    ]);
  });
});
