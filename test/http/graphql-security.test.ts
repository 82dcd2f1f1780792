/**
 * Secure by default on every face (docs/graphql.md, "Secure by default"; fixture graphql-marketplace.api): the
 * GraphQL operations of resources without a graphql block run their REST twin's security, `node(id)` and relation
 * fields run the related resource's Get security (null and an error with `extensions.status` for whoever it
 * denies), no default operation exists where its REST twin does not, and each MCP tool runs its operation's
 * security. Black-box over HTTP, with the MCP SDK's client.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadApi } from '../../server/load-api.js';
import { mcpTools } from '../../server/mcp/tools.js';
import { fixture, get, useServer } from './harness.js';
import { graphql, seed, type GraphQlAnswer } from './graphql-helpers.js';
import { as, bearer, token } from './security-helpers.js';

const FILE = fixture('graphql-marketplace.api');

/** The one error of an answer, its path and status. */
function refusal(answer: GraphQlAnswer): { path: string; status: number | undefined }[] {
  return (answer.errors ?? []).map((e) => ({ path: (e.path ?? []).join('.'), status: e.extensions?.status }));
}

describe('GraphQL and MCP secure by default (graphql-marketplace.api)', function () {
  this.timeout(30_000);
  const server = useServer(FILE);
  let alice: Record<string, string>; // owns shop 1 and products 1, 2
  let bob: Record<string, string>; // bought order 1 (lines 1 and 2)
  let carol: Record<string, string>; // a user who owns and bought nothing
  before(async () => {
    alice = bearer(await token({ sub: 'alice', roles: ['ROLE_USER'] }));
    bob = bearer(await token({ sub: 'bob', roles: ['ROLE_USER'] }));
    carol = bearer(await token({ sub: 'carol', roles: ['ROLE_USER'] }));
    const base = server.url;
    await seed(base, '/shops', [{ name: 'Corner', owner: 'alice' }], alice);
    await seed(
      base,
      '/products',
      [
        { title: 'Lamp', price: 10, owner: 'alice', shop: '/shops/1' },
        { title: 'Chair', price: 20, owner: 'alice', shop: '/shops/1' },
        { title: 'Desk', price: 30, owner: 'alice', shop: '/shops/1' },
      ],
      alice,
    );
    await seed(
      base,
      '/order_lines',
      [
        { quantity: 3, buyer: 'bob', product: '/products/1' },
        { quantity: 1, buyer: 'bob', product: '/products/3' },
      ],
      bob,
    );
    await seed(base, '/orders', [{ buyer: 'bob', lines: ['/order_lines/1', '/order_lines/2'] }], bob);
    await seed(
      base,
      '/shipments',
      [{ carrier: 'Post', order: '/orders/1', lines: ['/order_lines/1', '/order_lines/2'] }],
      bob,
    );
  });

  const price = async (id: number) => (await get(server.url, `/products/${id}`)).json?.price;

  describe('mutations without a graphql block run the REST twin’s security', () => {
    const update = 'mutation { updateProduct(input: { id: "/products/1", price: 0.01 }) { product { price } } }';
    const remove = (id: number) => `mutation { deleteProduct(input: { id: "/products/${id}" }) { product { id } } }`;

    it('refuses an anonymous update and delete with 401, and stores nothing', async () => {
      const updated = await graphql(server.url, update);
      expect(updated.data).to.deep.equal({ updateProduct: null });
      expect(refusal(updated)).to.deep.equal([{ path: 'updateProduct', status: 401 }]);
      const deleted = await graphql(server.url, remove(2));
      expect(deleted.data).to.deep.equal({ deleteProduct: null });
      expect(refusal(deleted)).to.deep.equal([{ path: 'deleteProduct', status: 401 }]);
      expect(await price(1)).to.equal(10);
      expect((await get(server.url, '/products/2')).status).to.equal(200);
    });

    it('refuses another user with 403 and the Patch’s message, and lets the owner update and delete', async () => {
      const denied = await graphql(server.url, update, {}, carol);
      expect(refusal(denied)).to.deep.equal([{ path: 'updateProduct', status: 403 }]);
      expect(denied.errors![0].message).to.equal('Only the owner may change this product.');
      expect(refusal(await graphql(server.url, remove(2), {}, carol))).to.deep.equal([
        { path: 'deleteProduct', status: 403 },
      ]);
      expect(await price(1)).to.equal(10);
      const allowed = await graphql(server.url, update, {}, alice);
      expect(allowed).to.deep.equal({ data: { updateProduct: { product: { price: 0.01 } } } });
      expect(await price(1)).to.equal(0.01);
      const deleted = await graphql(server.url, remove(2), {}, alice);
      expect(deleted).to.deep.equal({ data: { deleteProduct: { product: { id: '/products/2' } } } });
      expect((await get(server.url, '/products/2')).status).to.equal(404);
    });

    it('refuses an anonymous create as the Post does', async () => {
      const count = async () => (await get(server.url, '/products')).json?.totalItems as number;
      const before = await count();
      const created = await graphql(
        server.url,
        'mutation { createProduct(input: { title: "Free", owner: "mallory" }) { product { id } } }',
      );
      expect(refusal(created)).to.deep.equal([{ path: 'createProduct', status: 401 }]);
      expect(await count()).to.equal(before);
    });

    it('generates no operation whose REST twin is absent (introspection)', async () => {
      const answer = await graphql(
        server.url,
        '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }',
      );
      const names = (root: { fields: { name: string }[] }) => root.fields.map((f) => f.name);
      const queries = names(answer.data.__schema.queryType);
      const mutations = names(answer.data.__schema.mutationType);
      // Shop: no Delete. OrderLine: no GetCollection, Patch, Put or Delete. Order, Shipment: no Patch or Delete.
      expect(mutations).to.include.members(['createShop', 'updateShop', 'createProduct', 'updateProduct']);
      expect(mutations).to.include.members(['deleteProduct', 'createOrder', 'createOrderLine', 'createShipment']);
      for (const absent of ['deleteShop', 'updateOrderLine', 'deleteOrderLine', 'updateOrder', 'deleteOrder'])
        expect(mutations).to.not.include(absent);
      expect(queries).to.include.members(['orderLine', 'order', 'orders', 'shop', 'shops']);
      expect(queries).to.not.include('orderLines');
      // orders is the admin-only GetCollection: its GraphQL face is too.
      expect(refusal(await graphql(server.url, '{ orders { edges { node { id } } } }', {}, bob))).to.deep.equal([
        { path: 'orders', status: 403 },
      ]);
    });
  });

  describe('node(id) and relation fields run the related resource’s Get security', () => {
    const line = '{ node(id: "/order_lines/1") { id ... on OrderLine { quantity product { title } } } }';

    it('node(): null and 401 for an anonymous user, 403 for another, the line for its buyer (as REST)', async () => {
      expect((await get(server.url, '/order_lines/1')).status).to.equal(401);
      const anonymous = await graphql(server.url, line);
      expect(anonymous.data).to.deep.equal({ node: null });
      expect(refusal(anonymous)).to.deep.equal([{ path: 'node', status: 401 }]);
      const other = await graphql(server.url, line, {}, carol);
      expect(other.data).to.deep.equal({ node: null });
      expect(refusal(other)).to.deep.equal([{ path: 'node', status: 403 }]);
      expect(other.errors![0].message).to.equal('Not your order line.');
      expect(await graphql(server.url, line, {}, bob)).to.deep.equal({
        data: { node: { id: '/order_lines/1', quantity: 3, product: { title: 'Lamp' } } },
      });
      // The item query, as node().
      expect(refusal(await graphql(server.url, '{ orderLine(id: "/order_lines/1") { quantity } }'))).to.deep.equal([
        { path: 'orderLine', status: 401 },
      ]);
    });

    const shipment =
      '{ shipment(id: "/shipments/1") { carrier order { buyer } lines { edges { node { quantity } } } } }';

    it('a to-one and a to-many relation to guarded items: null and an error each, the public item shown', async () => {
      const anonymous = await graphql(server.url, shipment);
      expect(anonymous.data).to.deep.equal({ shipment: { carrier: 'Post', order: null, lines: null } });
      expect(refusal(anonymous)).to.have.deep.members([
        { path: 'shipment.order', status: 401 },
        { path: 'shipment.lines', status: 401 },
      ]);
      const other = await graphql(server.url, shipment, {}, carol);
      expect(other.data).to.deep.equal({ shipment: { carrier: 'Post', order: null, lines: null } });
      expect(refusal(other).map((e) => e.status)).to.deep.equal([403, 403]);
      expect(await graphql(server.url, shipment, {}, bob)).to.deep.equal({
        data: {
          shipment: {
            carrier: 'Post',
            order: { buyer: 'bob' },
            lines: { edges: [{ node: { quantity: 3 } }, { node: { quantity: 1 } }] },
          },
        },
      });
    });

    it('a guarded relation in a collection page: null and an error per member, the buyer sees it', async () => {
      const page = '{ shipments { edges { node { carrier order { buyer } } } } }';
      const anonymous = await graphql(server.url, page);
      expect(anonymous.data).to.deep.equal({ shipments: { edges: [{ node: { carrier: 'Post', order: null } }] } });
      expect(refusal(anonymous)).to.deep.equal([{ path: 'shipments.edges.0.node.order', status: 401 }]);
      expect((await graphql(server.url, page, {}, bob)).data).to.deep.equal({
        shipments: { edges: [{ node: { carrier: 'Post', order: { buyer: 'bob' } } }] },
      });
    });

    it('a relation of a node() to a guarded item: the order’s lines for its buyer only', async () => {
      const order = '{ node(id: "/shipments/1") { ... on Shipment { order { lines { edges { node { id } } } } } } }';
      const anonymous = await graphql(server.url, order);
      expect(anonymous.data).to.deep.equal({ node: { order: null } });
      expect(refusal(anonymous)).to.deep.equal([{ path: 'node.order', status: 401 }]);
      expect((await graphql(server.url, order, {}, bob)).data.node.order.lines.edges).to.have.length(2);
    });
  });

  describe('MCP: each tool runs its operation’s security', () => {
    let anonymous: Client;
    before(async () => {
      anonymous = new Client({ name: 'apidsl-test', version: '1.0.0' });
      await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    });
    after(() => anonymous?.close());

    it('answers every guarded tool, called anonymously, with isError and 401, and stores nothing', async () => {
      const api = await loadApi(FILE);
      const guarded = mcpTools(api).filter((t) => typeof t.operation.options.security === 'string');
      expect(guarded.map((t) => t.name)).to.include.members(['patch_product', 'delete_product', 'get_order_line']);
      for (const tool of guarded) {
        const args: Record<string, unknown> = {};
        for (const name of tool.pathArguments) args[name] = 1;
        if (tool.bodyType) args.body = {};
        const result = (await anonymous.callTool({ name: tool.name, arguments: args })) as CallToolResult;
        expect(result.isError, tool.name).to.equal(true);
        expect((result.structuredContent as { status?: number }).status, tool.name).to.equal(401);
      }
      expect((await as(undefined, server.url, 'GET', '/products/3')).json?.title).to.equal('Desk');
    });

    it('lets the owner through the same tool', async () => {
      const owner = new Client({ name: 'apidsl-test', version: '1.0.0' });
      await owner.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: alice } }),
      );
      try {
        const result = (await owner.callTool({
          name: 'patch_product',
          arguments: { id: 3, body: { price: 31 } },
        })) as CallToolResult;
        expect(result.isError ?? false).to.equal(false);
        expect(await price(3)).to.equal(31);
      } finally {
        await owner.close();
      }
    });
  });
});
