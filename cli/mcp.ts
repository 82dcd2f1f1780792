/**
 * `apidsl mcp FILE.api [--data DIR | --memory | --db URI] [--token JWT]`: the file's MCP tools over stdio
 * (docs/mcp.md, "Over stdio") until the client closes stdin or the process is stopped. stdout carries only
 * JSON-RPC: every message of ours, and the log, goes to stderr.
 */
import pino from 'pino';
import { startStdioMcp } from '../server/mcp-stdio.js';
import { stopRequested } from './signals.js';
import { startFailure } from './start-failure.js';
import { storageFor, type StoreFlags } from './store-flags.js';

export async function runMcp(file: string, opts: StoreFlags & { token?: string }): Promise<number> {
  const storage = storageFor('mcp', file, opts);
  if (!storage) return 1;
  const token = opts.token ?? (process.env.APIDSL_MCP_TOKEN || undefined);
  let running;
  try {
    running = await startStdioMcp({ file, storage, logger: pino(pino.destination(2)), token });
  } catch (e) {
    return startFailure({ command: 'mcp', file, flags: opts }, e);
  }
  await Promise.race([running.closed, stopRequested()]);
  await running.stop();
  return 0;
}
