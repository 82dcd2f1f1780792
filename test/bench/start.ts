/**
 * `npm run bench -- start`: how long the README's serve command takes from being typed to its first answer.
 * Each command is started with PORT set to a free port and GET / is polled every 20 ms until it answers 200;
 * then the command's process group is stopped. The commands run in turns (A B C A B C …) after one warm-up
 * round, and the median, minimum and maximum of each are printed.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fromRoot } from '../support/paths.js';

const ROUNDS = 5;
const COMMANDS: { name: string; argv: string[] }[] = [
  { name: 'npm start (the README)', argv: ['npm', 'start'] },
  {
    name: 'node bin/apidsl.js serve examples/bookstore.api',
    argv: ['node', 'bin/apidsl.js', 'serve', 'examples/bookstore.api'],
  },
];

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Milliseconds from spawning `argv` to the first 200 of GET / (60 s at most). */
async function firstAnswer(argv: string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), {
    cwd: fromRoot('.'),
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
    detached: true, // its own process group: `npm start` runs the server as its child
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    while (performance.now() - started < 60_000) {
      const status = await fetch(`http://127.0.0.1:${port}/`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${argv.join(' ')} did not answer within 60 s`);
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

export async function runStartBench(): Promise<void> {
  const times = new Map(COMMANDS.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round <= ROUNDS; round++)
    for (const c of COMMANDS) {
      const ms = await firstAnswer(c.argv);
      if (round > 0) times.get(c.name)!.push(ms); // round 0 warms the file system cache
    }
  console.log(`\nFirst answer after the command starts (GET /, ${ROUNDS} rounds in turns after a warm-up):`);
  for (const [name, list] of times) {
    const sorted = [...list].sort((a, b) => a - b);
    const [min, median, max] = [sorted[0], sorted[Math.floor(sorted.length / 2)], sorted[sorted.length - 1]];
    console.log(`  ${name}: median ${median.toFixed(0)} ms (${min.toFixed(0)}–${max.toFixed(0)})`);
  }
}
