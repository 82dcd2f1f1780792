/**
 * The leak test's MCP faces (test/http/scopes-leaks.test.ts), over Streamable HTTP and over stdio (`apidsl mcp`),
 * with the SDK's client and the caller's JWT, one tool per operation as the server lists them (server/mcp/tools.ts):
 * list tools walked by their `page` argument (members and `totalItems`), one declared parameter per list tool with
 * a value drawn from any row, get tools for every row (outside the scope: isError 404, as an unknown identifier); then put, patch, delete and
 * post tools outside the caller's scopes (isError 404, 403; nothing stored).
 */
import { mcpTools, type McpTool } from '../../../server/mcp/tools.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fromRoot } from '../../support/paths.js';
import { call, httpClient } from '../mcp-helpers.js';
import { copyOf, PAGING, parameterValue, same, walkable, writeDocument, type Face } from './rest.js';

type Doc = Record<string, unknown>;

/** The caller's MCP client over Streamable HTTP, or undefined when the API has no MCP endpoint. */
export async function mcpHttpClient(face: Face): Promise<Client | undefined> {
  const { api } = face.sight.leak;
  if (!api.settings.mcp.enabled) return undefined;
  const token = face.sight.caller.token;
  return httpClient(face.url, token ? { Authorization: `Bearer ${token}` } : {}, api.settings.mcp.path);
}

/**
 * The caller's MCP client over stdio (`apidsl mcp FILE --token JWT`, on the store the server serves; docs/mcp.md),
 * or undefined when the API has no MCP endpoint. The process reads the store beside the server, as a consumer does.
 */
export async function mcpStdioClient(face: Face, storeArgs: string[]): Promise<Client | undefined> {
  const { leak, caller } = face.sight;
  if (!leak.api.settings.mcp.enabled) return undefined;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      fromRoot('bin/apidsl.js'),
      'mcp',
      leak.file,
      ...storeArgs,
      ...(caller.token ? ['--token', caller.token] : []),
    ],
    env: { ...(process.env as Record<string, string>) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'apidsl-leak-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The MCP faces through `client` (`via`: its transport, named in findings); the caller closes it. */
export async function mcpFaces(face: Face, what: 'reads' | 'writes', client: Client, via: string): Promise<void> {
  for (const tool of mcpTools(face.sight.leak.api).filter((t) => walkable(t.operation))) {
    const kind = tool.operation.kind;
    if (what === 'reads' && tool.operation.isCollection) await list(face, client, tool, via);
    else if (what === 'reads' && kind === 'Get') await get(face, client, tool, via);
    else if (what === 'writes' && ['Put', 'Patch', 'Delete', 'Post'].includes(kind))
      await write(face, client, tool, via);
  }
}

const iriOf = (tool: McpTool, member: Doc): string =>
  typeof member['@id'] === 'string'
    ? member['@id']
    : tool.operation.resource.itemPath!.replace(/\{[^}]+\}/, String(member[tool.operation.resource.identifier!.name]));

/**
 * Every page of a list tool, following `view.next` (its query string read as the tool's arguments: `page`, or a
 * cursor), then one declared parameter probed. A QUERY tool gets its criteria as `body`.
 */
async function list(face: Face, client: Client, tool: McpTool, via: string): Promise<void> {
  const { sight } = face;
  const visible = (await sight.visible(tool.operation)).map((r) => r.iri);
  const walk = async (given: Doc, echoed: string[]): Promise<{ iris: string[]; totals: unknown[] } | undefined> => {
    const iris: string[] = [];
    const totals: unknown[] = [];
    let args = tool.bodyType ? { body: given } : given;
    for (let page = 1; page <= visible.length + 2; page++) {
      const { isError, doc } = await call(client, tool.name, args);
      sight.check(JSON.stringify(doc), `MCP ${via} ${tool.name} ${JSON.stringify(args)}`, echoed);
      if (isError) return undefined;
      iris.push(...((doc.member ?? []) as Doc[]).map((m) => iriOf(tool, m)));
      if ('totalItems' in doc) totals.push(doc.totalItems);
      const next = (doc.view as { next?: string } | undefined)?.next;
      if (next === undefined) break;
      args = { ...args, ...typed(tool, Object.fromEntries(new URL(next, 'http://next').searchParams)) };
    }
    return { iris, totals };
  };
  const all = await walk({}, []);
  const where = `MCP ${via} ${tool.name}`;
  if (!all) return sight.expect(false, () => `${where} answers an error`);
  sight.expect(same(all.iris, visible), () => `${where} lists ${all.iris.join(' ')}, not ${visible.join(' ')}`);
  for (const total of all.totals) sight.expect(total === visible.length, () => `${where}: totalItems ${total}`);
  const params = tool.queryArguments.filter((a) => !PAGING.has(a));
  const param = params[face.pick(params.length)];
  const value = param === undefined ? undefined : parameterValue(face, sight.world.of(tool.operation.resource), param);
  if (param === undefined || value === undefined) return;
  const probed = await walk(tool.bodyType ? { [param]: value } : typed(tool, { [param]: value }), [value]);
  const outside = probed?.iris.filter((iri) => !visible.includes(iri)) ?? [];
  sight.expect(outside.length === 0, () => `${where} {${param}: ${value}} lists ${outside.join(' ')}`);
  for (const total of probed?.totals ?? [])
    sight.expect(
      typeof total === 'number' && total <= visible.length,
      () => `${where} {${param}: ${value}}: totalItems ${total}`,
    );
}

/** Arguments read from a query string, as the tool's schema types them (`page` an integer). */
function typed(tool: McpTool, args: Record<string, string>): Doc {
  const schema = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  return Object.fromEntries(
    Object.entries(args).map(([name, v]) => {
      const type = schema[name]?.type;
      if ((type === 'integer' || type === 'number') && v.trim() !== '' && !Number.isNaN(Number(v)))
        return [name, Number(v)];
      return [name, type === 'boolean' ? v === 'true' : v];
    }),
  );
}

const idArguments = (tool: McpTool, id: number | string): Doc => ({ [tool.pathArguments[0] ?? 'id']: id });

/** A get of every row: the item inside the scope, isError 404 outside it, as for an unknown identifier. */
async function get(face: Face, client: Client, tool: McpTool, via: string): Promise<void> {
  const { sight } = face;
  const unknownId = sight.world.unknownId(tool.operation.resource);
  const unknown = JSON.stringify((await call(client, tool.name, idArguments(tool, unknownId))).doc);
  for (const row of sight.world.of(tool.operation.resource)) {
    const { isError, doc } = await call(client, tool.name, idArguments(tool, row.id));
    const text = JSON.stringify(doc);
    const where = `MCP ${via} ${tool.name} ${row.id}`;
    sight.check(text, where, [row.iri]);
    if (await sight.holds(tool.operation, row, 'read'))
      sight.expect(!isError, () => `${where} answers ${text.slice(0, 200)}`);
    else
      sight.expect(
        isError && doc.status === 404 && text === unknown.split(String(unknownId)).join(String(row.id)),
        () => `${where} answers ${text.slice(0, 200)}, not as an unknown one: ${unknown.slice(0, 200)}`,
      );
  }
}

/** Put, patch, delete outside the read scope (404) or the write scope (403); post outside the write scope. */
async function write(face: Face, client: Client, tool: McpTool, via: string): Promise<void> {
  const { sight } = face;
  const op = tool.operation;
  for (const row of sight.world.of(op.resource)) {
    let expected: number | undefined = 0;
    let args: Doc;
    if (op.kind === 'Post') {
      if (!(await sight.refusesCopy(op, row))) continue;
      args = { body: copyOf(row) };
    } else {
      expected = await sight.refusal(op, row);
      if (expected === undefined) continue;
      const body = writeDocument(op, row);
      args = { ...idArguments(tool, row.id), ...(body ? { body } : {}) };
    }
    const { isError, doc } = await call(client, tool.name, args);
    const text = JSON.stringify(doc);
    const where = `MCP ${via} ${tool.name} of ${row.iri}`;
    sight.check(text, where, [
      row.iri,
      ...Object.values(copyOf(row)).filter((v): v is string => typeof v === 'string'),
    ]);
    sight.expect(
      isError && (expected === 0 || doc.status === expected),
      () => `${where} answers ${text.slice(0, 200)}, not ${expected}`,
    );
  }
}
