/**
 * Row-level scopes fail closed (docs/scopes.md, "When a request value fails"): a scope whose request values cannot
 * be evaluated for the caller (a claim that is not there, a division by zero, `in` on a string, `user` null for an
 * anonymous caller) shows that caller nothing and lets it change nothing, on every face: REST, GraphQL and MCP
 * (fixture scopes-faces.api). Each caller is run through one table of faces; afterwards the stored rows are as
 * they were, and a caller whose claims evaluate sees its rows.
 */
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { graphql } from './graphql-helpers.js';
import { fixture, request, useServer, type HttpResponse } from './harness.js';
import { call, httpClient } from './mcp-helpers.js';
import { bearer, token } from './security-helpers.js';

/** A resource of the fixture as each face names it. */
interface Scoped {
  path: string;
  type: string;
  /** A stored item some failure of the scope would show: its id. */
  id: number;
  /** A body the write scope would have to accept. */
  body: Record<string, unknown>;
}

const LEDGER: Scoped = { path: '/ledgers', type: 'Ledger', id: 1, body: { owner: 'acme', level: 1 } };
const NOTICE: Scoped = { path: '/notices', type: 'Notice', id: 1, body: { owner: 'acme', level: 1 } };
const SHARE: Scoped = { path: '/shares', type: 'Share', id: 1, body: { owner: 'acme', level: 1 } };
const MEMO: Scoped = { path: '/memos', type: 'Memo', id: 1, body: { owner: 'acme', level: 1 } };

/** A caller: its headers, and its MCP client (made once). */
interface Caller {
  headers: Record<string, string>;
  mcp: Client;
}

const lower = (type: string): string => type[0]!.toLowerCase() + type.slice(1);
const snake = (type: string): string => type.toLowerCase();
const ids = (members: unknown): number[] => (members as { id: number }[]).map((m) => m.id);
/** The status of the error a mutation of `r` answers (undefined: none). */
async function mutationStatus(base: string, r: Scoped, who: Caller, kind: string, input: string) {
  const mutation = `mutation { ${kind}${r.type}(input: { ${input} }) { ${lower(r.type)} { id } } }`;
  const answer = await graphql(base, mutation, {}, who.headers);
  return answer.errors?.[0]?.extensions?.status;
}

/**
 * A face, and what a caller whose scope fails observes there: on a resource whose read (and so write) scope
 * fails, and on Memo, whose scope of writes alone fails (its three rows stay readable).
 */
type Face = [
  name: string,
  run: (base: string, r: Scoped, who: Caller) => Promise<unknown>,
  readScopeFails: unknown,
  writeScopeFails: unknown,
];

/** Every face that reads or writes a scoped resource. */
const FACES: Face[] = [
  [
    'REST GetCollection',
    async (base, r, who) => {
      const page = await request(base, 'GET', r.path, { headers: who.headers });
      return { status: page.status, members: ids(page.json.member), totalItems: page.json.totalItems };
    },
    { status: 200, members: [], totalItems: 0 },
    { status: 200, members: [1, 2], totalItems: 3 },
  ],
  [
    'REST GetCollection unpaginated',
    async (base, r, who) => {
      const all = await request(base, 'GET', `${r.path}/all`, { headers: who.headers });
      return { status: all.status, members: ids(all.json.member) };
    },
    { status: 200, members: [] },
    { status: 200, members: [1, 2, 3] },
  ],
  [
    'REST QUERY',
    async (base, r, who) => {
      const page = await request(base, 'QUERY', r.path, { headers: who.headers, body: {} });
      return { status: page.status, members: ids(page.json.member), totalItems: page.json.totalItems };
    },
    { status: 200, members: [], totalItems: 0 },
    { status: 200, members: [1, 2], totalItems: 3 },
  ],
  [
    'REST Get',
    async (base, r, who) => {
      const hidden = await request(base, 'GET', `${r.path}/${r.id}`, { headers: who.headers });
      const unknown = await request(base, 'GET', `${r.path}/999`, { headers: who.headers });
      return { status: hidden.status, asUnknown: hidden.text === unknown.text };
    },
    { status: 404, asUnknown: true },
    { status: 200, asUnknown: false },
  ],
  [
    'REST PATCH',
    async (base, r, who) => statusOf(request(base, 'PATCH', `${r.path}/${r.id}`, patchOf(who, { level: 9 }))),
    404,
    403,
  ],
  [
    'REST PUT',
    async (base, r, who) =>
      statusOf(request(base, 'PUT', `${r.path}/${r.id}`, { headers: who.headers, body: { ...r.body, level: 9 } })),
    404,
    403,
  ],
  [
    'REST DELETE',
    async (base, r, who) => statusOf(request(base, 'DELETE', `${r.path}/${r.id}`, { headers: who.headers })),
    404,
    403,
  ],
  [
    'REST POST',
    async (base, r, who) => statusOf(request(base, 'POST', r.path, { headers: who.headers, body: r.body })),
    403,
    403,
  ],
  [
    'GraphQL collection',
    async (base, r, who) => {
      const { data } = await graphql(
        base,
        `{ ${lower(r.type)}s { totalCount edges { node { id } } } }`,
        {},
        who.headers,
      );
      const connection = data[`${lower(r.type)}s`];
      return { totalCount: connection.totalCount, edges: connection.edges };
    },
    { totalCount: 0, edges: [] },
    {
      totalCount: 3,
      edges: [{ node: { id: '/memos/1' } }, { node: { id: '/memos/2' } }], // two a page, as on REST
    },
  ],
  [
    'GraphQL item',
    async (base, r, who) => {
      const item = (id: string) => graphql(base, `{ ${lower(r.type)}(id: "${id}") { id } }`, {}, who.headers);
      const hidden = await item(`${r.path}/${r.id}`);
      const asUnknown = JSON.stringify(hidden) === JSON.stringify(await item(`${r.path}/999`));
      return { item: hidden.data?.[lower(r.type)], errors: hidden.errors, asUnknown };
    },
    { item: null, errors: undefined, asUnknown: true },
    { item: { id: '/memos/1' }, errors: undefined, asUnknown: false },
  ],
  [
    'GraphQL update',
    async (base, r, who) => mutationStatus(base, r, who, 'update', `id: "${r.path}/${r.id}", level: 9`),
    404,
    403,
  ],
  [
    'GraphQL delete',
    async (base, r, who) => mutationStatus(base, r, who, 'delete', `id: "${r.path}/${r.id}"`),
    404,
    403,
  ],
  [
    'GraphQL create',
    async (base, r, who) => mutationStatus(base, r, who, 'create', `owner: "acme", level: 1`),
    403,
    403,
  ],
  [
    'MCP list tool',
    async (_, r, who) => {
      const { isError, doc } = await call(who.mcp, `get_collection_${snake(r.type)}`);
      return { isError, members: ids(doc.member), totalItems: doc.totalItems };
    },
    { isError: false, members: [], totalItems: 0 },
    { isError: false, members: [1, 2], totalItems: 3 },
  ],
  [
    'MCP get tool',
    async (_, r, who) => toolStatus(call(who.mcp, `get_${snake(r.type)}`, { id: r.id })),
    { isError: true, status: 404 },
    { isError: false, status: undefined },
  ],
  [
    'MCP patch tool',
    async (_, r, who) => toolStatus(call(who.mcp, `patch_${snake(r.type)}`, { id: r.id, body: { level: 9 } })),
    { isError: true, status: 404 },
    { isError: true, status: 403 },
  ],
  [
    'MCP put tool',
    async (_, r, who) => toolStatus(call(who.mcp, `put_${snake(r.type)}`, { id: r.id, body: { ...r.body, level: 9 } })),
    { isError: true, status: 404 },
    { isError: true, status: 403 },
  ],
  [
    'MCP unpaginated list tool',
    async (_, r, who) => {
      const { isError, doc } = await call(who.mcp, `all_${snake(r.type)}s`);
      return { isError, members: ids(doc.member) };
    },
    { isError: false, members: [] },
    { isError: false, members: [1, 2, 3] },
  ],
  [
    'MCP delete tool',
    async (_, r, who) => toolStatus(call(who.mcp, `delete_${snake(r.type)}`, { id: r.id })),
    { isError: true, status: 404 },
    { isError: true, status: 403 },
  ],
  [
    'MCP post tool',
    async (_, r, who) => toolStatus(call(who.mcp, `post_${snake(r.type)}`, { body: r.body })),
    { isError: true, status: 403 },
    { isError: true, status: 403 },
  ],
];

const statusOf = async (response: Promise<HttpResponse>): Promise<number> => (await response).status;
const patchOf = (who: Caller, body: unknown) => ({
  headers: { ...who.headers, 'Content-Type': 'application/merge-patch+json' },
  body: JSON.stringify(body),
});
const toolStatus = async (result: ReturnType<typeof call>) => {
  const { isError, doc } = await result;
  return { isError, status: doc.status };
};

/** The callers whose scope fails, by resource: what makes it fail, and their claims (undefined: anonymous). */
const FAILING: [Scoped, string, Record<string, unknown> | undefined][] = [
  [LEDGER, "no 'tenant' claim (a missing member)", { divisor: 1, flags: [] }],
  [LEDGER, "'divisor' 0 (division by zero)", { tenant: 'acme', divisor: 0, flags: [] }],
  [LEDGER, "'divisor' a string ('/' needs numbers)", { tenant: 'acme', divisor: 'one', flags: [] }],
  [LEDGER, "'flags' a string ('in' needs an array, under not)", { tenant: 'acme', divisor: 1, flags: 'banned' }],
  [LEDGER, 'anonymous (user null)', undefined],
  [NOTICE, "no 'blocked' claim (under not in)", {}],
  [NOTICE, "'blocked' null", { blocked: null }],
  [NOTICE, "'blocked' a string", { blocked: 'other' }],
  [NOTICE, 'anonymous (user null)', undefined],
  [SHARE, "no 'teams' claim (under in)", {}],
  [SHARE, "'teams' a string", { teams: 'acme' }],
  [SHARE, 'anonymous (user null)', undefined],
];

describe('row-level scopes fail closed on every face (fixture scopes-faces.api)', function () {
  this.timeout(120_000);
  const server = useServer(fixture('scopes-faces.api'));
  const clients: Client[] = [];
  let staff: Record<string, string>;

  const caller = async (claims: Record<string, unknown> | undefined): Promise<Caller> => {
    const headers = claims === undefined ? {} : bearer(await token({ sub: 'nia', claims }));
    const mcp = await httpClient(server.url, headers);
    clients.push(mcp);
    return { headers, mcp };
  };
  /** The rows as staff read them, one by one (a page holds two). */
  const stored = async (r: Scoped) => {
    const rows = [1, 2, 3].map((id) => request(server.url, 'GET', `${r.path}/${id}`, { headers: staff }));
    return (await Promise.all(rows)).map((row) => row.json);
  };

  before(async () => {
    staff = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
    for (const r of [LEDGER, NOTICE, SHARE, MEMO])
      for (const body of [
        { owner: 'acme', level: 5 },
        { owner: 'acme', level: 20 },
        { owner: 'other', level: 5 },
      ]) {
        const created = await request(server.url, 'POST', r.path, { headers: staff, body });
        expect(created.status, created.text).to.equal(201);
      }
  });
  after(() => Promise.all(clients.map((c) => c.close())));

  /** Runs every face as the caller; what it observes must be the table's column, and nothing stored changes. */
  const everyFace = async (resource: Scoped, claims: Record<string, unknown> | undefined, column: 2 | 3) => {
    const before = await stored(resource);
    const who = await caller(claims);
    const observed: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (const face of FACES) {
      observed[face[0]] = await face[1](server.url, resource, who);
      expected[face[0]] = face[column];
    }
    expect(observed).to.deep.equal(expected);
    expect(await stored(resource)).to.deep.equal(before);
  };

  for (const [resource, failure, claims] of FAILING)
    it(`${resource.type}, caller with ${failure}: denied on each face`, () => everyFace(resource, claims, 2));

  for (const [failure, claims] of [
    ["no 'tenant' claim", {}],
    ['anonymous (user null)', undefined],
  ] as const)
    it(`Memo (a scope of writes alone), caller with ${failure}: reads, and every write refused`, () =>
      everyFace(MEMO, claims, 3));

  it('shows a caller whose claims evaluate exactly the items its scope holds', async () => {
    const ann = await caller({ tenant: 'acme', divisor: 1, flags: [], blocked: ['other'], teams: ['other'] });
    const listed = async (r: Scoped) =>
      ids((await request(server.url, 'GET', r.path, { headers: ann.headers })).json.member);
    expect(await listed(LEDGER)).to.deep.equal([1]); // acme's, level <= 10 / 1
    expect(await listed(NOTICE)).to.deep.equal([1, 2]); // all but other's
    expect(await listed(SHARE)).to.deep.equal([3]); // other's only
    const share = (owner: string) => request(server.url, 'POST', '/shares', { headers: ann.headers, body: { owner } });
    expect((await share('acme')).status).to.equal(403);
    expect((await share('other')).status).to.equal(201);
    const halved = await caller({ tenant: 'acme', divisor: 0.5, flags: [] });
    const twenty = await request(server.url, 'GET', '/ledgers', { headers: halved.headers });
    expect(ids(twenty.json.member)).to.deep.equal([1, 2]); // level <= 20
    const list = await call(ann.mcp, 'get_collection_ledger');
    expect(ids(list.doc.member)).to.deep.equal([1]);
  });

  it('lets the other parts of an `or` hold where one part fails', async () => {
    const acme = await caller({ tenant: 'acme' });
    for (const body of [
      { owner: 'acme', level: 5 },
      { owner: 'other', level: 20 },
    ]) {
      const created = await request(server.url, 'POST', '/bulletins', { headers: acme.headers, body });
      expect(created.status, created.text).to.equal(201);
    }
    for (const claims of [{}, undefined, { tenant: null }]) {
      const who = await caller(claims);
      const page = await request(server.url, 'GET', '/bulletins', { headers: who.headers });
      expect({ members: ids(page.json.member), totalItems: page.json.totalItems }).to.deep.equal({
        members: [2],
        totalItems: 1,
      });
    }
    expect(ids((await request(server.url, 'GET', '/bulletins', { headers: acme.headers })).json.member)).to.deep.equal([
      1, 2,
    ]);
  });
});
