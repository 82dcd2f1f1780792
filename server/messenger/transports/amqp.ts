/**
 * `amqp`: messages go to a durable queue of an AMQP 0-9-1 broker (RabbitMQ) through `amqplib`, as
 * persistent messages on a confirm channel (a send resolves once the broker confirmed it). A consumer takes
 * one message at a time and acknowledges it after its handler succeeded; a consumer that dies before
 * leaves it unacknowledged, and the broker delivers it again (at-least-once).
 *
 * Retries follow Symfony Messenger's AMQP transport: a failed message is published to a delay queue
 * (`<queue>.delay.<ms>`, whose messages expire into the main queue after that delay) with its retry count
 * in a header, then acknowledged; once its retries are spent it goes to the failure queue instead.
 *
 * A lost connection (broker restarted, connections closed by an operator) is made again: a send that fails
 * for want of a broker tries again with backoff for up to PUBLISH_PATIENCE_MS before it gives up (the request
 * then answers 503; nothing was acknowledged), and a consumer whose channel closed attaches again with
 * backoff until it is stopped. A message whose handler was running when the connection went is redelivered by
 * the broker, since it was never acknowledged.
 */
import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import type { MessengerSettings } from '../../metadata/async-settings.js';
import { envelopeText, parseEnvelope, readEnvelope, withFailure, withoutFailure, type Envelope } from '../envelope.js';
import { retryDelay, type HandleMessage } from '../handle.js';
import {
  selected,
  TransportUnavailableError,
  type Consumer,
  type FailureQueue,
  type Selection,
  type Transport,
} from './transport.js';

const RETRY_HEADER = 'x-apidsl-retries';
/** How long a send keeps trying to reach the broker before the request is answered 503. */
const PUBLISH_PATIENCE_MS = 5000;

/** The wait before reconnection attempt `n` (1, 2, …): 100 ms doubling, at most 5 s. */
const reconnectDelay = (n: number): number => Math.min(100 * 2 ** (n - 1), 5000);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class AmqpTransport implements Transport {
  readonly name = 'amqp';
  private connecting?: Promise<{ connection: ChannelModel; channel: ConfirmChannel }>;
  private readonly declaredDelays = new Set<number>();
  private closed = false;

  constructor(
    private readonly settings: MessengerSettings,
    private readonly logger: Logger,
  ) {}

  async send(envelope: Envelope): Promise<void> {
    const body = Buffer.from(envelopeText(envelope));
    const giveUpAt = Date.now() + PUBLISH_PATIENCE_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        const { channel } = await this.open();
        return await this.publish(channel, this.settings.queue, body, {});
      } catch (e) {
        // Not confirmed: the broker may or may not hold it, so sending again can make a duplicate
        // (at-least-once), never a loss.
        const wait = reconnectDelay(attempt);
        if (this.closed || Date.now() + wait > giveUpAt)
          throw new TransportUnavailableError(`the message broker cannot be reached: ${(e as Error).message}`);
        this.logger.warn({ err: (e as Error).message, attempt }, 'amqp: message not confirmed; sending again');
        await sleep(wait);
      }
    }
  }

  async consume(handle: HandleMessage): Promise<Consumer> {
    let stopping = false;
    let attached: { channel: ConfirmChannel; consumerTag: string } | undefined;
    let inFlight: Promise<void> = Promise.resolve();
    let reattaching: Promise<void> = Promise.resolve();
    // The wait between attempts holds the process (a consumer may have nothing else left); a stop cuts it short.
    let cutPause: (() => void) | undefined;
    const pause = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        cutPause = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const attach = async (): Promise<void> => {
      const { connection } = await this.open();
      const channel = await connection.createConfirmChannel();
      channel.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'amqp consumer channel error'));
      await channel.prefetch(1);
      const { consumerTag } = await channel.consume(
        this.settings.queue,
        (msg) => {
          if (msg) inFlight = this.handleOne(channel, msg, handle);
        },
        { noAck: false },
      );
      attached = { channel, consumerTag };
      channel.on('close', () => {
        attached = undefined;
        if (!stopping) reattaching = reattach();
      });
    };
    const reattach = async (): Promise<void> => {
      this.logger.warn('amqp: consumer lost its connection; reconnecting');
      for (let attempt = 1; !stopping; attempt++) {
        await pause(reconnectDelay(attempt));
        if (stopping) return;
        try {
          await attach();
          this.logger.info({ attempt }, 'amqp: consumer reconnected');
          return;
        } catch (e) {
          this.logger.warn({ err: (e as Error).message, attempt }, 'amqp: consumer cannot reconnect yet');
        }
      }
    };
    await attach();
    return {
      stop: async () => {
        stopping = true;
        cutPause?.();
        await reattaching;
        const current = attached;
        if (current) await current.channel.cancel(current.consumerTag).catch(() => undefined);
        await inFlight;
        if (current) await current.channel.close().catch(() => undefined);
      },
    };
  }

  /**
   * AMQP has no way to read a queue without taking its messages: each action takes every message of the failure
   * queue unacknowledged on a channel of its own, acknowledges those it sent back or deleted, and closing the
   * channel returns the others to the queue (RabbitMQ puts them back in their place).
   */
  readonly failures: FailureQueue = {
    list: async () => (await this.overFailures(() => false)).map((f) => f.envelope),
    retry: (selection) =>
      this.acted(selection, async (channel, envelope) =>
        this.publish(channel, this.settings.queue, Buffer.from(withoutFailure(envelope)), {}),
      ),
    remove: (selection) => this.acted(selection, async () => undefined),
  };

  private async acted(
    selection: Selection,
    act: (channel: ConfirmChannel, envelope: Envelope) => Promise<void>,
  ): Promise<string[]> {
    const done = await this.overFailures((envelope) => selected(selection, envelope.id), act);
    return done.filter((f) => f.acted).map((f) => f.envelope.id);
  }

  /** Goes through the failure queue; `act` (then the acknowledgement) for the messages `wanted` picks. */
  private async overFailures(
    wanted: (envelope: Envelope) => boolean,
    act: (channel: ConfirmChannel, envelope: Envelope) => Promise<void> = async () => undefined,
  ): Promise<{ envelope: Envelope; acted: boolean }[]> {
    const { connection } = await this.open();
    const channel = await connection.createConfirmChannel();
    const seen: { envelope: Envelope; acted: boolean }[] = [];
    try {
      for (;;) {
        const msg = await channel.get(this.settings.failureQueue, { noAck: false });
        if (!msg) break;
        const envelope = readEnvelope(msg.content.toString('utf8'));
        const acted = wanted(envelope);
        if (acted) {
          await act(channel, envelope);
          channel.ack(msg);
        }
        seen.push({ envelope, acted });
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    return seen;
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = this.connecting;
    this.connecting = undefined;
    if (open) await open.then(({ connection }) => connection.close()).catch(() => undefined);
  }

  /** The connection and a confirm channel with the queues declared; made again after a connection loss. */
  private open(): Promise<{ connection: ChannelModel; channel: ConfirmChannel }> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    if (!this.connecting) {
      const attempt = (async () => {
        // Loaded by the first connection: loading amqplib costs every start about 0.06 s of CPU.
        const { default: amqp } = await import('amqplib');
        const connection = await amqp.connect(this.settings.amqpDsn);
        const forget = (): void => {
          if (this.connecting === attempt) this.connecting = undefined;
          this.declaredDelays.clear();
        };
        connection.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'amqp connection error'));
        connection.on('close', forget);
        const channel = await connection.createConfirmChannel();
        channel.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'amqp channel error'));
        channel.on('close', () => {
          forget();
          // A channel closed on its own (a channel-level error) leaves the connection: close it too, so that
          // the next open makes one connection again, and the consumers attach to that one.
          connection.close().catch(() => undefined);
        });
        await channel.assertQueue(this.settings.queue, { durable: true });
        await channel.assertQueue(this.settings.failureQueue, { durable: true });
        return { connection, channel };
      })();
      this.connecting = attempt;
      attempt.catch(() => {
        if (this.connecting === attempt) this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private async publish(
    channel: ConfirmChannel,
    queue: string,
    body: Buffer,
    headers: Record<string, unknown>,
  ): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      channel.sendToQueue(queue, body, { persistent: true, contentType: 'application/json', headers }, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  private async handleOne(channel: ConfirmChannel, msg: ConsumeMessage, handle: HandleMessage): Promise<void> {
    const retries = Number(msg.properties.headers?.[RETRY_HEADER] ?? 0);
    const attempt = retries + 1 + (msg.fields.redelivered ? 1 : 0);
    try {
      try {
        await handle(parseEnvelope(msg.content.toString('utf8')), attempt, this.name);
        channel.ack(msg);
      } catch (e) {
        try {
          await this.failed(channel, msg, retries + 1, e);
          channel.ack(msg);
        } catch (routing) {
          // Neither retried nor parked: back to the queue, to be delivered again.
          this.logger.error({ err: routing }, 'amqp: failed message could not be routed; requeued');
          channel.nack(msg, false, true);
        }
      }
    } catch (lost) {
      // The channel closed under the handler: the message was not acknowledged, so the broker delivers it again.
      this.logger.warn({ err: (lost as Error).message }, 'amqp: channel lost before the acknowledgement; redelivered');
    }
  }

  private async failed(channel: ConfirmChannel, msg: ConsumeMessage, retry: number, error: unknown): Promise<void> {
    const headers = { ...msg.properties.headers, [RETRY_HEADER]: retry };
    if (retry > this.settings.retry.maxRetries) {
      this.logger.error(
        { err: error, queue: this.settings.failureQueue },
        'message handler failed; moved to the failure queue',
      );
      const parked = Buffer.from(withFailure(msg.content.toString('utf8'), error, this.name));
      await this.publish(channel, this.settings.failureQueue, parked, {
        ...headers,
        'x-apidsl-error': String((error as Error)?.message ?? error),
      });
      return;
    }
    const delay = retryDelay(retry, this.settings.retry);
    this.logger.warn({ err: error, retry, delay }, 'message handler failed; retrying');
    const delayQueue = `${this.settings.queue}.delay.${delay}`;
    if (!this.declaredDelays.has(delay)) {
      await channel.assertQueue(delayQueue, {
        durable: true,
        arguments: {
          'x-message-ttl': delay,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': this.settings.queue,
          'x-expires': delay + 60_000,
        },
      });
      this.declaredDelays.add(delay);
    }
    await this.publish(channel, delayQueue, msg.content, headers);
  }
}
