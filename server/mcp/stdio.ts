/**
 * The tools over stdio (`apidsl mcp`, docs/mcp.md, "Over stdio"; the process is assembled by server/mcp-stdio.ts).
 * Nothing but JSON-RPC goes to stdout.
 *
 * Who calls: there is no HTTP request. Without a token every call is anonymous; with one, each call verifies it
 * as the service verifies a bearer token (so an expired token fails the call with 401, not the process).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { Runtime } from '../pipeline/runtime.js';
import { ANONYMOUS, principalOf, type Principal } from '../security/access.js';
import { authenticate } from '../security/authenticate.js';
import type { McpCaller } from './call.js';
import { mcpServer, mcpService } from './server.js';

/** The origin IRIs are made absolute against over stdio (no request names a host). */
export const STDIO_ORIGIN = 'http://localhost';

/** The MCP server over a process's stdio; `closed` settles when the client closes the connection (stdin ends). */
export interface StdioMcp {
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves the runtime's tools over stdio, each call as the holder of `token` (anonymous without one). */
export async function serveMcpOverStdio(
  runtime: Runtime,
  options: { token?: string; stdin?: Readable; stdout?: Writable },
): Promise<StdioMcp> {
  const server = mcpServer(mcpService(runtime), stdioCaller(runtime, options.token));
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await server.connect(transport);
  (options.stdin ?? process.stdin).once('end', () => void server.close());
  return { closed, close: () => server.close() };
}

function stdioCaller(runtime: Runtime, token: string | undefined): McpCaller {
  const security = runtime.api.security;
  const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const principal = (): Promise<Principal> =>
    token === undefined
      ? Promise.resolve(ANONYMOUS)
      : authenticate(
          security,
          headers,
          () => ({
            method: 'POST',
            url: runtime.api.settings.mcp.path,
            path: runtime.api.settings.mcp.path,
            headers,
            query: {},
          }),
          runtime.logger,
        ).then((user) => principalOf(security, user));
  return { principal, origin: STDIO_ORIGIN, headers };
}
