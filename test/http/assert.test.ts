/**
 * Rules that answer 422 (docs/behaviour.md, "Assertions"): the `assert` constraint, Symfony's Expression
 * constraint, on properties and on the resource. A transition the rule refuses is a 422 violation on the
 * property with the Expression code and the written message (never a 403), in validation order with the other
 * constraints, honouring validation groups, over REST, GraphQL and MCP. Runs on MongoDB as well
 * (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fixture, get, post, request, useServer, type HttpResponse } from './harness.js';
import { graphql } from './graphql-helpers.js';

type Any = any;

const EXPRESSION = '6b3befbc-2f01-4ddf-be21-b57898905284';
const TOO_LONG = 'd94b19cc-114f-4f44-9cc4-4138e80a87b9';
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const NOT_ALLOWED = 'This transition is not allowed.';

const violationsOf = (r: HttpResponse): Any[] => {
  expect(r.status, r.text).to.equal(422);
  return (r.json as Any).violations;
};

describe('assert: rules that answer 422 (fixture assert.api)', function () {
  this.timeout(30_000);
  const server = useServer(fixture('assert.api'));
  const create = async (body: Record<string, unknown>): Promise<number> => {
    const r = await post(server.url, '/orders', body);
    expect(r.status, r.text).to.equal(201);
    return (r.json as Any).id as number;
  };
  const patch = (id: number, body: Record<string, unknown>): Promise<HttpResponse> =>
    request(server.url, 'PATCH', `/orders/${id}`, { headers: MERGE_PATCH, body });

  it('lets the allowed transitions through and answers a refused one with 422 on the property, not 403', async () => {
    const id = await create({ status: 'draft', total: 10, paid: 0 });
    const placed = await patch(id, { status: 'placed' });
    expect(placed.status, placed.text).to.equal(200);
    const same = await patch(id, { title: 'same' });
    expect(same.status, same.text).to.equal(200);
    const back = await patch(id, { status: 'draft' });
    expect(violationsOf(back)).to.deep.equal([{ propertyPath: 'status', message: NOT_ALLOWED, code: EXPRESSION }]);
    expect((back.json as Any).detail).to.equal(`status: ${NOT_ALLOWED}`);
    expect((await get(server.url, `/orders/${id}`)).json).to.include({ status: 'placed' });
    const paid = await patch(id, { status: 'paid', paid: 10 });
    expect(paid.status, paid.text).to.equal(200);
    expect(violationsOf(await patch(id, { status: 'cancelled' }))[0]).to.include({ message: NOT_ALLOWED });
  });

  it('sees previous_object as null on a create, and a list of asserts each with its message', async () => {
    expect(violationsOf(await post(server.url, '/orders', { status: 'paid', total: 5, paid: 0 }))).to.deep.equal([
      { propertyPath: 'status', message: 'An order cannot be created paid.', code: EXPRESSION },
    ]);
  });

  it('uses "This value is not valid." without a message, and a resource-level assert has an empty path, first', async () => {
    const r = await post(server.url, '/orders', { title: 'far too long a title', total: 0, paid: 3 });
    expect(violationsOf(r)).to.deep.equal([
      { propertyPath: '', message: 'Paid cannot exceed the total.', code: EXPRESSION },
      {
        propertyPath: 'title',
        message: 'This value is too long. It should have 10 characters or less.',
        code: TOO_LONG,
      },
      { propertyPath: 'total', message: 'This value is not valid.', code: EXPRESSION },
    ]);
    expect((r.json as Any).detail).to.equal(
      'Paid cannot exceed the total.\ntitle: This value is too long. It should have 10 characters or less.\ntotal: This value is not valid.',
    );
  });

  it('checks an assert only in its validation groups (PUT runs "strict", PATCH does not)', async () => {
    const id = await create({ status: 'draft', total: 10, paid: 0 });
    expect((await patch(id, { note: 'rush' })).status).to.equal(200);
    const put = await request(server.url, 'PUT', `/orders/${id}`, {
      body: { status: 'draft', total: 10, paid: 0, note: 'rush' },
    });
    expect(violationsOf(put)).to.deep.equal([
      { propertyPath: 'note', message: 'This value is not valid.', code: EXPRESSION },
    ]);
  });

  it('answers a GraphQL mutation the rule refuses with status 422 and the violation', async () => {
    const id = await create({ status: 'placed', total: 10, paid: 0 });
    const answer = await graphql(
      server.url,
      `mutation { updateOrder(input: { id: "/orders/${id}", status: "draft" }) { order { status } } }`,
    );
    expect(answer.errors?.[0]?.extensions?.status, JSON.stringify(answer)).to.equal(422);
    expect(answer.errors![0].extensions?.violations).to.deep.equal([{ path: 'status', message: NOT_ALLOWED }]);
  });

  it('answers an MCP tool call the rule refuses as a tool result with isError and the violation', async () => {
    const id = await create({ status: 'placed', total: 10, paid: 0 });
    const client = new Client({ name: 'apidsl-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const result = (await client.callTool({
        name: 'patch_order',
        arguments: { id, body: { status: 'draft' } },
      })) as CallToolResult;
      expect(result.isError).to.equal(true);
      const doc = result.structuredContent as Any;
      expect(doc.status).to.equal(422);
      expect(doc.violations).to.deep.equal([{ propertyPath: 'status', message: NOT_ALLOWED, code: EXPRESSION }]);
    } finally {
      await client.close();
    }
  });
});
