/**
 * Row-level scopes on Messenger-dispatched writes, over real HTTP (docs/scopes.md, "Messages"; fixture
 * test/fixtures/http/scopes-messages.api, whose handler stores a task for its assignee): the handler writes as the
 * user who dispatched the message, in the request (sync transport, on the suite's store) and later in a consumer
 * process (the embedded queue): a write outside that user's write scope is refused and nothing is stored, while
 * staff's goes through. A queued message without a user, or with one that cannot be rebuilt, is refused.
 */
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, request, tempDir, useServer, type HttpResponse } from './harness.js';
import { useConsumers } from './messenger-fixture.js';
import { bearer, token } from './security-helpers.js';
import { eventually } from '../support/eventually.js';

const users: Record<string, Record<string, string>> = {};
/**
 * Signs the three users' tokens. Each describe calls it in its own hook: a hook at the file's top level would run
 * when the whole run starts, and an hour-long run outlives the tokens.
 */
const signUsers = async (): Promise<void> => {
  users.ann = bearer(await token({ sub: 'ann' }));
  users.bob = bearer(await token({ sub: 'bob' }));
  users.sam = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
};

const post = (base: string, who: string, body: Record<string, unknown>): Promise<HttpResponse> =>
  request(base, 'POST', '/tasks', { headers: users[who], body });
/** The titles of the tasks stored, as staff reads them. */
const stored = async (base: string): Promise<string[]> =>
  ((await request(base, 'GET', '/tasks', { headers: users.sam })).json.member as { title: string }[]).map(
    (t) => t.title,
  );

describe('row-level scopes on Messenger-dispatched writes: the sync transport', function () {
  this.timeout(60_000);
  before(signUsers);
  const server = useServer(fixture('scopes-messages.api'));

  it('runs the handler as the dispatching user: a write outside their scope is refused, nothing stored', async () => {
    const own = await post(server.url, 'ann', { owner: 'ann', title: 'Ann’s' });
    expect(own.status, own.text).to.equal(202);
    const handedOver = await post(server.url, 'bob', { owner: 'bob', assignee: 'ann', title: 'For Ann' });
    expect(handedOver.status, handedOver.text).to.equal(403);
    const byStaff = await post(server.url, 'sam', { owner: 'sam', assignee: 'ann', title: 'By staff' });
    expect(byStaff.status, byStaff.text).to.equal(202);
    expect(await stored(server.url)).to.deep.equal(['Ann’s', 'By staff']);
  });
});

describe('row-level scopes on Messenger-dispatched writes: the embedded queue and a consumer', function () {
  this.timeout(60_000);
  before(signUsers);
  const dir = tempDir('apidsl-scoped-messages-');
  const file = join(dir, 'scoped-messages.api');
  const data = join(dir, 'data');
  const server = useServer(
    () => {
      copyFileSync(fixture('scopes-messages-code.mjs'), join(dir, 'scopes-messages-code.mjs'));
      const source = readFileSync(fixture('scopes-messages.api'), 'utf8');
      writeFileSync(file, source.replace('transport: "sync"', 'transport: "embedded"'));
      return file;
    },
    () => ['--data', data],
  );
  const consume = useConsumers(
    () => file,
    () => ['--data', data],
  );
  /** Runs `sql` on the embedded store's database, where the queue's messages are. */
  const queue = (sql: string, ...args: unknown[]): unknown[] => {
    const db = new Database(join(data, 'apidsl.sqlite'));
    try {
      return sql.startsWith('SELECT') ? db.prepare(sql).all(...args) : [db.prepare(sql).run(...args)];
    } finally {
      db.close();
    }
  };

  it('checks each queued write as the user who dispatched it, and refuses a message without a valid user', async () => {
    for (const [who, body] of [
      ['ann', { owner: 'ann', title: 'Ann’s' }],
      ['bob', { owner: 'bob', assignee: 'ann', title: 'For Ann' }],
      ['sam', { owner: 'sam', assignee: 'ann', title: 'By staff' }],
    ] as const) {
      const r = await post(server.url, who, body);
      expect(r.status, r.text).to.equal(202);
    }
    // Two forged copies of Ann's message: one without its user, one whose user is no user.
    const [ann] = queue(`SELECT body FROM _apidsl_messages WHERE queue = 'tasks' ORDER BY id LIMIT 1`) as {
      body: string;
    }[];
    const envelope = JSON.parse(ann!.body);
    const forged = (title: string, user: unknown) => {
      const headers = { ...envelope.headers, user };
      if (user === undefined) delete headers.user;
      return JSON.stringify({
        ...envelope,
        id: `${envelope.id}-${title}`,
        message: { ...envelope.message, title },
        headers,
      });
    };
    for (const [title, user] of [
      ['No user', undefined],
      ['Bad user', 'ann'],
    ] as const)
      queue(`INSERT INTO _apidsl_messages (queue, body, available_at) VALUES ('tasks', ?, 0)`, forged(title, user));
    await consume();
    const failed = () =>
      (queue(`SELECT body FROM _apidsl_messages WHERE queue = 'tasks.failed'`) as { body: string }[]).map(
        (row) => JSON.parse(row.body) as { message: { title: string }; headers: { failure: { error: string } } },
      );
    const until = Date.now() + 15_000;
    while (failed().length < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failed().map((m) => m.message.title)).to.have.members(['For Ann', 'No user', 'Bad user']);
    for (const m of failed().filter((f) => f.message.title !== 'For Ann'))
      expect(m.headers.failure.error).to.match(/carries no user/);
    // The messages are handled in turns with retries in between: the staff's may still be on its way.
    const done = await eventually(
      () => stored(server.url),
      (titles) => titles.length >= 2,
    );
    expect(done).to.deep.equal(['Ann’s', 'By staff']);
  });
});
