/**
 * Filters on related items' properties (docs/behaviour.md, "Filters on related items"), over HTTP on the store of the
 * run (APIDSL_TEST_STORE): for every filter kind that applies (search in six strategies and on a relation, range,
 * date, exists, boolean), through one relation (`author.name`) and two (`author.country.code`), REST and GraphQL
 * (`author_name`, the default nesting separator) return the same items, the ones expected. Items without a related
 * item match where an absent value would (exists false); authors the caller may not read never match; a property
 * only admins may read answers 400 to others (GraphQL: status 400), naming the parameter. The OpenAPI document, the
 * Hydra search template and the GraphQL arguments name the nested parameters; a non-default separator renames them.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { data, graphql, nodesOf, seed } from './graphql-helpers.js';
import { fixture, get, request, tempDir, useServer } from './harness.js';
import { token } from './security-helpers.js';

/** One criterion as REST writes it and as GraphQL does, and the titles of the books it selects, in order. */
interface Case {
  kind: string;
  rest: string;
  graphql: string;
  titles: string[];
}

// Zed's book (Z1) never matches a nested filter: an anonymous caller may not read Zed (Author's Get security).
const CASES: Case[] = [
  { kind: 'search ipartial', rest: 'author.name=ANN', graphql: 'author_name: "ANN"', titles: ['A1', 'A2'] },
  { kind: 'search start', rest: 'author.nick=bob', graphql: 'author_nick: "bob"', titles: ['B1'] },
  { kind: 'search word_start', rest: 'author.bio=gard', graphql: 'author_bio: "gard"', titles: ['A1', 'A2'] },
  { kind: 'search end', rest: 'author.tag=-y', graphql: 'author_tag: "-y"', titles: ['B1'] },
  {
    kind: 'search exact, two relations',
    rest: 'author.country.code=DE',
    graphql: 'author_country_code: "DE"',
    titles: ['B1'],
  },
  {
    kind: 'search exact, several values',
    rest: 'author.country.code[]=DE&author.country.code[]=FR',
    graphql: 'author_country_code_list: ["DE", "FR"]',
    titles: ['A1', 'A2', 'B1'],
  },
  {
    kind: 'search partial, two relations',
    rest: 'author.country.name=ranc',
    graphql: 'author_country_name: "ranc"',
    titles: ['A1', 'A2'],
  },
  {
    kind: 'search on a relation (IRI)',
    rest: 'author.country=/countries/2',
    graphql: 'author_country: "/countries/2"',
    titles: ['B1'],
  },
  { kind: 'range', rest: 'author.rating[gte]=3', graphql: 'author_rating: [{ gte: "3" }]', titles: ['A1', 'A2'] },
  {
    kind: 'date',
    rest: 'author.born[before]=1980-01-01',
    graphql: 'author_born: [{ before: "1980-01-01" }]',
    titles: ['A1', 'A2'],
  },
  {
    kind: 'exists true',
    rest: 'exists[author.born]=true',
    graphql: 'exists: [{ author_born: true }]',
    titles: ['A1', 'A2', 'B1'],
  },
  // A book without an author has no author.born, as a LEFT JOIN gives it.
  {
    kind: 'exists false',
    rest: 'exists[author.born]=false',
    graphql: 'exists: [{ author_born: false }]',
    titles: ['N1'],
  },
  {
    kind: 'exists false, two relations',
    rest: 'exists[author.country.name]=false',
    graphql: 'exists: [{ author_country_name: false }]',
    titles: ['B1', 'N1'],
  },
  { kind: 'boolean', rest: 'author.alive=false', graphql: 'author_alive: false', titles: ['B1'] },
];

const titlesOf = (members: { title: string }[]): string[] => members.map((m) => m.title);

describe('filters on related items (nested-filters.api)', function () {
  this.timeout(60_000);
  const server = useServer(fixture('nested-filters.api'));
  let admin: Record<string, string>;
  before(async () => {
    admin = { Authorization: `Bearer ${await token({ sub: 'admin', roles: ['ROLE_ADMIN'] })}` };
    await seed(server.url, '/countries', [{ code: 'FR', name: 'France' }, { code: 'DE' }]);
    await seed(
      server.url,
      '/authors',
      [
        {
          name: 'Ann Smith',
          nick: 'annie',
          bio: 'writes about gardens',
          tag: 'alpha-x',
          rating: 5,
          born: '1970-01-01T00:00:00Z',
          alive: true,
          country: '/countries/1',
          email: 'ann@example.com',
          motto: 'carpe diem',
        },
        {
          name: 'Bob Jones',
          nick: 'bobby',
          bio: 'poems',
          tag: 'beta-y',
          rating: 2,
          born: '1990-06-01T00:00:00Z',
          alive: false,
          country: '/countries/2',
          email: 'bob@example.com',
          motto: 'carpe diem',
        },
        // Zed Ann: readable by admins only (Get security), matching most criteria below.
        {
          name: 'Zed Ann',
          nick: 'bobzed',
          bio: 'gardens',
          tag: 'zz-y',
          rating: 4,
          alive: false,
          country: '/countries/1',
        },
      ],
      admin,
    );
    await seed(
      server.url,
      '/books',
      [
        { title: 'A1', author: '/authors/1' },
        { title: 'A2', author: '/authors/1' },
        { title: 'B1', author: '/authors/2' },
        { title: 'Z1', author: '/authors/3' },
        { title: 'N1' },
      ],
      admin,
    );
  });

  it('without a nested criterion, every book is listed (Zed’s too)', async () => {
    const r = await get(server.url, '/books');
    expect(titlesOf(r.json.member)).to.deep.equal(['A1', 'A2', 'B1', 'Z1', 'N1']);
  });

  for (const c of CASES) {
    it(`${c.kind}: REST ?${c.rest} and GraphQL (${c.graphql}) select the same books`, async () => {
      const r = await get(server.url, `/books?${c.rest}`);
      expect(r.status, r.text).to.equal(200);
      expect(titlesOf(r.json.member), 'REST').to.deep.equal(c.titles);
      const d = await data(server.url, `{ books(${c.graphql}) { edges { node { title } } } }`);
      expect(titlesOf(nodesOf(d.books)), 'GraphQL').to.deep.equal(c.titles);
    });
  }

  it('refuses a filter on a property the caller may not read (400 naming it), and serves it to who may', async () => {
    const r = await get(server.url, '/books?author.email=ann@example.com');
    expect(r.status).to.equal(400);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.json.detail).to.equal('Parameter "author.email" is not allowed: it reads a property you may not see.');
    const answer = await graphql(server.url, '{ books(author_email: "ann@example.com") { edges { node { title } } } }');
    expect(answer.errors?.map((e) => e.extensions?.status)).to.deep.equal([400]);
    expect(answer.errors?.[0].message).to.include('author.email');
    const allowed = await get(server.url, '/books?author.email=ann@example.com', admin);
    expect(allowed.status).to.equal(200);
    expect(titlesOf(allowed.json.member)).to.deep.equal(['A1', 'A2']);
  });

  it('applies a property rule that reads the related item author by author, and refuses one on the book itself', async () => {
    // Bob's motto is hidden (rating 2): his book does not match although his motto is the same.
    const r = await get(server.url, '/books?author.motto=carpe%20diem');
    expect(r.status, r.text).to.equal(200);
    expect(titlesOf(r.json.member)).to.deep.equal(['A1', 'A2']);
    const d = await data(server.url, '{ books(author_motto: "carpe diem") { edges { node { title } } } }');
    expect(titlesOf(nodesOf(d.books))).to.deep.equal(['A1', 'A2']);
    const refused = await get(server.url, '/books?editor.name=Ann%20Smith');
    expect(refused.status).to.equal(400);
    expect(refused.json.detail).to.equal(
      'Parameter "editor.name" is not allowed: it reads a property you may not see.',
    );
  });

  it('names the nested parameters in the OpenAPI document and the Hydra search template', async () => {
    const doc = (await get(server.url, '/docs.json')).json;
    const names = (doc.paths['/books'].get.parameters as { name: string }[]).map((p) => p.name);
    for (const name of [
      'author.name',
      'author.name[]',
      'author.country.code',
      'author.rating[gte]',
      'author.born[before]',
      'exists[author.born]',
      'author.alive',
    ])
      expect(names).to.include(name);
    const page = (await get(server.url, '/books')).json;
    const search = page.search ?? page['hydra:search'];
    const variables = (search.mapping ?? search['hydra:mapping']).map((m: { variable: string }) => m.variable);
    expect(variables).to.include.members(['author.name', 'author.country.code', 'exists[author.country.name]']);
  });
});

describe('filters on related items: QUERY bodies and MCP tools (nested-filters.api)', function () {
  this.timeout(60_000);
  const server = useServer(fixture('nested-filters.api'));
  before(async () => {
    await seed(server.url, '/countries', [{ code: 'FR' }, { code: 'DE' }]);
    await seed(server.url, '/authors', [
      { name: 'Ann', country: '/countries/1', born: '1970-01-01T00:00:00Z' },
      { name: 'Bob', country: '/countries/2' },
    ]);
    await seed(server.url, '/books', [
      { title: 'A1', author: '/authors/1' },
      { title: 'B1', author: '/authors/2' },
      { title: 'N1' },
    ]);
  });

  const query = async (body: object): Promise<string[]> => {
    const r = await request(server.url, 'QUERY', '/books', { body, headers: { 'Content-Type': 'application/json' } });
    expect(r.status, r.text).to.equal(200);
    return titlesOf(r.json.member);
  };

  it('a QUERY body takes nested criteria as the URL does, and a named parameter on a path', async () => {
    expect(await query({ 'author.country.code': 'DE' })).to.deep.equal(['B1']);
    expect(await query({ exists: { 'author.born': false } })).to.deep.equal(['B1', 'N1']);
    expect(await query({ writer: 'ann' })).to.deep.equal(['A1']);
    const doc = (await get(server.url, '/docs.json')).json;
    const body = doc.paths['/books'].query.requestBody.content['application/json'].schema;
    expect(body.properties).to.include.keys('author.name', 'author.country.code', 'writer');
  });

  it('an MCP tool takes the nested parameters as arguments and filters by them', async () => {
    const client = new Client({ name: 'apidsl-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'get_collection_book');
      expect(tool?.inputSchema.properties).to.include.keys('author.name', 'author.country.code');
      const result = (await client.callTool({
        name: 'get_collection_book',
        arguments: { 'author.country.code': 'FR' },
      })) as CallToolResult;
      expect(result.isError).to.not.equal(true);
      const doc = result.structuredContent as { member: { title: string }[] };
      expect(titlesOf(doc.member)).to.deep.equal(['A1']);
    } finally {
      await client.close();
    }
  });
});

describe('filters on related items: graphql.nesting_separator names the arguments', function () {
  this.timeout(60_000);
  const server = useServer(() => {
    const file = join(tempDir(), 'separator.api');
    writeFileSync(
      file,
      `config { graphql { enabled: true, nesting_separator: "__" } }
filter f: search { properties: { "author.name": "exact" } }
resource Author { properties { id: int { identifier: true }, name: string } }
resource Book {
  properties { id: int { identifier: true }, title: string, author: Author }
  filters: ["f"]
}
`,
    );
    return file;
  });

  it('author__name filters by the author’s name; author_name is no argument', async () => {
    await seed(server.url, '/authors', [{ name: 'Ann' }, { name: 'Bob' }]);
    await seed(server.url, '/books', [
      { title: 'A', author: '/authors/1' },
      { title: 'B', author: '/authors/2' },
    ]);
    const d = await data(server.url, '{ books(author__name: "Bob") { edges { node { title } } } }');
    expect(titlesOf(nodesOf(d.books))).to.deep.equal(['B']);
    const wrong = await graphql(server.url, '{ books(author_name: "Bob") { edges { node { title } } } }');
    expect(wrong.errors?.[0].message).to.match(/Unknown argument "author_name"/);
  });
});
