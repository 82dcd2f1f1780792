/**
 * Filters cannot probe hidden values (docs/security.md; fixture security/filters.api). A criterion on a property
 * that property `security` hides from the caller answers 400 naming the parameter, for every store filter kind
 * (search, range, date, order, exists, boolean) on every face (REST GET, a QUERY body, GraphQL arguments, MCP
 * tool arguments), with no `totalItems` or members to read; staff, whom the rule grants, filter as before. A rule
 * that errs, and one that reads the item, refuse the filter; a named parameter on a hidden property is refused
 * alike; a parameter's own `security` answers 401 or 403.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { graphql } from './graphql-helpers.js';
import { request, useServer, type HttpResponse } from './harness.js';
import { as, bearer, securityFixture, token } from './security-helpers.js';

/** One filter kind on a hidden property, written for each face, and the ids staff get (in order). */
interface KindCase {
  kind: string;
  rest: string;
  query: Record<string, unknown>;
  graphql: string;
  mcp: Record<string, unknown>;
  parameter: string;
  staff: number[];
}

const KINDS: KindCase[] = [
  {
    kind: 'search',
    rest: 'supplier=Acme',
    query: { supplier: 'Acme' },
    graphql: 'supplier: "Acme"',
    mcp: { supplier: 'Acme' },
    parameter: 'supplier',
    staff: [1, 3],
  },
  {
    kind: 'range',
    rest: 'costPrice[between]=17.9..18.1',
    query: { costPrice: { between: '17.9..18.1' } },
    graphql: 'costPrice: [{ between: "17.9..18.1" }]',
    mcp: { 'costPrice[between]': '17.9..18.1' },
    parameter: 'costPrice[between]',
    staff: [2],
  },
  {
    kind: 'date',
    rest: 'restockedAt[after]=2024-02-01',
    query: { restockedAt: { after: '2024-02-01' } },
    graphql: 'restockedAt: [{ after: "2024-02-01" }]',
    mcp: { 'restockedAt[after]': '2024-02-01' },
    parameter: 'restockedAt[after]',
    staff: [2],
  },
  {
    kind: 'order',
    rest: 'order[costPrice]=desc',
    query: { order: { costPrice: 'desc' } },
    graphql: 'order: [{ costPrice: "DESC" }]',
    mcp: { 'order[costPrice]': 'desc' },
    parameter: 'order[costPrice]',
    staff: [2, 3, 1],
  },
  {
    kind: 'exists',
    rest: 'exists[restockedAt]=false',
    query: { exists: { restockedAt: false } },
    graphql: 'exists: [{ restockedAt: false }]',
    mcp: { 'exists[restockedAt]': false },
    parameter: 'exists[restockedAt]',
    staff: [3],
  },
  {
    kind: 'boolean',
    rest: 'clearance=true',
    query: { clearance: true },
    graphql: 'clearance: true',
    mcp: { clearance: true },
    parameter: 'clearance',
    staff: [2],
  },
];

const PRODUCTS = [
  { name: 'Anvil', owner: 'alice', price: 10, supplier: 'Acme', costPrice: 4.5, clearance: false },
  { name: 'Bolt', owner: 'bob', price: 2, supplier: 'Bolts', costPrice: 18, clearance: true },
  { name: 'Crate', owner: 'alice', price: 30, supplier: 'Acme', costPrice: 12, clearance: false },
].map((p, i) => ({
  ...p,
  margin: i + 1,
  markup: i + 1,
  ...(i < 2 ? { restockedAt: ['2024-01-10T00:00:00+00:00', '2024-03-01T00:00:00+00:00'][i] } : {}),
}));

type Ids = { status: number; ids?: number[]; total?: number; detail?: string; body?: unknown };

/** What each face answers for one case: the status, the ids in order and the total, or the problem's detail. */
interface Face {
  name: string;
  ask(user: string | undefined, c: KindCase): Promise<Ids>;
}

const memberIds = (r: HttpResponse): number[] => (r.json.member as { id: number }[]).map((m) => m.id);

function restAnswer(r: HttpResponse): Ids {
  if (r.status !== 200) {
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    return { status: r.status, detail: r.json.detail, body: r.json };
  }
  return { status: 200, ids: memberIds(r), total: r.json.totalItems };
}

describe('security: filters cannot probe hidden values (fixture security/filters.api)', function () {
  this.timeout(60_000);
  const server = useServer(securityFixture('filters.api'));
  const tokens: Record<string, string | undefined> = {};
  const clients = new Map<string | undefined, Client>();

  before(async () => {
    tokens.alice = await token({ sub: 'alice', roles: ['ROLE_USER'] });
    tokens.staff = await token({ sub: 'sam', roles: ['ROLE_STAFF'] });
    for (const body of PRODUCTS) {
      const r = await as(tokens.staff, server.url, 'POST', '/products', { body });
      expect(r.status, r.text).to.equal(201);
    }
  });
  after(async () => {
    for (const client of clients.values()) await client.close();
  });

  async function mcpClient(user: string | undefined): Promise<Client> {
    let client = clients.get(user);
    if (!client) {
      client = new Client({ name: 'apidsl-test', version: '1.0.0' });
      const headers = user ? bearer(user) : {};
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }),
      );
      clients.set(user, client);
    }
    return client;
  }

  const FACES: Face[] = [
    {
      name: 'REST GET',
      ask: async (user, c) => restAnswer(await as(user, server.url, 'GET', `/products?${c.rest}`)),
    },
    {
      name: 'QUERY body',
      ask: async (user, c) =>
        restAnswer(
          await as(user, server.url, 'QUERY', '/products', {
            body: JSON.stringify(c.query),
            headers: { 'Content-Type': 'application/json' },
          }),
        ),
    },
    {
      name: 'GraphQL',
      ask: async (user, c) => {
        const answer = await graphql(
          server.url,
          `{ products(${c.graphql}) { totalCount edges { node { _id } } } }`,
          {},
          user ? bearer(user) : {},
        );
        if (answer.errors) {
          expect(answer.data?.products ?? null, 'no page beside the error').to.equal(null);
          return { status: answer.errors[0].extensions?.status ?? 0, detail: answer.errors[0].message };
        }
        const page = answer.data.products as { totalCount: number; edges: { node: { _id: number } }[] };
        return { status: 200, ids: page.edges.map((e) => e.node._id), total: page.totalCount };
      },
    },
    {
      name: 'MCP',
      ask: async (user, c) => {
        const client = await mcpClient(user);
        const result = (await client.callTool({ name: 'get_collection_product', arguments: c.mcp })) as CallToolResult;
        const doc = result.structuredContent as Record<string, unknown>;
        if (result.isError) return { status: doc.status as number, detail: doc.detail as string, body: doc };
        const members = (doc.member as { id: number }[]).map((m) => m.id);
        return { status: 200, ids: members, total: doc.totalItems as number };
      },
    },
  ];

  for (const face of FACES) {
    describe(face.name, () => {
      for (const c of KINDS) {
        it(`${c.kind}: 400 naming "${c.parameter}" to anonymous and to a user, staff get [${c.staff.join(', ')}]`, async () => {
          for (const who of [undefined, 'alice']) {
            const denied = await face.ask(who && tokens[who], c);
            expect(denied.status, `${who ?? 'anonymous'}: ${JSON.stringify(denied)}`).to.equal(400);
            expect(denied.detail).to.include(`"${c.parameter}"`);
            expect(denied.ids, 'no members').to.equal(undefined);
            expect(JSON.stringify(denied.body ?? {}), 'no count').not.to.match(/totalItems|totalCount/);
          }
          const staff = await face.ask(tokens.staff, c);
          expect(staff, JSON.stringify(staff)).to.deep.include({ status: 200, ids: c.staff, total: c.staff.length });
        });
      }

      it('a visible property filters as before for everyone', async () => {
        const visible: KindCase = {
          kind: 'range',
          rest: 'price[gt]=5',
          query: { price: { gt: '5' } },
          graphql: 'price: [{ gt: "5" }]',
          mcp: { 'price[gt]': 5 },
          parameter: 'price[gt]',
          staff: [1, 3],
        };
        for (const who of [undefined, 'alice', 'staff']) {
          const answer = await face.ask(who && tokens[who], visible);
          expect(answer, `${who ?? 'anonymous'}: ${JSON.stringify(answer)}`).to.deep.include({
            status: 200,
            ids: [1, 3],
            total: 2,
          });
        }
      });
    });
  }

  describe('rules that cannot grant before the read', () => {
    it('a rule that errs (its voter throws) refuses the filter to everyone, staff included', async () => {
      for (const who of [undefined, 'alice', 'staff']) {
        const r = await as(who && tokens[who], server.url, 'GET', '/products?margin[gt]=1');
        expect(r.status, r.text).to.equal(400);
        expect(r.json.detail).to.include('"margin[gt]"');
      }
    });

    it('a rule that reads the item refuses the filter to those it grants only by the item; staff filter', async () => {
      const alice = await as(tokens.alice, server.url, 'GET', '/products?markup[gt]=1');
      expect(alice.status, alice.text).to.equal(400);
      expect(alice.json.detail).to.include('"markup[gt]"');
      const staff = await as(tokens.staff, server.url, 'GET', '/products?markup[gt]=1');
      expect(staff.status, staff.text).to.equal(200);
      expect(memberIds(staff)).to.deep.equal([2, 3]);
    });
  });

  describe('parameters', () => {
    it('a named parameter on a hidden property answers 400 naming it; staff filter with it', async () => {
      for (const who of [undefined, 'alice']) {
        const r = await as(who && tokens[who], server.url, 'GET', '/products?cost[gt]=10');
        expect(r.status, r.text).to.equal(400);
        expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(r.json.detail).to.include('"cost[gt]"');
        expect(r.json).not.to.have.property('totalItems');
      }
      const staff = await as(tokens.staff, server.url, 'GET', '/products?cost[gt]=10');
      expect(staff.status, staff.text).to.equal(200);
      expect(memberIds(staff)).to.deep.equal([2, 3]);
      expect(staff.json.totalItems).to.equal(2);
    });

    it("a parameter's security denies with 401 to anonymous, 403 and its message to a user; staff filter", async () => {
      const anonymous = await request(server.url, 'GET', '/products?cheaperThan[lt]=5');
      expect(anonymous.status, anonymous.text).to.equal(401);
      expect(anonymous.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(anonymous.json.detail).to.equal('Staff compare prices.');
      const alice = await as(tokens.alice, server.url, 'GET', '/products?cheaperThan[lt]=5');
      expect(alice.status, alice.text).to.equal(403);
      expect(alice.json.detail).to.equal('Staff compare prices.');
      const staff = await as(tokens.staff, server.url, 'GET', '/products?cheaperThan[lt]=5');
      expect(staff.status, staff.text).to.equal(200);
      expect(memberIds(staff)).to.deep.equal([2]);
    });

    it('in a QUERY body and in MCP tool arguments alike: 400 for a hidden property, 401/403 for a denied parameter', async () => {
      const faces = FACES.filter((f) => f.name === 'QUERY body' || f.name === 'MCP');
      const named = (parameter: string, value: Record<string, unknown>, mcp: Record<string, unknown>): KindCase => ({
        kind: 'named',
        rest: '',
        query: { [parameter]: value },
        graphql: '',
        mcp: { [parameter]: mcp },
        parameter: `${parameter}[${Object.keys(value)[0]}]`,
        staff: [],
      });
      const cost = named('cost', { gt: '10' }, { gt: 10 });
      const cheaper = named('cheaperThan', { lt: '5' }, { lt: 5 });
      for (const face of faces) {
        for (const who of [undefined, 'alice']) {
          const denied = await face.ask(who && tokens[who], cost);
          expect(denied, `${face.name}, ${who ?? 'anonymous'}`).to.deep.include({ status: 400 });
          expect(denied.detail).to.include('"cost[gt]"');
        }
        expect(await face.ask(tokens.staff, cost), face.name).to.deep.include({ status: 200, ids: [2, 3], total: 2 });
        expect(await face.ask(undefined, cheaper), face.name).to.deep.include({
          status: 401,
          detail: 'Staff compare prices.',
        });
        expect(await face.ask(tokens.alice, cheaper), face.name).to.deep.include({
          status: 403,
          detail: 'Staff compare prices.',
        });
        expect(await face.ask(tokens.staff, cheaper), face.name).to.deep.include({ status: 200, ids: [2], total: 1 });
      }
    });

    it("a parameter's security is not checked when the request does not give the parameter", async () => {
      const r = await request(server.url, 'GET', '/products');
      expect(r.status, r.text).to.equal(200);
      expect(r.json.totalItems).to.equal(3);
    });
  });
});

/**
 * Index reads (an `elasticsearch: true` collection): the same stage runs before the read, for the kinds only the
 * index answers (match, term) as for the others. The engine is a closed port, so no engine is needed: a refused
 * criterion answers 400 without reaching it, one let through reaches it and answers 503 (the read was tried).
 */
describe('security: filters cannot probe hidden values on index reads (fixture security/filters-index.api)', function () {
  this.timeout(60_000);
  const INDEX_KINDS: { kind: string; hidden: string; visible: string }[] = [
    { kind: 'match', hidden: 'note=reorder', visible: 'title=dune' },
    { kind: 'term', hidden: 'supplier=Acme', visible: 'isbn=111' },
    { kind: 'order', hidden: 'order[costPrice]=desc', visible: 'order[title]=asc' },
    { kind: 'range', hidden: 'costPrice[between]=17.9..18.1', visible: 'price[gt]=5' },
  ];
  const savedUrl = process.env.APIDSL_ELASTICSEARCH_URL;
  before(() => void delete process.env.APIDSL_ELASTICSEARCH_URL); // the file's hosts, not the environment's
  after(() => {
    if (savedUrl !== undefined) process.env.APIDSL_ELASTICSEARCH_URL = savedUrl;
  });
  const server = useServer(securityFixture('filters-index.api'));
  let staff: string;
  let alice: string;
  before(async () => {
    staff = await token({ sub: 'sam', roles: ['ROLE_STAFF'] });
    alice = await token({ sub: 'alice', roles: ['ROLE_USER'] });
  });

  for (const c of INDEX_KINDS) {
    it(`${c.kind}: 400 naming the parameter before the index is read; staff and visible properties reach it`, async () => {
      const parameter = decodeURIComponent(c.hidden.split('=')[0]);
      for (const who of [undefined, alice]) {
        const r = await as(who, server.url, 'GET', `/books?${c.hidden}`);
        expect(r.status, r.text).to.equal(400);
        expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(r.json.detail).to.include(`"${parameter}"`);
      }
      const granted = await as(staff, server.url, 'GET', `/books?${c.hidden}`);
      expect(granted.status, `staff reach the index: ${granted.text}`).to.equal(503);
      const visible = await as(alice, server.url, 'GET', `/books?${c.visible}`);
      expect(visible.status, `a visible property reaches the index: ${visible.text}`).to.equal(503);
    });
  }
});
