/**
 * The official Mercure hub for the external-hub tests: the `mercure` binary .ci/run builds from its Go
 * module (on PATH or in $(go env GOPATH)/bin), started on a free port with a history (bolt transport).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort, goBinDirs } from './mongodb.js';

/** Children still running, killed when the test process exits (one listener for all). */
const live = new Set<ChildProcess>();
process.once('exit', () => live.forEach((c) => c.kill('SIGKILL')));

/** Why an official-hub test cannot run here. */
export const MERCURE_MISSING =
  'no official `mercure` binary on PATH or in $(go env GOPATH)/bin (.ci/run builds it there)';

export function findMercure(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...goBinDirs()];
  return dirs.map((d) => join(d, 'mercure')).find((p) => existsSync(p));
}

export interface RunningHub {
  url: string;
  stop(): Promise<void>;
}

/**
 * How long the hub may take to listen: generous, as a loaded machine can take many seconds (a hub that exits
 * fails at once).
 */
const HUB_START_MS = 120_000;

async function listening(port: number, exited: () => boolean): Promise<boolean> {
  const until = Date.now() + HUB_START_MS;
  while (Date.now() < until && !exited()) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

export async function startOfficialHub(
  binary: string,
  keys: { publisher: string; subscriber: string },
  port?: number,
): Promise<RunningHub> {
  const chosen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-mercure-'));
  const child = spawn(binary, [], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      ADDR: `127.0.0.1:${chosen}`,
      PUBLISHER_JWT_KEY: keys.publisher,
      SUBSCRIBER_JWT_KEY: keys.subscriber,
      ALLOW_ANONYMOUS: '1',
      TRANSPORT_URL: `bolt://${join(dir, 'updates.db')}`,
    },
  });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!(await listening(chosen, () => child.exitCode !== null || child.signalCode !== null))) {
    child.kill('SIGKILL');
    throw new Error(`the Mercure hub did not start: ${log}`);
  }
  return {
    url: `http://127.0.0.1:${chosen}/.well-known/mercure`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
