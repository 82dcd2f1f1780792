/**
 * `amqp`: messages go to a durable queue of an AMQP 0-9-1 broker (RabbitMQ) through `amqplib`, as
 * persistent messages on a confirm channel (a send resolves once the broker confirmed it). A consumer takes
 * one message at a time and acknowledges it after its handler succeeded; a consumer that dies before
 * leaves it unacknowledged, and the broker delivers it again (at-least-once).
 *
 * Retries follow Symfony Messenger's AMQP transport: a failed message is published to a delay queue
 * (`<queue>.delay.<ms>`, whose messages expire into the main queue after that delay) with its retry count
 * in a header, then acknowledged; once its retries are spent it goes to the failure queue instead.
 */
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import type { MessengerSettings } from '../../metadata/async-settings.js';
import { envelopeText, parseEnvelope, type Envelope } from '../envelope.js';
import { retryDelay, type HandleMessage } from '../handle.js';
import { TransportUnavailableError, type Consumer, type Transport } from './transport.js';

const RETRY_HEADER = 'x-apidsl-retries';

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
    let channel: ConfirmChannel;
    try {
      ({ channel } = await this.open());
    } catch (e) {
      throw new TransportUnavailableError(`the message broker cannot be reached: ${(e as Error).message}`);
    }
    await this.publish(channel, this.settings.queue, Buffer.from(envelopeText(envelope)), {});
  }

  async consume(handle: HandleMessage): Promise<Consumer> {
    const { connection } = await this.open();
    const channel = await connection.createConfirmChannel();
    await channel.prefetch(1);
    let inFlight: Promise<void> = Promise.resolve();
    const { consumerTag } = await channel.consume(
      this.settings.queue,
      (msg) => {
        if (msg) inFlight = this.handleOne(channel, msg, handle);
      },
      { noAck: false },
    );
    return {
      stop: async () => {
        await channel.cancel(consumerTag).catch(() => undefined);
        await inFlight;
        await channel.close().catch(() => undefined);
      },
    };
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
        const connection = await amqp.connect(this.settings.amqpDsn);
        const forget = (): void => {
          if (this.connecting === attempt) this.connecting = undefined;
          this.declaredDelays.clear();
        };
        connection.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'amqp connection error'));
        connection.on('close', forget);
        const channel = await connection.createConfirmChannel();
        channel.on('error', (e: Error) => this.logger.warn({ err: e.message }, 'amqp channel error'));
        channel.on('close', forget);
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
  }

  private async failed(channel: ConfirmChannel, msg: ConsumeMessage, retry: number, error: unknown): Promise<void> {
    const headers = { ...msg.properties.headers, [RETRY_HEADER]: retry };
    if (retry > this.settings.retry.maxRetries) {
      this.logger.error(
        { err: error, queue: this.settings.failureQueue },
        'message handler failed; moved to the failure queue',
      );
      await this.publish(channel, this.settings.failureQueue, msg.content, {
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
