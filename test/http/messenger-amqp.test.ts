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
import { request, startServer, type RunningServer } from './harness.js';
import {
  eventually,
  handlerLog,
  messengerFixture,
  startConsumer,
  waitForFile,
  type ConsumerProcess,
  type MessengerFixture,
} from './messenger-fixture.js';

const BROKER = process.env.MESSENGER_TRANSPORT_DSN || 'amqp://guest:guest@127.0.0.1:5672/%2f';

type Collection = { member: { title: string; handledBy?: string; attempts?: number }[] };

describe('Messenger: AMQP transport (RabbitMQ)', function () {
  this.timeout(60_000);
  const queue = `apidsl-test-${Date.now()}-${randomBytes(4).toString('hex')}`;
  let f: MessengerFixture;
  let server: RunningServer;
  const consumers: ConsumerProcess[] = [];
  const consume = async (): Promise<ConsumerProcess> => {
    const c = await startConsumer(f.file, ['--data', join(f.dir, 'data')]);
    consumers.push(c);
    return c;
  };
  const titles = async (): Promise<string[]> =>
    ((await request(server.url, 'GET', '/tasks?itemsPerPage=100')).json as Collection).member.map((m) => m.title);

  before(async () => {
    // The broker must be there: under CI=true its absence fails the suite rather than skipping it.
    const probe = await amqp.connect(BROKER);
    await probe.close();
    f = messengerFixture('amqp', queue);
    server = await startServer(f.file, ['--data', join(f.dir, 'data')]);
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });
  after(async () => {
    await server?.stop();
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
    const first = await consume();
    expect((await request(server.url, 'POST', '/tasks', { body: { title: 'hang-amqp' } })).status).to.equal(202);
    await waitForFile(join(f.markers, 'hanging-hang-amqp'));
    first.child.kill('SIGKILL');
    await first.stop();
    expect(await titles()).to.not.include('hang-amqp');
    await consume();
    await eventually<Collection>(server.url, '/tasks?itemsPerPage=100', (x) =>
      x.member.some((m) => m.title === 'hang-amqp'),
    );
    const calls = handlerLog(f).filter((l) => l.title === 'hang-amqp');
    expect(calls.map((c) => c.attempt)).to.deep.equal([1, 2]);
    expect(calls[0].pid).to.not.equal(calls[1].pid);
  });

  it('retries a failing handler after a delay, then moves the message to the failure queue', async () => {
    await consume();
    await request(server.url, 'POST', '/tasks', { body: { title: 'flaky-amqp' } });
    await request(server.url, 'POST', '/tasks', { body: { title: 'fail-amqp' } });
    await eventually<Collection>(server.url, '/tasks?itemsPerPage=100', (x) =>
      x.member.some((m) => m.title === 'flaky-amqp'),
    );
    const until = Date.now() + 15_000;
    while (handlerLog(f).filter((l) => l.title === 'fail-amqp').length < 3 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(
      handlerLog(f)
        .filter((l) => l.title === 'flaky-amqp')
        .map((l) => l.attempt),
    ).to.deep.equal([1, 2, 3]);
    expect(
      handlerLog(f)
        .filter((l) => l.title === 'fail-amqp')
        .map((l) => l.attempt),
    ).to.deep.equal([1, 2, 3]);
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
