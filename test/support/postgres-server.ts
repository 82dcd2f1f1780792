/**
 * A PostgreSQL server of the test's own, which it may stop (as a crash would: `pg_ctl stop -m immediate`) and start
 * again on the same data directory and port: the machine's server (127.0.0.1:5432) is shared by other sessions and is
 * never stopped. `initdb` and `pg_ctl` come from `pg_config --bindir`; `initdb` refuses to run as root, so as root
 * both run as the `postgres` user (docs: ../shared/guide/postgresql.md).
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>` (no database). */
  url: string;
  /** Stops the server at once, as a crash would (no checkpoint; the next start replays the WAL). */
  stop(): Promise<void>;
  /** Starts it again on the same data directory and port, and waits until it accepts connections. */
  start(): Promise<void>;
  /** Freezes the server and every process of it (SIGSTOP): connections stay open and nothing answers. */
  freeze(): void;
  /** Lets a frozen server run on (SIGCONT). */
  thaw(): void;
  /** Stops it when running and deletes its data directory. */
  remove(): Promise<void>;
}

const HOW_TO_ENABLE = 'install PostgreSQL 15 (Debian: apt-get install postgresql), whose initdb and pg_ctl it runs';

function binDir(): string | undefined {
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = found.status === 0 ? found.stdout.trim() : '';
  return dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')) ? dir : undefined;
}

/** The uid and gid of `postgres` when this process is root (initdb refuses root), else undefined. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The postmaster's pid and those of its children (the server's processes). */
function serverPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // The parent's pid is the fourth field of /proc/PID/stat, after the command in parentheses.
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false; // a process that ended meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Asynchronous, so that the test's own clients keep running (and their timings stay true) while it waits.
async function command(program: string, args: string[], cwd: string, user: ReturnType<typeof runAs>): Promise<void> {
  try {
    await promisify(execFile)(program, args, { cwd, uid: user?.uid, gid: user?.gid, timeout: 120_000 });
  } catch (e) {
    const { stderr, stdout, message } = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${stderr || stdout || message}`);
  }
}

/** Makes a data directory, starts a server on a free port of 127.0.0.1 (its socket in the data directory). */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  if (!bin) throw new Error(`no initdb/pg_ctl found: ${HOW_TO_ENABLE}`);
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const initdb = ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'];
  await command(join(bin, 'initdb'), initdb, dir, user);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=40`;
  const pgCtl = (...args: string[]): Promise<void> => command(join(bin, 'pg_ctl'), ['-D', data, ...args], dir, user);
  let running = false;
  let frozen = false;
  const signal = (name: NodeJS.Signals): void => serverPids(data).forEach((pid) => process.kill(pid, name));
  const start = async (): Promise<void> => {
    await pgCtl('-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start');
    running = true;
  };
  const stop = async (): Promise<void> => {
    await pgCtl('-m', 'immediate', '-w', 'stop');
    running = false;
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}`,
    start,
    stop,
    freeze: () => {
      signal('SIGSTOP');
      frozen = true;
    },
    thaw: () => {
      signal('SIGCONT');
      frozen = false;
    },
    remove: async () => {
      if (frozen) signal('SIGCONT');
      if (running) await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A server of the test's own, or a skip (one loud line) when PostgreSQL is not installed, except under CI=true. */
export async function ownPostgresOrSkip(ctx: Mocha.Context, what: string): Promise<OwnPostgres> {
  if (!binDir()) {
    if (process.env.CI === 'true')
      throw new Error(`CI=true and the ${what} test cannot start a PostgreSQL: ${HOW_TO_ENABLE}`);
    process.stderr.write(`\n!!! PostgreSQL ${what} test SKIPPED: it starts a server of its own; ${HOW_TO_ENABLE}.\n\n`);
    ctx.skip();
  }
  return startOwnPostgres();
}
