/**
 * Shared by the MCP suites (test/http/mcp.test.ts, test/http/scopes*.test.ts): the SDK's own client over
 * Streamable HTTP, and a tool call read as its structured content.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A connected client of `base`'s MCP endpoint, sending `headers` (a bearer token) with each request. */
export async function httpClient(base: string, headers: Record<string, string> = {}, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'apidsl-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
  return client;
}

/** The call's result: its structured content, which the text content repeats as JSON. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [content] = result.content;
  expect(content.type).to.equal('text');
  const structured = result.structuredContent as Record<string, unknown>;
  expect(JSON.parse((content as { text: string }).text)).to.deep.equal(structured);
  return { isError: result.isError === true, doc: structured };
}
