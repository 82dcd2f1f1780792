/**
 * The MCP endpoint (docs/mcp.md) with the SDK's own client: over Streamable HTTP against `apidsl serve`, and over
 * stdio against `apidsl mcp` on data a served process stored. The tool list and schemas, every call kind through
 * the pipeline (filters and pages, validation, security), failures as tool results, hostile input, and a Mercure
 * update of a write made through MCP.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fromRoot } from '../support/paths.js';
import { fixture, get, request, startServer, tempDir, useServer } from './harness.js';
import { call, httpClient } from './mcp-helpers.js';
import { bearer, token } from './security-helpers.js';
import { mercureJwt, subscribe } from './sse-client.js';

const SUBSCRIBER_KEY = 'subscriber-key-for-mcp-tests-0123456789';

describe('MCP over Streamable HTTP (fixture mcp.api)', function () {
  this.timeout(30_000);
  before(() => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY;
  });
  after(() => {
    delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
  });
  const server = useServer(fixture('mcp.api'));
  let client: Client;
  let tools: Tool[];
  before(async () => {
    client = await httpClient(server.url);
    tools = (await client.listTools()).tools;
  });
  after(() => client?.close());
  const toolNamed = (name: string): Tool => tools.find((t) => t.name === name)!;

  it('lists one tool per exposed operation, named after its kind and resource, none with mcp: false', () => {
    expect(tools.map((t) => t.name)).to.deep.equal([
      'get_collection_book',
      'post_book',
      'get_book',
      'put_book',
      'patch_book',
      'delete_book',
      'find_book',
      'get_collection_note',
      'post_note',
    ]);
    expect(toolNamed('get_collection_book').description).to.equal('Lists the books, two a page.');
    expect(toolNamed('get_book').description).to.equal('Retrieves a Book resource.');
  });

  it('gives each tool the input schema of its OpenAPI operation: variables, filters, page, body', async () => {
    const openapi = (await get(server.url, '/docs.json')).json as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>>;
    };
    const list = toolNamed('get_collection_book').inputSchema;
    // The search filter's two forms, as the document lists them.
    expect(Object.keys(list.properties!)).to.have.members(['page', 'title', 'title[]']);
    expect(list.properties!.page).to.include({ type: 'integer', minimum: 1 });
    const item = toolNamed('get_book').inputSchema;
    expect(item.required).to.deep.equal(['id']);
    expect(item.properties!.id).to.include({ type: 'integer' });
    const post = toolNamed('post_book').inputSchema as Record<string, unknown> & typeof item;
    expect(post.required).to.deep.equal(['body']);
    // The body's schema is the document's, its components copied under $defs.
    const documented = openapi.paths['/books'].post.requestBody.content['application/ld+json'].schema as {
      $ref: string;
    };
    const name = documented.$ref.split('/').pop()!;
    expect(post.properties!.body).to.deep.include({ $ref: `#/$defs/${name}` });
    expect((post.$defs as Record<string, { required: string[] }>)[name].required).to.include('title');
    expect(toolNamed('patch_book').inputSchema.required).to.deep.equal(['id', 'body']);
  });

  it('runs every kind of call through the pipeline: create, read, page and filter, replace, patch', async () => {
    const created = await call(client, 'post_book', { body: { title: 'Dune', price: 9.5 } });
    expect(created.isError).to.equal(false);
    expect(created.doc).to.include({ '@type': 'Book', title: 'Dune', price: 9.5 });
    const id = created.doc.id as number;
    for (const title of ['Emma', 'Dune Messiah', 'Children of Dune'])
      await call(client, 'post_book', { body: { title } });
    const read = await call(client, 'get_book', { id });
    expect(read.doc).to.include({ '@id': `/books/${id}`, title: 'Dune' });
    expect((await call(client, 'find_book', { id })).doc).to.include({ title: 'Dune' });
    // The REST answer of the same operation, as a client of the API gets it.
    expect(read.doc).to.deep.equal((await get(server.url, `/books/${id}`)).json);
    const page2 = await call(client, 'get_collection_book', { title: 'Dune', page: 2 });
    expect(page2.doc.totalItems).to.equal(3);
    expect((page2.doc.member as { title: string }[]).map((b) => b.title)).to.deep.equal(['Children of Dune']);
    const replaced = await call(client, 'put_book', { id, body: { title: 'Dune (replaced)', price: 10 } });
    expect(replaced.doc).to.include({ title: 'Dune (replaced)', price: 10 });
    const patched = await call(client, 'patch_book', { id, body: { price: 12 } });
    expect(patched.doc).to.include({ title: 'Dune (replaced)', price: 12 });
    expect((await get(server.url, `/books/${id}`)).json).to.include({ price: 12 });
  });

  it('answers a failure as a tool result with isError: 404, 422 with violations, 401, 403', async () => {
    const missing = await call(client, 'get_book', { id: 999_999 });
    expect(missing).to.deep.include({ isError: true });
    expect(missing.doc).to.include({ status: 404, detail: 'Not Found' });
    const invalid = await call(client, 'post_book', { body: { title: '', price: -1 } });
    expect(invalid.isError).to.equal(true);
    expect(invalid.doc.status).to.equal(422);
    expect((invalid.doc.violations as { propertyPath: string }[]).map((v) => v.propertyPath)).to.have.members([
      'title',
      'price',
    ]);
    const anonymousNote = await call(client, 'post_note', { body: { text: 'hi' } });
    expect(anonymousNote.doc).to.include({ status: 401 });
    const user = await httpClient(server.url, bearer(await token({ sub: 'ann', roles: ['ROLE_USER'] })));
    try {
      expect((await call(user, 'post_note', { body: { text: 'hi' } })).doc).to.include({ text: 'hi' });
      const { doc } = await call(user, 'post_book', { body: { title: 'To delete' } });
      const denied = await call(user, 'delete_book', { id: doc.id });
      expect(denied.isError).to.equal(true);
      expect(denied.doc).to.include({ status: 403, detail: 'Only administrators delete books.' });
      const admin = await httpClient(server.url, bearer(await token({ sub: 'root', roles: ['ROLE_ADMIN'] })));
      const deleted = await call(admin, 'delete_book', { id: doc.id });
      expect(deleted).to.deep.equal({ isError: false, doc: { status: 204 } });
      expect((await get(server.url, `/books/${doc.id as number}`)).status).to.equal(404);
      await admin.close();
    } finally {
      await user.close();
    }
  });

  it('refuses hostile input with a tool error and keeps serving', async () => {
    const wrongType = await call(client, 'get_book', { id: 'not a number' });
    expect(wrongType.isError).to.equal(true);
    expect(wrongType.doc.status).to.equal(400);
    const unknownArgument = await call(client, 'get_book', { id: 1, sql: 'DROP TABLE book' });
    expect(unknownArgument.doc.status).to.equal(400);
    const unknownTool = await call(client, 'drop_everything');
    expect(unknownTool).to.deep.include({ isError: true });
    expect(unknownTool.doc.detail).to.contain("no tool named 'drop_everything'");
    const notAnObject = await call(client, 'post_book', { body: 'Dune' });
    expect(notAnObject.doc.status).to.equal(400);
    const huge = await call(client, 'post_book', { body: { title: 'x'.repeat(200_000) } });
    expect(huge.doc.status).to.equal(422);
    const tooLarge = await request(server.url, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(3_000_000) } },
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(tooLarge.status).to.equal(413);
    expect((await call(client, 'get_collection_book')).isError).to.equal(false);
  });

  it('publishes a write made through MCP to the Mercure hub', async () => {
    const jwt = await mercureJwt(SUBSCRIBER_KEY, { subscribe: ['*'] });
    const updates = subscribe(`${server.url}/.well-known/mercure`, ['/books/{id}'], {
      Authorization: `Bearer ${jwt}`,
    });
    try {
      await updates.opened;
      const { doc } = await call(client, 'post_book', { body: { title: 'Published' } });
      const [event] = await updates.waitFor(1);
      expect(JSON.parse(event.data)).to.include({ '@id': doc['@id'], title: 'Published' });
    } finally {
      updates.close();
    }
  });

  it('is announced in the serve banner', () => {
    expect(server.output()).to.include(`MCP: ${server.url}/mcp (Streamable HTTP`);
  });

  it('answers GET with 405 (stateless: no server stream)', async () => {
    const res = await get(server.url, '/mcp', { Accept: 'text/event-stream' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('POST');
  });
});

describe('MCP over stdio: apidsl mcp on stored data (fixture mcp.api)', function () {
  this.timeout(30_000);
  const dir = tempDir('apidsl-mcp-');
  let id: number;
  let client: Client;
  let stderr = '';
  const stdioClient = async (args: string[] = []): Promise<Client> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fromRoot('bin/apidsl.js'), 'mcp', fixture('mcp.api'), '--data', dir, ...args],
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const connected = new Client({ name: 'apidsl-test', version: '1.0.0' });
    await connected.connect(transport);
    return connected;
  };
  before(async () => {
    const served = await startServer(fixture('mcp.api'), ['--data', dir]);
    const created = await request(served.url, 'POST', '/books', { body: { title: 'Stored' } });
    id = (created.json as { id: number }).id;
    await served.stop();
    client = await stdioClient();
  });
  after(() => client?.close());

  it('reads what the service stored, with the same tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include.members(['get_book', 'post_book', 'delete_book']);
    const read = await call(client, 'get_book', { id });
    expect(read.doc).to.include({ '@id': `/books/${id}`, title: 'Stored' });
  });

  it('calls as nobody without --token: a secured operation answers 401, the process stays up', async () => {
    expect((await call(client, 'post_note', { body: { text: 'x' } })).doc).to.include({ status: 401 });
    expect((await call(client, 'nope')).isError).to.equal(true);
    expect((await call(client, 'get_book', { id })).isError).to.equal(false);
    expect(stderr).to.not.contain('"level":50');
  });

  it('calls as the user of --token, verified at each call: an expired one answers 401', async () => {
    const user = await stdioClient(['--token', await token({ sub: 'ann', roles: ['ROLE_USER'] })]);
    try {
      expect((await call(user, 'post_note', { body: { text: 'from stdio' } })).doc).to.include({ text: 'from stdio' });
    } finally {
      await user.close();
    }
    const expired = await stdioClient(['--token', await token({ sub: 'ann', roles: ['ROLE_USER'], exp: -60 })]);
    try {
      const refused = await call(expired, 'get_book', { id });
      expect(refused).to.deep.include({ isError: true });
      expect(refused.doc.status).to.equal(401);
    } finally {
      await expired.close();
    }
  });
});

describe('apidsl mcp refuses to start rather than serve what the file does not say', () => {
  const mcp = (file: string, ...args: string[]) =>
    spawnSync(process.execPath, [fromRoot('bin/apidsl.js'), 'mcp', file, '--memory', ...args], {
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });

  it('a file whose config does not turn mcp on', () => {
    const run = mcp(fixture('mercure.api'));
    expect(run.status).to.equal(1);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.contain('does not turn the MCP endpoint on');
  });

  it('a token for a file that authenticates nothing', () => {
    const run = mcp(fromRoot('test/fixtures/bench/mcp.api'), '--token', 'abc');
    expect(run.status).to.equal(1);
    expect(run.stderr).to.contain('--token is given but');
  });
});

describe('MCP at the path config mcp.path names (fixture mcp-path.api)', function () {
  this.timeout(30_000);
  const server = useServer(fixture('mcp-path.api'), ['--memory']);

  it('answers there, and /mcp is no route', async () => {
    const client = await httpClient(server.url, {}, '/agents/mcp');
    try {
      const created = await call(client, 'post_book', { body: { title: 'Dune' } });
      expect(created.isError).to.equal(false);
      expect(created.doc).to.include({ '@id': '/books/1', title: 'Dune' });
    } finally {
      await client.close();
    }
    const elsewhere = await request(server.url, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(elsewhere.status).to.equal(404);
  });
});
