/**
 * Messenger over AMQP, against the RabbitMQ of the machine (127.0.0.1:5672, guest/guest; .ci/run starts it):
 * durable queue and confirmed publishing, handling by `apidsl consume`, at-least-once delivery across a
 * consumer killed mid-handler, retries through delay queues, the failure queue, and 503 when the broker is
 * unreachable. Each run uses queues of its own, deleted at the end.
 */
import amqp from 'amqplib';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { request, startServer, useServer } from './harness.js';
import {
  eventually,
  expectRedeliveryAfterKill,
  expectThreeAttempts,
  messengerFixture,
  taskTitles,
  useConsumers,
  type MessengerFixture,
} from './messenger-fixture.js';

const BROKER = process.env.MESSENGER_TRANSPORT_DSN || 'amqp://guest:guest@127.0.0.1:5672/%2f';

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
