/**
 * A Redis server of the test's own (Debian's redis-server, which the machines have): on a free port, keeping
 * nothing on disk, so that a test can stop and restart it without touching the machine's Redis.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { freePort } from './mongodb.js';

export interface TestRedis {
  url: string;
  /** Stops the server (SIGKILL: connections drop at once, as when its machine goes away). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Servers still running, killed when the test process exits (one listener for all). */
const live = new Set<ChildProcess>();
process.once('exit', () => live.forEach((c) => c.kill('SIGKILL')));

const answers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = new Socket();
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => {
      socket.write('PING\r\n');
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
  });

/** Starts a Redis server; throws (the suite fails) when redis-server is not installed. */
export async function startTestRedis(): Promise<TestRedis> {
  if (spawnSync('redis-server', ['--version']).status !== 0)
    throw new Error('redis-server is not installed (Debian package redis-server); the cluster tests need it');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const started = child;
    live.add(started);
    started.once('exit', () => live.delete(started));
    for (let i = 0; i < 100; i++) {
      if (await answers(port)) return;
      await sleep(100);
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}
