/**
 * Messenger over AMQP, against the RabbitMQ of the machine (127.0.0.1:5672, guest/guest; .ci/run starts it):
 * durable queue and confirmed publishing, handling by `apidsl consume`, at-least-once delivery across a
 * consumer killed mid-handler, retries through delay queues, the failure queue, 503 when the broker is
 * unreachable, and reconnection when the broker drops every connection (`rabbitmqctl close_all_connections`)
 * or restarts (`rabbitmqctl stop_app` / `start_app`). Each run uses queues of its own, deleted at the end.
 */
import amqp from 'amqplib';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { request, startServer, useServer } from './harness.js';
import {
  eventually,
  expectFailedCommands,
  expectRedeliveryAfterKill,
  handlerLog,
  expectThreeAttempts,
  messengerFixture,
  taskStored,
  tasksStored,
  taskTitles,
  useConsumers,
  waitForFile,
  type MessengerFixture,
} from './messenger-fixture.js';

const BROKER = process.env.MESSENGER_TRANSPORT_DSN || 'amqp://guest:guest@127.0.0.1:5672/%2f';

/** The broker's own control tool (the machine's RabbitMQ): as an operator or a restart would. */
const rabbitmqctl = async (...args: string[]): Promise<void> => {
  await promisify(execFile)('rabbitmqctl', args);
};
const dropAllConnections = (): Promise<void> => rabbitmqctl('close_all_connections', 'apidsl test: dropped');

type Collection = { member: { title: string; handledBy?: string; attempts?: number }[] };

describe('Messenger: AMQP transport (RabbitMQ)', function () {
  this.timeout(60_000);
  const queue = `apidsl-test-${Date.now()}-${randomBytes(4).toString('hex')}`;
  let f: MessengerFixture;
  before(async () => {
    // The broker must be there: under CI=true its absence fails the suite rather than skipping it.
    const probe = await amqp.connect(BROKER);
    await probe.close();
    f = messengerFixture('amqp', queue);
  });
  const server = useServer(
    () => f.file,
    () => ['--data', join(f.dir, 'data')],
  );
  const consume = useConsumers(
    () => f.file,
    () => ['--data', join(f.dir, 'data')],
  );
  const titles = (): Promise<string[]> => taskTitles(server.url);
  after(async () => {
    const connection = await amqp.connect(BROKER);
    const channel = await connection.createChannel();
    for (const q of [queue, `${queue}.failed`, `${queue}.delay.100`, `${queue}.delay.200`])
      await channel.deleteQueue(q).catch(() => undefined);
    await connection.close();
  });

  it('publishes a durable, persistent message (202) that waits in the queue until a consumer handles it', async () => {
    const r = await request(server.url, 'POST', '/tasks', { body: { title: 'via rabbit' } });
    expect(r.status, r.text).to.equal(202);
    const connection = await amqp.connect(BROKER);
    try {
      const channel = await connection.createChannel();
      const info = await channel.checkQueue(queue);
      expect(info.messageCount).to.equal(1);
      // Declaring it again as durable succeeds only if it is durable.
      await channel.assertQueue(queue, { durable: true });
    } finally {
      await connection.close();
    }
    await consume();
    const c = await eventually<Collection>(server.url, '/tasks?itemsPerPage=100', (x) =>
      x.member.some((m) => m.title === 'via rabbit'),
    );
    expect(c.member.find((m) => m.title === 'via rabbit')).to.include({ handledBy: 'amqp', attempts: 1 });
  });

  it('loses no message when the consumer is killed (SIGKILL) mid-handler: the broker redelivers it', async () => {
    await expectRedeliveryAfterKill(server.url, f, consume, 'hang-amqp');
  });

  it('retries a failing handler after a delay, then moves the message to the failure queue', async () => {
    await expectThreeAttempts(
      server.url,
      f,
      consume,
      { flaky: 'flaky-amqp', failing: 'fail-amqp' },
      { timeoutMs: 15_000, settleMs: 0 },
    );
    const connection = await amqp.connect(BROKER);
    try {
      const channel = await connection.createChannel();
      let parked: amqp.GetMessage | false = false;
      for (let i = 0; i < 50 && !parked; i++) {
        parked = await channel.get(`${queue}.failed`, { noAck: true });
        if (!parked) await new Promise((r) => setTimeout(r, 100));
      }
      expect(parked, 'a message in the failure queue').to.not.equal(false);
      expect(JSON.parse((parked as amqp.GetMessage).content.toString()).message.title).to.equal('fail-amqp');
    } finally {
      await connection.close();
    }
    expect(await titles()).to.not.include('fail-amqp');
  });

  it('apidsl messenger failed: lists the failure queue, retries a message (handled again), removes one', async () => {
    await expectFailedCommands(server.url, f, consume, ['--data', join(f.dir, 'data')], 'amqp');
  });

  it('loses no acknowledged message when the broker drops every connection mid-run: publisher and consumer reconnect', async () => {
    await consume();
    const accepted: string[] = [];
    const refused: string[] = [];
    const post = async (title: string): Promise<void> => {
      const r = await request(server.url, 'POST', '/tasks', { body: { title } });
      (r.status === 202 ? accepted : refused).push(`${title} ${r.status}`);
    };
    // Writes go on before, during and after the drop (which takes rabbitmqctl about a second).
    let dropped = false;
    const drop = dropAllConnections().then(() => (dropped = true));
    let i = 0;
    while (!dropped) await post(`burst-${i++}`);
    for (const end = i + 10; i < end;) await post(`burst-${i++}`);
    await drop;
    expect(refused, 'every write was acknowledged: the publisher sent again once reconnected').to.deep.equal([]);
    await tasksStored(
      server.url,
      accepted.map((a) => a.split(' ')[0]),
      30_000,
    );
  });

  it('redelivers the message whose handler was running when the connection dropped, to the reconnected consumer', async () => {
    const consumer = await consume();
    expect((await request(server.url, 'POST', '/tasks', { body: { title: 'hang-drop' } })).status).to.equal(202);
    await waitForFile(join(f.markers, 'hanging-hang-drop'));
    await dropAllConnections();
    await taskStored(server.url, 'hang-drop');
    const calls = handlerLog(f).filter((l) => l.title === 'hang-drop');
    expect(calls.map((c) => c.attempt)).to.deep.equal([1, 2]);
    expect(calls[1].pid, 'the same consumer process, reconnected').to.equal(consumer.child.pid);
  });

  it('across a broker restart: 503 while it is down (nothing stored), then the same consumer handles new writes', async () => {
    const consumer = await consume();
    await rabbitmqctl('stop_app');
    try {
      const r = await request(server.url, 'POST', '/tasks', { body: { title: 'while-down' } });
      expect(r.status, r.text).to.equal(503);
      expect(r.headers.get('retry-after')).to.equal('5');
    } finally {
      await rabbitmqctl('start_app');
    }
    await rabbitmqctl('await_startup');
    expect((await request(server.url, 'POST', '/tasks', { body: { title: 'after-restart' } })).status).to.equal(202);
    await taskStored(server.url, 'after-restart');
    expect(handlerLog(f).find((l) => l.title === 'after-restart')?.pid).to.equal(consumer.child.pid);
    expect(await titles()).to.not.include('while-down');
  });

  it('answers 503 when the broker cannot be reached, and stores nothing', async () => {
    const previous = process.env.MESSENGER_TRANSPORT_DSN;
    process.env.MESSENGER_TRANSPORT_DSN = 'amqp://guest:guest@127.0.0.1:1/%2f';
    const offline = await startServer(f.file, ['--data', join(f.dir, 'data-offline')]);
    try {
      const r = await request(offline.url, 'POST', '/tasks', { body: { title: 'nowhere' } });
      expect(r.status).to.equal(503);
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(((await request(offline.url, 'GET', '/tasks')).json as Collection).member).to.have.length(0);
    } finally {
      if (previous === undefined) delete process.env.MESSENGER_TRANSPORT_DSN;
      else process.env.MESSENGER_TRANSPORT_DSN = previous;
      await offline.stop();
    }
  });
});
