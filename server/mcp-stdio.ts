/**
 * `apidsl mcp FILE.api` (docs/mcp.md, "Over stdio"): the tools of a `.api` file over stdio, for an agent that starts
 * the process itself, on the runtime of a process that serves no HTTP (background-runtime.ts: publishing and
 * caches as for `apidsl consume`). The logger writes to stderr: stdout is the protocol's.
 */
import type { Logger } from 'pino';
import type { Readable, Writable } from 'node:stream';
import { startBackgroundRuntime } from './background-runtime.js';
import { serveMcpOverStdio } from './mcp/stdio.js';
import { authenticates } from './security/authenticate.js';
import { loadApi } from './load-api.js';
import { Refusal } from './refusal.js';
import type { Storage } from './storage.js';

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
    throw new Refusal(`${options.file} does not turn the MCP endpoint on (add mcp { enabled: true } to config)`);
  // A token nothing would verify would leave every call anonymous while the user believes otherwise.
  if (options.token !== undefined && !authenticates(api.security))
    throw new Refusal(
      `--token is given but ${options.file} authenticates nothing (config security has no jwt or authenticator)`,
    );
  const { runtime, close } = await startBackgroundRuntime(api, options.storage, options.logger);
  try {
    const mcp = await serveMcpOverStdio(runtime, options);
    return {
      closed: mcp.closed,
      stop: async () => {
        await mcp.close();
        await close();
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}
