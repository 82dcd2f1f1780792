/**
 * Stopping `apidsl serve` by a signal (docs/behaviour.md, "Stopping"): SIGTERM or SIGINT, sent to the command or
 * to its whole process group (as a terminal, `docker stop` or Kubernetes do), during the start or under a load of
 * GETs, POSTs and an event stream, with one process or two workers. Each time the command exits 0, every request
 * the server began to handle is answered whole, and every POST answered 201 is in the store afterwards.
 *
 * "Began to handle" is seen from the client: every request says `Expect: 100-continue`, and the server sends
 * `100 Continue` once it has read the request's head and hands it to the API. A request that fails before that
 * (connection refused, or reset while it waited in the listening socket's queue or on a keep-alive connection
 * the server was closing) was refused, not lost; one that fails after it, or whose response is cut, is lost.
 *
 * The moments are drawn from a seeded random (APIDSL_TEST_SEED to replay one; the seed is in every message).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { random as seededRandom } from '../support/mutants.js';
import { fromRoot } from '../support/paths.js';
import { fixture, tempDir } from './harness.js';
import { messengerFixture } from './messenger-fixture.js';

const FIXTURE = fixture('mercure.api');
const SEED = Number(process.env.APIDSL_TEST_SEED ?? Date.now() % 1_000_000);

const random = seededRandom(SEED);
const between = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ready` every 10 ms; gives up (false) when the process exited first. */
async function until(ready: () => boolean, exited: () => boolean): Promise<boolean> {
  while (!ready()) {
    if (exited()) return false;
    await sleep(10);
  }
  return true;
}

interface Serving {
  child: ChildProcess;
  output: () => string;
  url: () => string | undefined;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited: () => boolean;
}

/** Process groups still running, killed when the test process exits so that no server outlives the suite. */
const live = new Set<number>();
process.once('exit', () => {
  for (const pid of live) process.kill(-pid, 'SIGKILL');
});

/** `apidsl serve` in its own process group (detached), as a shell or a container runtime starts it. */
function serve(data: string, workers: boolean, env: NodeJS.ProcessEnv = {}): Serving {
  const args = ['serve', FIXTURE, '--data', data, '--port', '0'];
  return launch(workers ? [...args, '--workers', '2'] : args, env);
}

/** `apidsl ARGS` in its own process group (`node` given `nodeArgs` first). */
function launch(args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Serving {
  const child = spawn(process.execPath, [...nodeArgs, fromRoot('bin/apidsl.js'), ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  let done = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  live.add(child.pid!);
  void exit.then(() => live.delete(child.pid!));
  return {
    child,
    output: () => out,
    url: () => /apidsl serving \S+ at (http:\/\/\S+)\n/.exec(out)?.[1],
    exit,
    exited: () => done,
  };
}

/** The worker processes of a primary (Linux). */
function children(pid: number): number {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).length;
  } catch {
    return 0;
  }
}

interface Tally {
  sent: number;
  answered: number;
  /** Reset before the server took them (see above). */
  refused: number;
  /** Refused a connection: the server no longer listens. */
  gone: number;
  lost: string[];
  /** The IRIs of the books whose POST was answered 201. */
  created: string[];
}

/**
 * One request with `Expect: 100-continue`: its head first, its body once the server says it takes it. Resolves
 * with how it ended; never rejects.
 */
function send(url: string, agent: Agent | false, tally: Tally): Promise<'answered' | 'refused' | 'lost' | 'gone'> {
  const write = random() < 0.5;
  const body = write ? JSON.stringify({ title: `book ${tally.sent}` }) : undefined;
  const read = random() < 0.5 ? '/books?page=1' : `/books/${between(1, 50)}`;
  const path = write ? '/books' : read;
  tally.sent++;
  return new Promise((resolve) => {
    let accepted = false;
    let settled = false;
    const end = (how: 'answered' | 'refused' | 'lost' | 'gone', why?: string): void => {
      if (settled) return;
      settled = true;
      if (how === 'answered') tally.answered++;
      else if (how === 'lost') tally.lost.push(`${write ? 'POST' : 'GET'} ${path}: ${why}`);
      else if (how === 'gone') tally.gone++;
      else tally.refused++;
      resolve(how);
    };
    const req = httpRequest(`${url}${path}`, {
      method: write ? 'POST' : 'GET',
      agent,
      headers: {
        Accept: 'application/ld+json',
        Expect: '100-continue',
        ...(body ? { 'Content-Type': 'application/ld+json', 'Content-Length': Buffer.byteLength(body) } : {}),
      },
    });
    req.on('continue', () => {
      accepted = true;
      req.end(body);
    });
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        if (!res.complete) return end('lost', `response cut after ${text.length} characters`);
        if (write && res.statusCode === 201) tally.created.push((JSON.parse(text) as { '@id': string })['@id']);
        if (res.statusCode! >= 500) return end('lost', `${res.statusCode} ${text}`);
        end('answered');
      });
      res.on('error', (e) => end('lost', `response: ${e.message}`));
      res.on('aborted', () => end('lost', 'response aborted'));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') return end('gone');
      end(accepted ? 'lost' : 'refused', e.message);
    });
    req.flushHeaders();
  });
}

/**
 * Load until the server refuses connections: `lanes` clients one request after another, half of them on a
 * keep-alive connection each, half on a new connection per request.
 */
async function load(url: string, lanes: number, tally: Tally, exited: () => boolean): Promise<void> {
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const agent = lane % 2 === 0 ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
      // Until refused, or the server gone (its port might then serve someone else).
      while (!exited() && (await send(url, agent, tally)) !== 'gone');
      if (agent) agent.destroy();
    }),
  );
}

/** A subscription to the built-in Mercure hub, once open; `ended` resolves once the server ended it. */
async function subscribe(url: string): Promise<{ ended: Promise<string> }> {
  let opened: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const ended = new Promise<string>((resolve) => {
    const req = httpRequest(`${url}/.well-known/mercure?topic=${encodeURIComponent('/books/{id}')}`);
    req.on('response', (res) => {
      opened();
      res.resume();
      res.on('end', () => resolve(res.complete ? 'ended' : 'cut'));
      res.on('error', () => resolve('cut'));
    });
    req.on('error', (e) => {
      opened();
      resolve(`failed: ${e.message}`);
    });
    req.end();
  });
  await open;
  return { ended };
}

type Target = 'the command' | 'its process group';
type Moment = 'start' | 'load';

interface Run {
  workers: boolean;
  signal: 'SIGTERM' | 'SIGINT';
  target: Target;
  moment: Moment;
}

/** One start and stop; returns what the clients saw. */
async function stopOnce(
  run: Run,
  data: string,
): Promise<{
  tally: Tally;
  exit: { code: number | null; signal: NodeJS.Signals | null };
  output: string;
  when: string;
  stream?: string;
}> {
  const server = serve(data, run.workers);
  const pid = server.child.pid!;
  const tally: Tally = { sent: 0, answered: 0, refused: 0, gone: 0, lost: [], created: [] };
  const signal = (): void => {
    if (!server.exited()) process.kill(run.target === 'the command' ? pid : -pid, run.signal);
  };
  let when: string;
  let traffic: Promise<unknown> = Promise.resolve();
  if (run.moment === 'start') {
    // From a moment inside the start: the store directory made (one process), a worker forked (two workers).
    const wait = run.workers ? between(0, 1500) : between(0, 400);
    const workersBefore = between(1, 2);
    await until(() => (run.workers ? children(pid) >= workersBefore : existsSync(data)), server.exited);
    await sleep(wait);
    when = run.workers
      ? `${wait} ms after worker ${workersBefore} was forked`
      : `${wait} ms after the store directory was made`;
    signal();
    // Clients that saw the banner before the signal took effect load the draining server.
    if (server.url()) traffic = load(server.url()!, 4, tally, server.exited);
  } else {
    await until(() => server.url() !== undefined, server.exited);
    const url = server.url()!;
    const stream = await subscribe(url);
    traffic = load(url, 6, tally, server.exited).then(() => stream.ended);
    const answers = between(10, 60);
    await until(() => tally.answered >= answers || tally.lost.length > 0, server.exited);
    when = `after ${tally.answered} answers`;
    signal();
  }
  const exit = await server.exit;
  const stream = await traffic;
  return { tally, exit, output: server.output(), when, stream: typeof stream === 'string' ? stream : undefined };
}

/**
 * `apidsl ARGS` whose command modules (dist/cli/main.js) take `ms` to load, as on a busy machine: a module hook
 * holds their loading and first writes `marker`, so the test knows the process is inside that window.
 */
function launchSlowly(args: string[], marker: string, ms: number): Serving {
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier.endsWith('/cli/main.js')) {
      (await import('node:fs')).writeFileSync(${JSON.stringify(marker)}, '');
      await new Promise((done) => setTimeout(done, ${ms}));
    }
    return next(specifier, context);
  }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  return launch(args, {}, ['--import', `data:text/javascript,${encodeURIComponent(register)}`]);
}

/** The IRIs of the stored books, read by another process once the server is gone. */
function storedBooks(data: string): Set<string> {
  const r = spawnSync(process.execPath, [fromRoot('bin/apidsl.js'), 'export', FIXTURE, 'Book', '--data', data], {
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).to.equal(0);
  return new Set((JSON.parse(r.stdout) as { id: number }[]).map((b) => `/books/${b.id}`));
}

/**
 * Each target at each moment, once per mode; the two signals take the same path, so each pairs with each target
 * once (which moment gets which pairing is drawn): eight starts in all, for the suite's time.
 */
const RUNS: Run[] = [];
for (const workers of [false, true]) {
  const pairings = [
    [
      ['SIGTERM', 'the command'],
      ['SIGINT', 'its process group'],
    ],
    [
      ['SIGINT', 'the command'],
      ['SIGTERM', 'its process group'],
    ],
  ] as const;
  const first = random() < 0.5 ? 0 : 1;
  for (const [moment, pairing] of [
    ['start', pairings[first]],
    ['load', pairings[1 - first]],
  ] as const)
    for (const [signal, target] of pairing) RUNS.push({ workers, signal, target, moment });
}

for (const workers of [false, true]) {
  describe(`serve${workers ? ' --workers 2' : ''}: a stop signal drains (seed ${SEED})`, function () {
    this.timeout(120_000);
    const base = tempDir();
    /** The books created, by store directory. */
    const created = new Map<string, string[]>();

    for (const run of RUNS.filter((r) => r.workers === workers)) {
      it(`${run.signal} to ${run.target} during the ${run.moment === 'start' ? 'start' : 'load'}: exit 0, nothing lost`, async () => {
        // The start is caught where it makes the store directory: a fresh one for each such run.
        const data = join(base, !workers && run.moment === 'start' ? `data-${RUNS.indexOf(run)}` : 'data');
        const { tally, exit, output, when, stream } = await stopOnce(run, data);
        const said = `seed ${SEED}, signal ${when}; ${JSON.stringify({ ...tally, created: tally.created.length })}\n${output}`;
        expect(exit, said).to.deep.equal({ code: 0, signal: null });
        expect(tally.lost, said).to.deep.equal([]);
        if (run.moment === 'load') {
          expect(tally.answered, said).to.be.greaterThan(0);
          expect(stream, said).to.equal('ended');
        }
        created.set(data, [...(created.get(data) ?? []), ...tally.created]);
      });
    }

    it('every POST answered 201 is in the store afterwards', () => {
      const all = [...created.values()].flat();
      expect(all).to.not.be.empty;
      for (const [data, iris] of created) {
        if (iris.length === 0) continue;
        const stored = storedBooks(data);
        expect(
          iris.filter((iri) => !stored.has(iri)),
          data,
        ).to.deep.equal([]);
      }
    });
  });
}

/** A POST whose head the server has taken (`100 Continue`) and whose body waits for `finish`. */
async function postTaken(
  url: string,
  agent: Agent,
  server: Serving,
): Promise<{ finish: (body: string) => Promise<{ status?: number; connection?: string; closed: Promise<void> }> }> {
  const req = httpRequest(`${url}/books`, {
    method: 'POST',
    agent,
    headers: { 'Content-Type': 'application/ld+json', 'Content-Length': '100', Expect: '100-continue' },
  });
  let taken = false;
  req.on('continue', () => (taken = true));
  const response = new Promise<IncomingMessage | undefined>((resolve) => {
    req.on('response', resolve);
    req.on('error', () => resolve(undefined));
  });
  req.flushHeaders();
  await until(() => taken, server.exited);
  return {
    finish: async (body) => {
      req.end(body.padEnd(100));
      const res = await response;
      res?.resume();
      const socket = req.socket!;
      const closed = new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', resolve)));
      return { status: res?.statusCode, connection: res?.headers.connection, closed };
    },
  };
}

/** Resolves once a new connection to `url` is refused: the server no longer listens. */
async function refusing(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    await sleep(10);
  }
}

for (const workers of [false, true]) {
  describe(`serve${workers ? ' --workers 2' : ''}: the drain, step by step`, function () {
    this.timeout(60_000);

    it('stops listening, closes an idle keep-alive connection, answers a request in flight with Connection: close, exit 0', async () => {
      const data = join(tempDir(), 'data');
      const server = serve(data, workers);
      await until(() => server.url() !== undefined, server.exited);
      const url = server.url()!;
      // An idle keep-alive connection: one request answered, the socket kept.
      const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
      const idle = await new Promise<{ status?: number; closed: Promise<void> }>((resolve) =>
        httpRequest(`${url}/books`, { agent: idleAgent }, (res) => {
          res.resume();
          const socket = res.socket;
          const closed = new Promise<void>((done) => socket.once('close', () => done()));
          res.on('end', () => resolve({ status: res.statusCode, closed }));
        }).end(),
      );
      expect(idle.status).to.equal(200);
      const inFlight = await postTaken(url, new Agent({ keepAlive: true, maxSockets: 1 }), server);
      process.kill(-server.child.pid!, 'SIGTERM');
      process.kill(server.child.pid!, 'SIGINT'); // a repeat, absorbed
      await refusing(url);
      await idle.closed;
      const answer = await inFlight.finish(JSON.stringify({ title: 'in flight' }));
      expect(answer).to.include({ status: 201, connection: 'close' });
      await answer.closed;
      expect(await server.exit, server.output()).to.deep.equal({ code: 0, signal: null });
      expect([...storedBooks(data)]).to.have.length(1);
    });

    it('a request whose body never comes: the stop gives up after APIDSL_DRAIN_TIMEOUT, exit code 1, saying so', async () => {
      const server = serve(join(tempDir(), 'data'), workers, { APIDSL_DRAIN_TIMEOUT: '1' });
      await until(() => server.url() !== undefined, server.exited);
      // Half a body, once the server took the request: it waits for the rest, which the client never sends.
      await postTaken(server.url()!, new Agent(), server);
      process.kill(-server.child.pid!, 'SIGTERM');
      const exit = await server.exit;
      expect(exit, server.output()).to.deep.equal({ code: 1, signal: null });
      expect(server.output()).to.contain('still not finished after 1 s; exiting anyway');
    });
  });
}

/**
 * The window the other runs cannot reach on a quiet machine: the command's own modules loading (hundreds of
 * milliseconds under load), made long here by a module hook. The stop handlers are in place before it.
 */
describe(`a stop signal while the command's modules load (seed ${SEED})`, function () {
  this.timeout(60_000);
  const LOADING_MS = 1500;

  for (const [name, args] of [
    ['serve', (dir: string) => ['serve', FIXTURE, '--data', join(dir, 'data'), '--port', '0']],
    [
      'serve --workers 2',
      (dir: string) => ['serve', FIXTURE, '--data', join(dir, 'data'), '--port', '0', '--workers', '2'],
    ],
    ['consume', (dir: string) => ['consume', messengerFixture('embedded', 'tasks').file, '--data', join(dir, 'data')]],
  ] as const) {
    it(`${name}: exit code 0, never ended by the signal`, async () => {
      const dir = tempDir();
      const marker = join(dir, 'loading');
      const command = launchSlowly(args(dir), marker, LOADING_MS);
      await until(() => existsSync(marker), command.exited);
      const wait = between(0, LOADING_MS - 300);
      const signal = random() < 0.5 ? 'SIGTERM' : 'SIGINT';
      await sleep(wait);
      process.kill(-command.child.pid!, signal);
      const said = `${signal} ${wait} ms into the loading (seed ${SEED})\n${command.output()}`;
      expect(await command.exit, said).to.deep.equal({ code: 0, signal: null });
    });
  }
});

describe('consume: a stop signal', function () {
  this.timeout(60_000);

  it('to the process group, twice, while it consumes: exit code 0', async () => {
    const f = messengerFixture('embedded', 'tasks');
    const consumer = launch(['consume', f.file, '--data', join(f.dir, 'data')]);
    await until(() => consumer.output().includes('apidsl consuming'), consumer.exited);
    process.kill(-consumer.child.pid!, 'SIGTERM');
    process.kill(-consumer.child.pid!, 'SIGINT');
    expect(await consumer.exit, consumer.output()).to.deep.equal({ code: 0, signal: null });
  });

  it('to the process group while it opens the store: exit code 0', async () => {
    const f = messengerFixture('embedded', 'tasks');
    const data = join(f.dir, 'data');
    const consumer = launch(['consume', f.file, '--data', data]);
    await until(() => existsSync(data), consumer.exited);
    process.kill(-consumer.child.pid!, 'SIGTERM');
    expect(await consumer.exit, consumer.output()).to.deep.equal({ code: 0, signal: null });
  });
});
