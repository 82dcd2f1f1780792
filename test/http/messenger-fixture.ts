/**
 * Shared by the messenger suites: a `.api` file written to a fresh directory beside a copy of the test
 * handlers (transport, queue and retry settings chosen by the suite), `apidsl consume` processes, and the
 * delivery checks every transport passes (redelivery after a killed consumer, retries).
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually as askUntil } from '../support/eventually.js';
import { fromRoot } from '../support/paths.js';
import { outsideTestBound } from '../support/startup-bound.js';
import { STARTUP_TIMEOUT_MS, fixture, request } from './harness.js';

/** Children still running, killed when the test process exits (one listener for all). */
const live = new Set<ChildProcess>();
process.once('exit', () => live.forEach((c) => c.kill('SIGKILL')));

export interface MessengerFixture {
  dir: string;
  file: string;
  /** Where the handlers log and leave markers (APIDSL_TEST_MARKERS). */
  markers: string;
}

export function messengerFixture(transport: 'embedded' | 'amqp', queue: string, extraConfig = ''): MessengerFixture {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-messenger-'));
  const markers = mkdtempSync(join(tmpdir(), 'apidsl-markers-'));
  copyFileSync(fixture('messenger-handlers.mjs'), join(dir, 'handlers.mjs'));
  const file = join(dir, 'tasks.api');
  writeFileSync(
    file,
    `api "Tasks" { version: "1" }

config {
  messenger {
    transport: "${transport}"
    queue: "${queue}"
    redeliver_timeout: 1
    routing { Note: "sync" }
    handlers {
      Task: "./handlers.mjs#onTask"
      Signup: "./handlers.mjs#onSignup"
      Note: "./handlers.mjs#onNote"
    }
    retry { max_retries: 2, delay: 100, multiplier: 2 }
${extraConfig}
  }
}

resource Task {
  properties {
    id: int { identifier: true }
    title: string { required: true, minLength: 1 }
    handledBy: string
    attempts: int
    raw: string
  }
  operations {
    GetCollection {}
    Get {}
    Post { messenger: true }
  }
}

resource Signup {
  properties {
    name: string
  }
  operations {
    Post { messenger: "input" }
  }
}

resource Note {
  properties {
    id: int { identifier: true }
    text: string
  }
  operations {
    GetCollection {}
    Post { messenger: true }
  }
}
`,
  );
  process.env.APIDSL_TEST_MARKERS = markers;
  return { dir, file, markers };
}

/** The handler calls logged so far. */
export function handlerLog(f: MessengerFixture): { title: string; attempt: number; transport: string; pid: number }[] {
  const path = join(f.markers, 'log');
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
}

export interface ConsumerProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `apidsl consume FILE [args]`; resolves once it says it is consuming (outside the test's own bound). */
export function startConsumer(file: string, args: string[]): Promise<ConsumerProcess> {
  return outsideTestBound(STARTUP_TIMEOUT_MS + 10_000, () => consumeUntilListening(file, args));
}

function consumeUntilListening(file: string, args: string[]): Promise<ConsumerProcess> {
  const child = spawn(process.execPath, [fromRoot('bin/apidsl.js'), 'consume', file, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  live.add(child);
  child.once('exit', () => live.delete(child));
  const consumer: ConsumerProcess = {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    // The harness's start-up bound: a loaded machine can take many seconds; a consumer that exits fails at once.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`consumer did not start within ${STARTUP_TIMEOUT_MS / 1000} s: ${out}`));
    }, STARTUP_TIMEOUT_MS);
    child.stdout!.on('data', () => {
      if (out.includes('apidsl consuming')) {
        clearTimeout(timer);
        resolve(consumer);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`consumer exited: ${out}`));
    });
  });
}

/** Polls `GET path` until `accept(json)` holds; returns the last document. */
export async function eventually<T>(
  base: string,
  path: string,
  accept: (json: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const holds = (r: { status: number; json: unknown }): boolean => r.status === 200 && accept(r.json as T);
  const last = await askUntil(() => request(base, 'GET', path), holds, { timeoutMs, intervalMs: 100 });
  if (holds(last)) return last.json as T;
  throw new Error(`GET ${path} never satisfied the condition; last: ${JSON.stringify(last.json)}`);
}

export async function waitForFile(path: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`${path} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type Tasks = { member: { title: string }[]; view?: { next?: string } };

/** The titles of the stored tasks, every page of them. */
export async function taskTitles(base: string): Promise<string[]> {
  const titles: string[] = [];
  for (let path: string | undefined = '/tasks?itemsPerPage=100'; path;) {
    const page = (await request(base, 'GET', path)).json as Tasks;
    titles.push(...page.member.map((m) => m.title));
    path = page.view?.next;
  }
  return titles;
}

/** Waits until the tasks `titles` are all stored. */
export async function tasksStored(base: string, titles: string[], timeoutMs = 10_000): Promise<void> {
  const all = (stored: string[]): boolean => titles.every((t) => stored.includes(t));
  const stored = await askUntil(() => taskTitles(base), all, { timeoutMs, intervalMs: 100 });
  if (!all(stored)) throw new Error(`never stored: ${titles.filter((t) => !stored.includes(t)).join(', ')}`);
}

/** Waits until the task `title` is stored. */
export const taskStored = (base: string, title: string): Promise<void> => tasksStored(base, [title]);

/** `consume()` starts `apidsl consume FILE ARGS` (read when called); the consumers are stopped after each test. */
export function useConsumers(file: () => string, args: () => string[]): () => Promise<ConsumerProcess> {
  const consumers: ConsumerProcess[] = [];
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });
  return async () => {
    const c = await startConsumer(file(), args());
    consumers.push(c);
    return c;
  };
}

/** The attempts the handler logged for `title`, in order. */
const attempts = (f: MessengerFixture, title: string): number[] =>
  handlerLog(f)
    .filter((l) => l.title === title)
    .map((l) => l.attempt);

/**
 * At-least-once delivery: a consumer killed (SIGKILL) while its handler hangs on `title` (a `hang-` title)
 * leaves the message to the next consumer, which handles it again: attempts 1 and 2, in two processes.
 */
export async function expectRedeliveryAfterKill(
  base: string,
  f: MessengerFixture,
  consume: () => Promise<ConsumerProcess>,
  title: string,
): Promise<void> {
  const first = await consume();
  expect((await request(base, 'POST', '/tasks', { body: { title } })).status).to.equal(202);
  await waitForFile(join(f.markers, `hanging-${title}`));
  first.child.kill('SIGKILL');
  await first.stop();
  expect(await taskTitles(base)).to.not.include(title);
  await consume();
  await taskStored(base, title);
  const calls = handlerLog(f).filter((l) => l.title === title);
  expect(calls.map((c) => c.attempt)).to.deep.equal([1, 2]);
  expect(calls[0].pid).to.not.equal(calls[1].pid);
}

/**
 * Retries (max_retries: 2): the `flaky-` task is handled at its third attempt, the `fail-` task fails all
 * three and is never stored. `settleMs` more are waited for before counting, so a fourth attempt would show.
 */
export async function expectThreeAttempts(
  base: string,
  f: MessengerFixture,
  consume: () => Promise<ConsumerProcess>,
  titles: { flaky: string; failing: string },
  options: { timeoutMs: number; settleMs: number },
): Promise<void> {
  await consume();
  await request(base, 'POST', '/tasks', { body: { title: titles.flaky } });
  await request(base, 'POST', '/tasks', { body: { title: titles.failing } });
  await taskStored(base, titles.flaky);
  const until = Date.now() + options.timeoutMs;
  while (attempts(f, titles.failing).length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  if (options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
  expect(attempts(f, titles.flaky)).to.deep.equal([1, 2, 3]);
  expect(attempts(f, titles.failing)).to.deep.equal([1, 2, 3]);
}

/** `apidsl messenger failed FILE ARGS`, run without blocking this process (the server's connections stay served). */
const failedCommand = (
  f: MessengerFixture,
  storeArgs: string[],
  ...args: string[]
): Promise<{ status: number; stdout: string; stderr: string }> =>
  new Promise((resolve) =>
    execFile(
      process.execPath,
      [fromRoot('bin/apidsl.js'), 'messenger', 'failed', f.file, ...args, ...storeArgs],
      { timeout: 30_000 },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

type Listed = { id: string; transport: string; class: string; line: string } & {
  message: { title: string };
  headers: { operation?: string; failure: { error: string; at: string; transport: string } };
};

/** The failure queue as `show` lists it and `show ID` details it: each message's envelope, by its title. */
async function failedMessages(f: MessengerFixture, storeArgs: string[]): Promise<Map<string, Listed>> {
  const list = await failedCommand(f, storeArgs, 'show');
  expect(list.status, list.stderr).to.equal(0);
  const ids = list.stdout
    .split('\n')
    .slice(1)
    .map((line) => line.split(/\s+/)[0])
    .filter((id) => /^[0-9a-f-]{36}$/.test(id));
  const byTitle = new Map<string, Listed>();
  for (const id of ids) {
    const one = await failedCommand(f, storeArgs, 'show', id);
    expect(one.status, one.stderr).to.equal(0);
    const envelope = JSON.parse(one.stdout);
    byTitle.set(envelope.message.title, { ...envelope, line: list.stdout.split('\n').find((l) => l.startsWith(id)) });
  }
  return byTitle;
}

/**
 * `apidsl messenger failed`: a `broken-` task spends its retries and is listed (id, transport, class, operation,
 * date, error); once fixed, `retry ID` sends it back and a consumer stores it, and it is listed no more; a `fail-`
 * task parked too is deleted by `remove ID` and never handled again; an unknown id is refused (exit 1).
 */
export async function expectFailedCommands(
  base: string,
  f: MessengerFixture,
  consume: () => Promise<ConsumerProcess>,
  storeArgs: string[],
  transport: string,
): Promise<void> {
  await consume();
  const broken = `broken-${transport}`;
  const doomed = `fail-rm-${transport}`;
  for (const title of [broken, doomed])
    expect((await request(base, 'POST', '/tasks', { body: { title } })).status).to.equal(202);
  const until = Date.now() + 20_000;
  while ([broken, doomed].some((t) => attempts(f, t).length < 3) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 100));
  let failed = await failedMessages(f, storeArgs);
  for (let i = 0; i < 50 && !(failed.has(broken) && failed.has(doomed)); i++) {
    await new Promise((r) => setTimeout(r, 200));
    failed = await failedMessages(f, storeArgs);
  }
  const parked = failed.get(broken)!;
  expect(parked, 'listed by show').to.not.equal(undefined);
  expect(parked.transport).to.equal(transport);
  expect(parked.class).to.equal('Task');
  expect(parked.headers.operation).to.be.a('string').and.not.equal('');
  expect(parked.headers.failure).to.include({ error: `${broken} is broken`, transport });
  expect(Date.parse(parked.headers.failure.at)).to.be.closeTo(Date.now(), 60_000);
  expect(parked.line).to.include(transport).and.include('Task').and.include(`${broken} is broken`);

  const unknown = await failedCommand(f, storeArgs, 'retry', '00000000-0000-7000-8000-000000000000');
  expect(unknown.status).to.equal(1);
  expect(unknown.stderr).to.include('no failed message with id 00000000-0000-7000-8000-000000000000');

  writeFileSync(join(f.markers, `fixed-${broken}`), '');
  const retried = await failedCommand(f, storeArgs, 'retry', parked.id);
  expect(retried.status, retried.stderr).to.equal(0);
  expect(retried.stdout).to.include(`${parked.id}: sent back to its queue`);
  await taskStored(base, broken);
  expect(attempts(f, broken), 'handled again from attempt 1').to.deep.equal([1, 2, 3, 1]);

  const removed = await failedCommand(f, storeArgs, 'remove', failed.get(doomed)!.id);
  expect(removed.status, removed.stderr).to.equal(0);
  const after = await failedMessages(f, storeArgs);
  expect(after.has(broken)).to.equal(false);
  expect(after.has(doomed)).to.equal(false);
  expect(attempts(f, doomed)).to.deep.equal([1, 2, 3]);
}
