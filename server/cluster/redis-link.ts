/**
 * Instances of one service on several machines talk through Redis (`cluster.redis`, docs/deployment.md), by the
 * protocol of channel-link.ts over publish/subscribe: a publisher's connection sends, a subscriber's listens
 * (messages published until it is subscribed again are lost to it). A writer waits until it heard its own
 * message back, for every instance it heard lately and for as many acknowledgements as Redis delivered the
 * message to, within `ACK_BOUND_MS`. Redis delivers a subscriber's messages in the order it received them, so a
 * heartbeat an instance hears was published after every invalidation delivered before it.
 *
 * Updates of the built-in hub go through a Redis stream (`<channel>:updates`, the last `STREAM_LENGTH` kept),
 * which every instance reads from where it stopped: a reconnecting instance misses none of them. Updates written
 * while Redis is down are kept (up to `QUEUED_UPDATES`) and added to the stream once it is back.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ChannelLink, type Broadcast, type Direct, type Waiting } from './channel-link.js';
import { ACK_BOUND_MS, bounded, delay, monotonicMs, type PeerLink, type SharedUpdate } from './link.js';
import { openRedis } from './redis-client.js';

/** Updates kept while Redis cannot be reached, oldest dropped first. */
const QUEUED_UPDATES = 10_000;
/** Updates the stream keeps (about: Redis trims whole nodes). */
const STREAM_LENGTH = 10_000;
/** How long one read of the stream blocks. */
const READ_BLOCK_MS = 1000;

/** The channel prefix of one service: its title and where its data is, so that two services never mix. */
export const serviceChannel = (title: string, store: string): string =>
  `apidsl:${createHash('sha256').update(`${title}\n${store}`).digest('hex').slice(0, 16)}`;

interface Counted extends Waiting {
  /** Whether our own subscriber heard the message: Redis's count of receivers then includes us. */
  echoed: boolean;
}

class RedisLink extends ChannelLink {
  declare protected readonly waiting: Map<number, Counted>;
  private readonly queued: SharedUpdate[] = [];

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly reader: Redis,
    channel: string,
    logger: Logger,
  ) {
    super(channel, logger, 'Redis');
    subscriber.on('messageBuffer', (on: Buffer, message: Buffer) =>
      this.receive(on.toString(), message.toString('utf8')),
    );
    void subscriber.subscribe(this.channel, this.channelOf(this.id)).catch(() => undefined); // resubscribed on every reconnection
    publisher.on('ready', () => this.reconnected());
    publisher.on('close', () => (this.downSince ??= monotonicMs()));
    subscriber.on('close', () => this.deaf());
    void this.readUpdates();
  }

  private get stream(): string {
    return `${this.channel}:updates`;
  }

  /** Reads the updates of the other instances from the stream, from where it stopped, until closed. */
  private async readUpdates(): Promise<void> {
    let last = '$';
    while (!this.closed) {
      let read: [string, [string, string[]][]][] | null;
      try {
        read = (await this.reader.xread('BLOCK', READ_BLOCK_MS, 'STREAMS', this.stream, last)) as typeof read;
      } catch {
        await delay(200); // Redis down: the same position once it is back
        continue;
      }
      for (const [, entries] of read ?? [])
        for (const [id, fields] of entries) {
          last = id;
          if (fields[1] === this.id) continue;
          try {
            this.deliverHere(JSON.parse(fields[3]!) as SharedUpdate);
          } catch {
            // not an update of ours
          }
        }
    }
  }

  private addUpdate(update: SharedUpdate): Promise<unknown> {
    return this.publisher.xadd(
      this.stream,
      'MAXLEN',
      '~',
      STREAM_LENGTH,
      '*',
      'from',
      this.id,
      'update',
      JSON.stringify(update),
    );
  }

  protected canSend(): boolean {
    return this.publisher.status === 'ready';
  }

  protected override reconnected(): void {
    super.reconnected();
    for (const update of this.queued.splice(0)) this.share(update);
  }

  /** Resolves with the number of subscribers Redis delivered the message to, −1 when it was not sent. */
  protected send(message: Broadcast | Direct, to = this.channel): Promise<number> {
    return this.publisher.publish(to, JSON.stringify(message)).catch(() => -1);
  }

  protected echoed(id: number): void {
    const waiting = this.waiting.get(id);
    if (waiting) waiting.echoed = true;
    waiting?.check();
  }

  /** Waits until it heard its own message back, for every instance heard lately and as many as Redis delivered to. */
  protected async tell(id: number, tags: readonly string[] | 'all'): Promise<void> {
    const expected = this.members.recent(monotonicMs());
    let delivered = Infinity; // unknown until Redis answers the PUBLISH
    const acks = new Set<string>();
    const done = new Promise<void>((resolve) => {
      const waiting: Counted = {
        acks,
        echoed: false,
        check: () => {
          if (waiting.echoed && acks.size >= delivered - 1 && expected.every((m) => acks.has(m))) resolve();
        },
      };
      this.waiting.set(id, waiting);
      void this.send({ k: 'invalidate', from: this.id, id, tags }).then((n) => {
        if (n >= 0) delivered = n; // -1: not sent; the bound decides
        waiting.check();
      });
    });
    await bounded(done, ACK_BOUND_MS);
  }

  share(update: SharedUpdate): void {
    if (this.publisher.status === 'ready') this.addUpdate(update).catch(() => this.keep(update));
    else this.keep(update);
  }

  /** Keeps an update Redis could not take, until it is back. */
  private keep(update: SharedUpdate): void {
    this.queued.push(update);
    if (this.queued.length > QUEUED_UPDATES) {
      this.queued.shift();
      this.logger.warn('cluster: Redis unreachable for long; the oldest queued hub update was dropped');
    }
  }

  override async close(): Promise<void> {
    await super.close();
    this.subscriber.disconnect();
    this.reader.disconnect();
    this.publisher.disconnect();
  }
}

/** The link of an instance through the Redis at `url`, on the channel of its service. */
export async function redisLink(url: string, channel: string, logger: Logger): Promise<PeerLink> {
  return new RedisLink(
    await openRedis(url, logger, 'publisher'),
    await openRedis(url, logger, 'subscriber'),
    await openRedis(url, logger, 'reader'),
    channel,
    logger,
  );
}
