/**
 * The tools of a `.api` file over stdio (`apidsl mcp`, docs/mcp.md, "Over stdio"): the same metadata, store,
 * pipeline and tools as the service, for an agent that starts the process itself. Nothing but JSON-RPC goes to
 * stdout; the logger writes to stderr. Publishing and caches are as for `apidsl consume`: updates reach an
 * external Mercure hub, or the built-in hubs of serving instances through `cluster.redis`.
 *
 * Who calls: there is no HTTP request. Without a token every call is anonymous; with one, each call verifies it
 * as the service verifies a bearer token (so an expired token fails the call with 401, not the process).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from 'pino';
import type { Readable, Writable } from 'node:stream';
import { httpCaching } from '../http/cache-invalidation.js';
import { startRuntime } from '../pipeline/runtime.js';
import type { Runtime } from '../pipeline/state.js';
import { Publishers } from '../realtime/index.js';
import { ANONYMOUS, principalOf, type Principal } from '../security/access.js';
import { authenticate, authenticates } from '../security/authenticate.js';
import { loadApi, openStore, peerLink, type Storage } from '../serve.js';
import type { McpCaller } from './call.js';
import { mcpServer, mcpService } from './server.js';

/** The origin IRIs are made absolute against over stdio (no request names a host). */
export const STDIO_ORIGIN = 'http://localhost';

/** Why the process does not start: a refusal to print, not a crash. */
export class McpRefused extends Error {}

export interface RunningStdioMcp {
  /** Settles when the client closes the connection (stdin ends). */
  closed: Promise<void>;
  stop(): Promise<void>;
}

export async function startStdioMcp(options: {
  file: string;
  storage: Storage;
  logger: Logger;
  token?: string;
  stdin?: Readable;
  stdout?: Writable;
}): Promise<RunningStdioMcp> {
  const api = await loadApi(options.file);
  if (!api.settings.mcp.enabled)
    throw new McpRefused(`${options.file} does not turn the MCP endpoint on (add mcp { enabled: true } to config)`);
  // A token nothing would verify would leave every call anonymous while the user believes otherwise.
  if (options.token !== undefined && !authenticates(api.security))
    throw new McpRefused(
      `--token is given but ${options.file} authenticates nothing (config security has no jwt or authenticator)`,
    );
  const store = await openStore(options.storage);
  const link = peerLink(api, options.storage, options.logger);
  const shared = api.settings.cluster.redisUrl !== undefined;
  const publishers = new Publishers(options.logger, link, false);
  let runtime: Runtime | undefined;
  const close = async (): Promise<void> => {
    await publishers.close();
    await runtime?.bus.close();
    await link.close();
    await store.close().catch(() => undefined);
  };
  try {
    runtime = await startRuntime(api, store, {
      logger: options.logger,
      // Without Redis, no process hears what a built-in hub would publish here.
      publisher: api.settings.mercure?.hub !== 'builtin' || shared ? publishers.of(api) : undefined,
      writes: httpCaching(api, options.logger, link, false).writes,
    });
    const server = mcpServer(mcpService(runtime), stdioCaller(runtime, options.token));
    const transport = new StdioServerTransport(options.stdin, options.stdout);
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await server.connect(transport);
    (options.stdin ?? process.stdin).once('end', () => void server.close());
    return {
      closed,
      stop: async () => {
        await server.close();
        await close();
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
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
