/**
 * `apidsl serve --db postgres://…` when PostgreSQL goes away under load and comes back (issue 42): clients keep
 * POSTing (nested writes: transactions) and GETting while the test stops its own server as a crash would (`pg_ctl
 * stop -m immediate`) and starts it again, or freezes it (SIGSTOP) for longer than the bound. Every answer is a 2xx
 * or a 503 problem+json with Retry-After, each within MongoDB's bound (never a 500,
 * never a hang); the service recovers by itself; every POST answered 201 is stored, once. The machine's server is
 * never stopped: the test runs one of its own (test/support/postgres-server.ts).
 */
import { expect } from 'chai';
import pg from 'pg';
import { fixture, PROBLEM_JSON, startServer, type RunningServer } from '../../http/harness.js';
import { ownPostgresOrSkip, type OwnPostgres } from '../../support/postgres-server.js';

/**
 * docs/mongodb.md: an operation a server does not answer gives up after 5 s, the default `query_timeout` and
 * `connect_timeout_ms` of the PostgreSQL store. A stopped server refuses at once; a frozen one may hold a request
 * for both: a new connection it accepted but never greets (5 s), or one statement (5 s). The margin is for a loaded
 * machine, not for a slower store.
 */
const STEP_MS = 5_000;
const MARGIN_MS = 1_500;
const CLIENTS = 4;

interface Answer {
  method: string;
  status: number;
  startedAt: number;
  endedAt: number;
  retryAfter: string | null;
  type: string | null;
  body: string;
  title?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One request, timed; a request with no answer within 30 s (a hang) or a broken connection is status 0. */
async function timed(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const startedAt = Date.now();
  try {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/ld+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const retryAfter = res.headers.get('retry-after');
    return {
      method,
      status: res.status,
      startedAt,
      endedAt: Date.now(),
      retryAfter,
      type: res.headers.get('content-type'),
      body: text,
    };
  } catch (e) {
    return { method, status: 0, startedAt, endedAt: Date.now(), retryAfter: null, type: null, body: String(e) };
  }
}

/**
 * A client POSTing books (titled after its name) with their author as a nested document (a transaction), and
 * reading the last one it created, until `running()` turns false.
 */
async function client(base: string, name: string, running: () => boolean, answers: Answer[]): Promise<void> {
  let last = '/books/1';
  for (let i = 0; running(); i++) {
    const title = `${name} book ${i}`;
    const created = await timed(base, 'POST', '/books', { title, author: { name: title } });
    answers.push({ ...created, title });
    if (created.status === 201) last = JSON.parse(created.body)['@id'];
    answers.push(await timed(base, 'GET', i % 2 ? last : '/books?page=1'));
    await sleep(10);
  }
}

/** When the outage began and ended (the server unreachable between `down` and `back`), and the first 2xx after. */
interface Run {
  answers: Answer[];
  down: number;
  back: number;
  recovered?: Answer;
}

/** Runs the clients around `outage`, which resolves with the times the server stopped and came back. */
async function underLoad(
  base: string,
  label: string,
  outage: () => Promise<{ down: number; back: number }>,
): Promise<Run> {
  const answers: Answer[] = [];
  let running = true;
  const clients = Array.from({ length: CLIENTS }, (_, n) =>
    client(base, `${label} client ${n}`, () => running, answers),
  );
  await sleep(1_500);
  const { down, back } = await outage();
  let recovered: Answer | undefined;
  while (!recovered && Date.now() - back < 30_000) {
    await sleep(100);
    recovered = answers.find((a) => a.startedAt >= back && a.status < 300);
  }
  await sleep(1_500);
  running = false;
  await Promise.all(clients);
  return { answers, down, back, recovered };
}

const described = (list: Answer[]): string[] =>
  list.map((a) => `${a.method} ${a.status} in ${a.endedAt - a.startedAt} ms: ${a.body.slice(0, 200)}`);

/** Only 2xx and 503 problem+json with Retry-After, each within the bound; 503 while down; 2xx once recovered. */
function checkAnswers({ answers, down, back, recovered }: Run, bound: number): void {
  expect(described(answers.filter((a) => ![200, 201, 503].includes(a.status))), 'not 2xx nor 503').to.deep.equal([]);
  expect(described(answers.filter((a) => a.endedAt - a.startedAt > bound)), 'over the bound').to.deep.equal([]);
  for (const a of answers.filter((a) => a.status === 503)) {
    expect(a.retryAfter, a.body).to.match(/^\d+$/);
    expect(a.type).to.equal(PROBLEM_JSON);
  }
  expect(
    answers.some((a) => a.endedAt < down && a.status === 201),
    'writes before the outage',
  ).to.equal(true);
  // Answered while out of reach: sent during the outage, or in flight when it began and answered well after (a
  // frozen server holds every client's request in flight at once, so none may be sent during it).
  const whileDown = answers.filter((a) => a.endedAt <= back && (a.startedAt >= down || a.endedAt >= down + 2_000));
  expect(whileDown.length, 'requests answered while the server was out of reach').to.be.greaterThan(0);
  expect(described(whileDown.filter((a) => a.status !== 503))).to.deep.equal([]);
  expect(recovered, 'a request answered 2xx after the server came back').to.not.equal(undefined);
  const settled = answers.filter((a) => a.startedAt >= recovered!.endedAt + 500);
  expect(settled.length, 'requests once recovered').to.be.greaterThan(CLIENTS);
  expect(described(settled.filter((a) => a.status >= 300)), 'failing once recovered').to.deep.equal([]);
}

/** Every POST answered 201 is stored, and nothing is stored twice. */
async function checkStored(url: string, answers: Answer[]): Promise<void> {
  const acknowledged = answers.filter((a) => a.method === 'POST' && a.status === 201).map((a) => a.title!);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const stored = (await db.query<{ title: string }>('SELECT title FROM book')).rows.map((r) => r.title);
    const missing = acknowledged.filter((title) => !stored.includes(title));
    expect(missing, 'answered 201, not stored').to.deep.equal([]);
    expect(stored.length, 'a title stored twice').to.equal(new Set(stored).size);
  } finally {
    await db.end();
  }
}

describe('PostgreSQL store: the server lost under load', function () {
  this.timeout(180_000);
  let server: OwnPostgres | undefined;
  let api: RunningServer | undefined;

  before(async function () {
    server = await ownPostgresOrSkip(this, 'outage');
    api = await startServer(fixture('durability.api'), ['--db', `${server.url}/postgres`]);
  });
  after(async () => {
    await api?.stop();
    await server?.remove();
  });

  it('stopped and started: 503 with Retry-After within the bound, recovers by itself, loses no 201', async () => {
    const run = await underLoad(api!.url, 'stopped', async () => {
      await server!.stop();
      const down = Date.now();
      await sleep(4_000);
      const back = Date.now();
      await server!.start();
      return { down, back };
    });
    checkAnswers(run, STEP_MS + MARGIN_MS);
    await checkStored(`${server!.url}/postgres`, run.answers);
    expect(api!.output()).to.not.match(/exited|TypeError|unhandled/i);
  });

  it('frozen longer than the bound: 503 within the bound, recovers once it runs again, loses no 201', async () => {
    const run = await underLoad(api!.url, 'frozen', async () => {
      server!.freeze();
      const down = Date.now();
      await sleep(8_000);
      const back = Date.now();
      server!.thaw();
      return { down, back };
    });
    checkAnswers(run, 2 * STEP_MS + MARGIN_MS);
    await checkStored(`${server!.url}/postgres`, run.answers);
    expect(api!.output()).to.not.match(/exited|TypeError|unhandled/i);
  });
});
