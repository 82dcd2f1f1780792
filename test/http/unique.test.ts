/**
 * Unique values over real HTTP (docs/behaviour.md, "Unique values"): `unique: true` on a property and the
 * resource option `unique: [["shop", "sku"]]` answer a repeated value with 422 and Doctrine's UniqueEntity
 * violation on POST, PUT, PATCH, a bulk POST, a GraphQL mutation and an MCP tool; parallel POSTs of one value
 * let exactly one win; nulls repeat freely; a unique property can be renamed. Runs on MongoDB as well
 * (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fixture, get, post, request, useServer, type HttpResponse } from './harness.js';
import { graphql } from './graphql-helpers.js';

type Any = any;

const UNIQUE_ENTITY = '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f';
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const USED = 'This value is already used.';

/** The response is UniqueEntity's one violation at `path`. */
function expectUsed(r: HttpResponse, path: string): void {
  expect(r.status, r.text).to.equal(422);
  expect((r.json as Any).violations).to.deep.equal([{ propertyPath: path, message: USED, code: UNIQUE_ENTITY }]);
  expect((r.json as Any).detail).to.equal(`${path}: ${USED}`);
}

describe('unique values (fixture unique.api)', function () {
  this.timeout(30_000);
  const server = useServer(fixture('unique.api'));
  const names = async (): Promise<string[]> =>
    ((await get(server.url, '/shops?itemsPerPage=100')).json as Any).member.map((s: Any) => s.name).sort();

  it('answers a repeated unique property with 422 UniqueEntity on POST, PUT and PATCH, storing nothing', async () => {
    expect((await post(server.url, '/shops', { name: 'Acme', code: 'A' })).status).to.equal(201);
    const bolt = await post(server.url, '/shops', { name: 'Bolt', code: 'B' });
    expect(bolt.status).to.equal(201);
    const id = (bolt.json as Any).id as number;
    expectUsed(await post(server.url, '/shops', { name: 'Acme' }), 'name');
    expectUsed(await post(server.url, '/shops', { name: 'Other', code: 'A' }), 'code');
    expectUsed(await request(server.url, 'PUT', `/shops/${id}`, { body: { name: 'Acme', code: 'B' } }), 'name');
    expectUsed(
      await request(server.url, 'PATCH', `/shops/${id}`, { headers: MERGE_PATCH, body: { code: 'A' } }),
      'code',
    );
    expect((await get(server.url, `/shops/${id}`)).json).to.include({ name: 'Bolt', code: 'B' });
    expect(await names()).to.deep.equal(['Acme', 'Bolt']);
  });

  it('lets an item keep its own value and be renamed to a free one (PUT, PATCH)', async () => {
    const r = await post(server.url, '/shops', { name: 'Corner', code: 'C' });
    const id = (r.json as Any).id as number;
    const same = await request(server.url, 'PUT', `/shops/${id}`, { body: { name: 'Corner', code: 'C' } });
    expect(same.status, same.text).to.equal(200);
    const renamed = await request(server.url, 'PATCH', `/shops/${id}`, {
      headers: MERGE_PATCH,
      body: { name: 'Kiosk' },
    });
    expect(renamed.status, renamed.text).to.equal(200);
    // The old name is free again.
    expect((await post(server.url, '/shops', { name: 'Corner' })).status).to.equal(201);
  });

  it('lets exactly one of twelve parallel POSTs of one value win; the others answer 422', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(server.url, '/shops', { name: 'Race', code: `race-${i}` })),
    );
    const statuses = answers.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).to.have.length(1);
    for (const r of answers.filter((a) => a.status !== 201)) expectUsed(r, 'name');
    expect((await names()).filter((n) => n === 'Race')).to.have.length(1);
  });

  it('lets null and absent unique values repeat', async () => {
    for (const body of [{ name: 'N1' }, { name: 'N2' }, { name: 'N3', code: null }, { name: 'N4', code: null }])
      expect((await post(server.url, '/shops', body)).status).to.equal(201);
  });

  it('checks a composite list together, the violation on its first property; a null among them is not checked', async () => {
    expect((await post(server.url, '/products', { shop: 's1', sku: 'A-1' })).status).to.equal(201);
    expect((await post(server.url, '/products', { shop: 's2', sku: 'A-1' })).status).to.equal(201);
    expect((await post(server.url, '/products', { shop: 's1', sku: 'A-2' })).status).to.equal(201);
    expectUsed(await post(server.url, '/products', { shop: 's1', sku: 'A-1' }), 'shop');
    const r = await post(server.url, '/products', { shop: 's3', sku: 'A-1' });
    expectUsed(
      await request(server.url, 'PATCH', `/products/${(r.json as Any).id}`, {
        headers: MERGE_PATCH,
        body: { shop: 's2' },
      }),
      'shop',
    );
    for (const body of [{ sku: 'A-1' }, { sku: 'A-1' }, { shop: 's1', sku: null }, { shop: 's1' }])
      expect((await post(server.url, '/products', body)).status).to.equal(201);
  });

  it('names the repeating item of a bulk POST ([i].shop), within the batch and against stored items, storing none', async () => {
    const count = async (): Promise<number> => ((await get(server.url, '/products')).json as Any).totalItems;
    const before = await count();
    const batch = [
      { shop: 'b', sku: '1' },
      { shop: 'b', sku: '2' },
      { shop: 'b', sku: '1' },
    ];
    expectUsed(await post(server.url, '/products', batch), '[2].shop');
    expectUsed(
      await post(server.url, '/products', [
        { shop: 'c', sku: '1' },
        { shop: 's1', sku: 'A-1' },
      ]),
      '[1].shop',
    );
    expect(await count()).to.equal(before);
  });

  it('answers a GraphQL mutation repeating a value with status 422 and the violation', async () => {
    await post(server.url, '/shops', { name: 'Graph' });
    const answer = await graphql(server.url, 'mutation { createShop(input: { name: "Graph" }) { shop { id } } }');
    expect(answer.data, JSON.stringify(answer)).to.deep.equal({ createShop: null });
    expect(answer.errors![0].extensions?.status).to.equal(422);
    expect(answer.errors![0].extensions?.violations).to.deep.equal([{ path: 'name', message: USED }]);
    const other = await post(server.url, '/shops', { name: 'Graph 2' });
    const update = await graphql(
      server.url,
      `mutation { updateShop(input: { id: "/shops/${(other.json as Any).id}", name: "Graph" }) { shop { id } } }`,
    );
    expect(update.errors?.[0]?.extensions?.status, JSON.stringify(update)).to.equal(422);
    expect(update.errors![0].extensions?.violations).to.deep.equal([{ path: 'name', message: USED }]);
  });

  it('answers an MCP tool call repeating a value as a tool result with isError and the violation', async () => {
    await post(server.url, '/shops', { name: 'Tool' });
    const client = new Client({ name: 'apidsl-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const result = (await client.callTool({
        name: 'post_shop',
        arguments: { body: { name: 'Tool' } },
      })) as CallToolResult;
      expect(result.isError).to.equal(true);
      const doc = result.structuredContent as Any;
      expect(doc.status).to.equal(422);
      expect(doc.violations).to.deep.equal([{ propertyPath: 'name', message: USED, code: UNIQUE_ENTITY }]);
    } finally {
      await client.close();
    }
  });
});
