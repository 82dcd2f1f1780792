/**
 * Messenger over the embedded queue (a table in the embedded store's SQLite database), black-box: 202 with
 * the item, handling by `apidsl consume` and by `serve --consume`, retries then the failure queue,
 * at-least-once delivery across a consumer killed mid-handler, `messenger: "input"`, and the sync transport.
 */
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { join } from 'node:path';
import { request, startServer, useServer } from './harness.js';
import {
  eventually,
  expectFailedCommands,
  expectRedeliveryAfterKill,
  expectThreeAttempts,
  handlerLog,
  messengerFixture,
  taskTitles,
  useConsumers,
  type MessengerFixture,
} from './messenger-fixture.js';

type Collection = {
  totalItems: number;
  member: { title: string; handledBy?: string; attempts?: number; raw?: string; text?: string }[];
};

describe('Messenger: embedded queue', function () {
  this.timeout(60_000);
  let f: MessengerFixture;
  let data: string;
  before(() => {
    f = messengerFixture('embedded', 'tasks');
    data = join(f.dir, 'data');
  });
  const server = useServer(
    () => f.file,
    () => ['--data', data],
  );
  const consume = useConsumers(
    () => f.file,
    () => ['--data', data],
  );
  const titles = (): Promise<string[]> => taskTitles(server.url);

  it('answers 202 with the item and stores nothing itself; a consumer process handles it', async () => {
    const r = await request(server.url, 'POST', '/tasks', { body: { title: 'write report' } });
    expect(r.status, r.text).to.equal(202);
    expect(r.json).to.include({ '@type': 'Task', title: 'write report' });
    expect(r.headers.get('location')).to.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await titles()).to.not.include('write report');
    await consume();
    const done = await eventually<Collection>(server.url, '/tasks?itemsPerPage=100', (c) =>
      c.member.some((m) => m.title === 'write report'),
    );
    expect(done.member.find((m) => m.title === 'write report')).to.include({ handledBy: 'embedded', attempts: 1 });
  });

  it('documents 202 for the dispatching operations in OpenAPI', async () => {
    const openapi = await request(server.url, 'GET', '/docs.json');
    expect(Object.keys(openapi.json.paths['/tasks'].post.responses)).to.include('202').and.not.include('201');
  });

  it('validates before dispatching: an invalid item is 422 and never reaches a handler', async () => {
    const r = await request(server.url, 'POST', '/tasks', { body: { title: '' } });
    expect(r.status).to.equal(422);
    const r2 = await request(server.url, 'POST', '/tasks', { body: { title: 'ok', attempts: 'many' } });
    expect(r2.status).to.be.oneOf([400, 422]);
    // A valid task queued after them: once it is handled, anything queued before it would have been too.
    expect((await request(server.url, 'POST', '/tasks', { body: { title: 'after the invalid' } })).status).to.equal(
      202,
    );
    await consume();
    await eventually<Collection>(server.url, '/tasks?itemsPerPage=100', (c) =>
      c.member.some((m) => m.title === 'after the invalid'),
    );
    expect(handlerLog(f).map((l) => l.title)).to.not.include('');
    expect(handlerLog(f).map((l) => l.title)).to.not.include('ok');
  });

  it('loses no message when the consumer is killed (SIGKILL) mid-handler: another one handles it again', async () => {
    await expectRedeliveryAfterKill(server.url, f, consume, 'hang-embedded');
  });

  it('retries a failing handler with a delay, then parks the message in the failure queue', async () => {
    await expectThreeAttempts(
      server.url,
      f,
      consume,
      { flaky: 'flaky-embedded', failing: 'fail-embedded' },
      { timeoutMs: 10_000, settleMs: 500 },
    );
    expect(await titles()).to.not.include('fail-embedded');
    const db = new Database(join(data, 'apidsl.sqlite'), { readonly: true });
    try {
      const parked = db.prepare(`SELECT body FROM _apidsl_messages WHERE queue = 'tasks.failed'`).all() as {
        body: string;
      }[];
      expect(parked.map((p) => JSON.parse(p.body).message.title)).to.deep.equal(['fail-embedded']);
    } finally {
      db.close();
    }
  });

  it('messenger: "input" hands the request body as received to the handler', async () => {
    await consume();
    const r = await request(server.url, 'POST', '/signups', { body: { name: 'Ada' } });
    expect(r.status).to.equal(202);
    const c = await eventually<Collection>(server.url, '/tasks?itemsPerPage=100', (x) =>
      x.member.some((m) => m.title === 'welcome Ada'),
    );
    expect(JSON.parse(c.member.find((m) => m.title === 'welcome Ada')!.raw!)).to.deep.equal({ name: 'Ada' });
  });

  it("the sync transport handles the message inside the request; its failure is the request's (500)", async () => {
    const r = await request(server.url, 'POST', '/notes', { body: { text: 'now' } });
    expect(r.status).to.equal(202);
    const notes = (await request(server.url, 'GET', '/notes')).json as Collection;
    expect(notes.member.map((n) => n.text)).to.include('now (handled)');
    const failed = await request(server.url, 'POST', '/notes', { body: { text: 'fail' } });
    expect(failed.status).to.equal(500);
    expect(failed.headers.get('content-type')).to.match(/^application\/problem\+json/);
  });

  it('serve --consume handles queued messages in the serving process', async () => {
    const other = await startServer(f.file, ['--data', join(f.dir, 'data-inprocess'), '--consume']);
    try {
      expect((await request(other.url, 'POST', '/tasks', { body: { title: 'in process' } })).status).to.equal(202);
      const c = await eventually<Collection>(other.url, '/tasks', (x) =>
        x.member.some((m) => m.title === 'in process'),
      );
      expect(c.totalItems).to.equal(1);
    } finally {
      await other.stop();
    }
  });

  it('messages outlive the server: queued while no consumer runs, handled after a restart', async () => {
    const dir = join(f.dir, 'data-restart');
    const first = await startServer(f.file, ['--data', dir]);
    expect((await request(first.url, 'POST', '/tasks', { body: { title: 'survivor' } })).status).to.equal(202);
    await first.stop();
    const second = await startServer(f.file, ['--data', dir, '--consume']);
    try {
      await eventually<Collection>(second.url, '/tasks', (x) => x.member.some((m) => m.title === 'survivor'));
    } finally {
      await second.stop();
    }
  });

  it('apidsl messenger failed: lists the failure queue, retries a message (handled again), removes one', async function () {
    // Six `apidsl messenger failed` commands, each a process of its own: a loaded machine takes seconds per start.
    this.timeout(180_000);
    await expectFailedCommands(server.url, f, consume, ['--data', data], 'embedded');
  });
});
