/**
 * The GraphQL endpoint over HTTP (docs/graphql.md, "Transport and limits"), against a real `apidsl serve`:
 * graphql-http's audit of the GraphQL-over-HTTP specification, GET and POST, the limits (depth, complexity,
 * introspection), hostile requests (never a 5xx, never a stall), batching, CORS, and `/graphql` while GraphQL is
 * off; authentication before the endpoint, whose user the resolvers see; rate limits counted per operation run.
 */
import { expect } from 'chai';
import { serverAudits } from 'graphql-http';
import { bookstore, fixture, get, request, useServer, type HttpResponse } from './harness.js';
import { bearer, token } from './security-helpers.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

const postQuery = (base: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> =>
  request(base, 'POST', '/graphql', {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The messages and statuses of a GraphQL answer's errors. */
const errorsOf = (r: HttpResponse): { message: string; status: unknown }[] =>
  ((r.json?.errors ?? []) as { message: string; extensions?: { status?: unknown } }[]).map((e) => ({
    message: e.message,
    status: e.extensions?.status,
  }));

describe('GraphQL over HTTP', function () {
  // max_query_depth 4, max_query_complexity 40, CORS for https://app.example.com.
  const server = useServer(fixture('graphql.api'));

  it('passes every MUST of graphql-http’s server audit (SHOULDs that fail are listed)', async () => {
    const failed: string[] = [];
    const warned: string[] = [];
    const audits = serverAudits({ url: `${server.url}/graphql` });
    for (const audit of audits) {
      const result = await audit.fn();
      if (result.status === 'ok') continue;
      (audit.name.startsWith('MUST') ? failed : warned).push(`${audit.name}: ${result.reason}`);
    }
    if (warned.length) console.log(`    SHOULDs not met:\n      ${warned.join('\n      ')}`);
    expect(audits.length).to.be.greaterThan(40);
    expect(failed).to.deep.equal([]);
  });

  it('answers a query sent by POST, and by GET', async () => {
    const posted = await postQuery(server.url, { query: '{ __typename node(id: "/notes/1") { id } }' });
    expect(posted.status).to.equal(200);
    expect(posted.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(posted.json).to.deep.equal({ data: { __typename: 'Query', node: null } });

    const query = encodeURIComponent('query Q($id: ID!) { node(id: $id) { id } __typename }');
    const variables = encodeURIComponent(JSON.stringify({ id: '/notes/1' }));
    const got = await get(server.url, `/graphql?query=${query}&variables=${variables}&operationName=Q`);
    expect(got.status).to.equal(200);
    expect(got.json).to.deep.equal({ data: { node: null, __typename: 'Query' } });
  });

  it('refuses a mutation sent by GET with 405 (Allow: POST), running nothing', async () => {
    const mutation = encodeURIComponent('mutation { createNote(input: { text: "by GET" }) { note { id } } }');
    const r = await get(server.url, `/graphql?query=${mutation}`);
    expect(r.status).to.equal(405);
    expect(r.headers.get('allow')).to.equal('POST');
    expect(errorsOf(r)[0]?.message).to.equal('Cannot perform mutations over GET');
    const notes = await postQuery(server.url, { query: '{ notes { totalCount } }' });
    expect(notes.json).to.deep.equal({ data: { notes: { totalCount: 0 } } });
  });

  it('answers application/graphql-response+json when asked, with 400 for a request it refuses', async () => {
    const ok = await postQuery(server.url, { query: '{ __typename }' }, { Accept: GRAPHQL_RESPONSE });
    expect(ok.status).to.equal(200);
    expect(ok.headers.get('content-type')).to.equal(`${GRAPHQL_RESPONSE}; charset=utf-8`);
    const refused = await postQuery(server.url, { query: '{ zzz }' }, { Accept: GRAPHQL_RESPONSE });
    expect(refused.status).to.equal(400);
    expect(errorsOf(refused)).to.deep.equal([{ message: 'Cannot query field "zzz" on type "Query".', status: 400 }]);
  });

  describe('limits, checked before the query runs', () => {
    it('refuses a selection deeper than max_query_depth, fragments followed, with status 400', async () => {
      const deep = await postQuery(server.url, {
        query:
          '{ __schema { ...S } } fragment S on __Schema { types { ...T } } fragment T on __Type { fields { type { name } } }',
      });
      expect(errorsOf(deep)).to.deep.equal([{ message: "The query's depth 5 is above the limit of 4.", status: 400 }]);
      expect(deep.json).to.not.have.property('data');
      const atTheLimit = await postQuery(server.url, { query: '{ __schema { types { fields { name } } } }' });
      expect(atTheLimit.json.errors).to.equal(undefined);
      expect(atTheLimit.json.data.__schema.types).to.be.an('array').that.is.not.empty;
    });

    it('refuses a query costlier than max_query_complexity (many aliases), with status 400', async () => {
      const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
      const costly = await postQuery(server.url, { query: aliases(41) }, { Accept: GRAPHQL_RESPONSE });
      expect(costly.status).to.equal(400);
      expect(errorsOf(costly)).to.deep.equal([
        { message: "The query's complexity 41 is above the limit of 40.", status: 400 },
      ]);
      const allowed = await postQuery(server.url, { query: aliases(40) });
      expect(Object.keys(allowed.json.data)).to.have.length(40);
    });

    it('answers introspection while `introspection` is on', async () => {
      const r = await postQuery(server.url, { query: '{ __schema { queryType { name } } }' });
      expect(r.json).to.deep.equal({ data: { __schema: { queryType: { name: 'Query' } } } });
    });
  });

  describe('hostile requests: a 4xx (or a GraphQL error), never a 5xx, never a stall', () => {
    const cases: [string, () => Promise<HttpResponse>, number | number[]][] = [
      ['invalid JSON', () => postQuery(server.url, '{"query": '), 400],
      ['a JSON body that is not an object', () => postQuery(server.url, '"{ __typename }"'), 400],
      ['no query', () => postQuery(server.url, { variables: {} }), 400],
      ['a query that is not a string', () => postQuery(server.url, { query: 42 }), 400],
      [
        'variables that are not an object',
        () => postQuery(server.url, { query: '{ __typename }', variables: 'x' }),
        400,
      ],
      [
        'a text/plain body',
        () =>
          request(server.url, 'POST', '/graphql', {
            headers: { 'Content-Type': 'text/plain' },
            body: '{ __typename }',
          }),
        415,
      ],
      ['no Content-Type', () => request(server.url, 'POST', '/graphql', { body: '{"query":"{ __typename }"}' }), 415],
      [
        'an Accept it cannot answer',
        () => postQuery(server.url, { query: '{ __typename }' }, { Accept: 'text/csv' }),
        406,
      ],
      [
        'GET with variables that are not JSON',
        () => get(server.url, '/graphql?query=%7B__typename%7D&variables=%7B'),
        400,
      ],
      ['a method it does not take', () => request(server.url, 'PUT', '/graphql', { body: '{}' }), 405],
      [
        'a body above body_size_limit',
        () => postQuery(server.url, { query: `{ __typename } #${'x'.repeat(1_100_000)}` }),
        413,
      ],
      ['invalid UTF-8', () => postQuery(server.url, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), 400],
      ['a batch (an array of operations)', () => postQuery(server.url, [{ query: '{ __typename }' }]), 400],
      [
        'nesting deeper than the parser goes',
        () =>
          postQuery(
            server.url,
            { query: `${'{ a '.repeat(50_000)}${'}'.repeat(50_000)}` },
            { Accept: GRAPHQL_RESPONSE },
          ),
        400,
      ],
      [
        'more tokens than the parser reads',
        () => postQuery(server.url, { query: `{ ${'__typename '.repeat(30_000)}}` }, { Accept: GRAPHQL_RESPONSE }),
        400,
      ],
      [
        'an unknown operationName',
        () =>
          postQuery(
            server.url,
            { query: 'query Q { __typename }', operationName: 'Nope' },
            { Accept: GRAPHQL_RESPONSE },
          ),
        400,
      ],
      [
        'variables of the wrong type',
        () =>
          postQuery(
            server.url,
            { query: 'query Q($id: ID!) { node(id: $id) { id } }', variables: { id: { nested: true } } },
            { Accept: GRAPHQL_RESPONSE },
          ),
        400,
      ],
    ];
    for (const [what, send, status] of cases) {
      it(`${what}: ${String(status)}`, async () => {
        const started = Date.now();
        const r = await send();
        expect(r.status, r.text.slice(0, 300)).to.equal(status);
        // Generous for a loaded machine: what this rules out is a request that hangs or works for minutes.
        expect(Date.now() - started, 'answered within 15 s').to.be.below(15_000);
      });
    }

    it('refuses a batch with a message that says so', async () => {
      const r = await postQuery(server.url, [{ query: '{ __typename }' }, { query: '{ __typename }' }]);
      expect(r.status).to.equal(400);
      expect(r.json.detail).to.equal('Batched operations are not supported: send one operation per request.');
    });

    it('answers a request error with status 400 in its extensions', async () => {
      const r = await postQuery(server.url, { query: '{ __typename' });
      expect(r.status).to.equal(200); // application/json: errors of a well-formed request come with 200
      expect(errorsOf(r)).to.deep.equal([{ message: 'Syntax Error: Expected Name, found <EOF>.', status: 400 }]);
    });

    it('says so when a query is nested too deeply to be parsed', async () => {
      // 9,900 tokens: under the parser's bound (10,000 here), 3,300 levels deep: past what its recursion takes.
      const r = await postQuery(server.url, { query: `${'{ a '.repeat(3_300)}${'}'.repeat(3_300)}` });
      expect(r.status).to.equal(400);
      expect(errorsOf(r)).to.deep.equal([{ message: 'The query is nested too deeply to be read.', status: 400 }]);
    });

    it('still answers after them all', async () => {
      const r = await postQuery(server.url, { query: '{ __typename }' });
      expect(r.json).to.deep.equal({ data: { __typename: 'Query' } });
    });
  });

  it('answers a browser’s CORS preflight, and the request after it carries the CORS headers', async () => {
    const origin = 'https://app.example.com';
    const preflight = await request(server.url, 'OPTIONS', '/graphql', {
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(origin);
    expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).to.include('content-type');
    const r = await postQuery(server.url, { query: '{ __typename }' }, { Origin: origin });
    expect(r.headers.get('access-control-allow-origin')).to.equal(origin);
  });

  it('says which methods /graphql takes: OPTIONS lists them, PUT answers 405 with them', async () => {
    const options = await request(server.url, 'OPTIONS', '/graphql');
    expect(options.status).to.equal(204);
    expect(options.headers.get('allow')).to.equal('OPTIONS, HEAD, GET, POST');
    const put = await request(server.url, 'PUT', '/graphql');
    expect(put.status).to.equal(405);
    expect(put.headers.get('allow')).to.equal('GET, POST');
  });
});

describe('GraphQL on an API that authenticates', () => {
  const server = useServer(fixture('graphql-secured.api'));
  const countNotes = { query: '{ notes { totalCount } }' };

  it('hands the authenticated user to the resolvers: an operation for ROLE_USER runs for them only', async () => {
    const user = await postQuery(server.url, countNotes, bearer(await token({ sub: 'ann', roles: ['ROLE_USER'] })));
    expect(user.json).to.deep.equal({ data: { notes: { totalCount: 0 } } });
    const anonymous = await postQuery(server.url, countNotes);
    expect(anonymous.json.data).to.deep.equal({ notes: null });
    expect(errorsOf(anonymous).map((e) => e.status)).to.deep.equal([401]);
  });

  it('answers invalid credentials with 401 before any GraphQL runs', async () => {
    const r = await postQuery(server.url, countNotes, bearer('not-a-jwt'));
    expect(r.status).to.equal(401);
    expect(r.headers.get('www-authenticate')).to.match(/^Bearer error="invalid_token"/);
    expect(r.json).to.not.have.property('data');
  });
});

describe('GraphQL on an API with rate limits', () => {
  const server = useServer(fixture('graphql-rate-limit.api'));

  it('counts the operations a query runs, by the client’s address, and refuses one past the limit with 429', async () => {
    const countNotes = { query: '{ notes { totalCount } }' };
    for (let i = 0; i < 2; i++)
      expect((await postQuery(server.url, countNotes)).json).to.deep.equal({ data: { notes: { totalCount: 0 } } });
    const refused = await postQuery(server.url, countNotes);
    expect(refused.json.data).to.deep.equal({ notes: null });
    expect(errorsOf(refused)).to.have.length(1);
    expect(errorsOf(refused)[0]!.status).to.equal(429);
    expect(errorsOf(refused)[0]!.message).to.match(/^The rate limit of 2 requests per hour is reached/);
  });

  it('shares one count between a GraphQL operation and its REST twin (two faces of one operation)', async () => {
    // The count of the collection is spent by the test above (same client address): REST is refused too.
    const rest = await fetch(`${server.url}/notes`);
    expect(rest.status).to.equal(429);
    // The item Get has its own count: one REST read and one GraphQL read spend it, the next is refused.
    expect((await fetch(`${server.url}/notes/1`)).status).to.equal(404);
    expect((await postQuery(server.url, { query: '{ note(id: "/notes/1") { id } }' })).json).to.deep.equal({
      data: { note: null },
    });
    const refused = await postQuery(server.url, { query: '{ note(id: "/notes/1") { id } }' });
    expect(errorsOf(refused)[0]!.status).to.equal(429);
  });
});

describe('GraphQL with introspection and GraphiQL off', () => {
  const server = useServer(fixture('graphql-closed.api'));

  it('refuses __schema and __type with status 400, and still answers __typename', async () => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
      const r = await postQuery(server.url, { query }, { Accept: GRAPHQL_RESPONSE });
      expect(r.status, query).to.equal(400);
      expect(errorsOf(r)[0]?.status).to.equal(400);
      expect(errorsOf(r)[0]?.message).to.match(/^GraphQL introspection is disabled here/);
    }
    const r = await postQuery(server.url, { query: '{ __typename }' });
    expect(r.json).to.deep.equal({ data: { __typename: 'Query' } });
  });

  it('answers 404 for GraphiQL, and GET /graphql asked for HTML is a GraphQL request', async () => {
    expect((await get(server.url, '/graphql/graphiql', { Accept: 'text/html' })).status).to.equal(404);
    const page = await get(server.url, '/graphql', { Accept: 'text/html,*/*;q=0.8' });
    expect(page.status).to.equal(400);
    expect(page.text).to.not.include('<html');
  });
});

describe('GraphQL while `graphql.enabled` is false', () => {
  const server = useServer(bookstore());

  it('answers 404 with our problem document at /graphql and /graphql/graphiql', async () => {
    for (const [method, path] of [
      ['GET', '/graphql?query=%7B__typename%7D'],
      ['POST', '/graphql'],
      ['GET', '/graphql/graphiql'],
    ] as const) {
      const r = await request(server.url, method, path, {
        headers: { 'Content-Type': 'application/json', Accept: 'application/problem+json' },
        body: method === 'POST' ? JSON.stringify({ query: '{ __typename }' }) : undefined,
      });
      expect(r.status, `${method} ${path}`).to.equal(404);
      expect(r.json.status).to.equal(404);
      expect(r.json.detail).to.match(/^No route found for/);
    }
  });
});
