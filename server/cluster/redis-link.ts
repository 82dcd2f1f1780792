/**
 * Instances of one service on several machines talk through Redis (`cluster.redis`, docs/deployment.md).
 *
 * Every instance subscribes to the service's channel and to its own, and publishes a heartbeat on the service's
 * channel each `HEARTBEAT_MS`. Hearing its own heartbeat back renews its trust (link.ts), which ends at once
 * when its subscriber's connection closes (messages published until it is subscribed again are lost to it);
 * hearing the others' tells who is there (members.ts), and it vouches for its cache only while it heard every
 * one of them lately. A write publishes its tags on the service's channel; every other instance drops the pages
 * and acknowledges on the writer's channel. The writer waits until it heard its own message back, for every
 * instance it heard lately and for as many acknowledgements as Redis delivered the message to, within
 * `ACK_BOUND_MS`. Redis delivers a subscriber's messages in the order it received them, so a heartbeat an
 * instance hears was published after every invalidation delivered before it.
 *
 * Updates of the built-in hub go through a Redis stream (`<channel>:updates`, the last `STREAM_LENGTH` kept),
 * which every instance reads from where it stopped: a reconnecting instance misses none of them.
 *
 * Redis down: no instance hears its heartbeats, so none answers from its cache; requests are served from the
 * store. A write that cannot publish waits until every instance has stopped vouching for it (`TRUST_MS` after
 * its connection broke: its last heartbeat reached Redis before that). Updates are kept (up to
 * `QUEUED_UPDATES`) and added to the stream once Redis is back, and an instance whose connection comes back
 * tells every other to drop its cache (invalidations it could not send) before its heartbeats say it is back.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  ACK_BOUND_MS,
  HEARTBEAT_MS,
  PeerLink,
  TRUST_MS,
  Trust,
  bounded,
  delay,
  monotonicMs,
  type SharedUpdate,
} from './link.js';
import { Members } from './members.js';
import { openRedis } from './redis-client.js';

type Broadcast =
  | { k: 'invalidate'; from: string; id: number; tags: readonly string[] }
  | { k: 'drop-all'; from: string }
  | { k: 'leave'; from: string }
  | { k: 'heartbeat'; from: string; sentAt: number };
type Direct = { k: 'ack'; id: number; by: string };

/** Updates kept while Redis cannot be reached, oldest dropped first. */
const QUEUED_UPDATES = 10_000;
/** Updates the stream keeps (about: Redis trims whole nodes). */
const STREAM_LENGTH = 10_000;
/** How long one read of the stream blocks. */
const READ_BLOCK_MS = 1000;

/** The channel prefix of one service: its title and where its data is, so that two services never mix. */
export const serviceChannel = (title: string, store: string): string =>
  `apidsl:${createHash('sha256').update(`${title}\n${store}`).digest('hex').slice(0, 16)}`;

interface Waiting {
  acks: Set<string>;
  /** Whether our own subscriber heard the message: Redis's count of receivers then includes us. */
  echoed: boolean;
  check: () => void;
}

class RedisLink extends PeerLink {
  readonly id = randomUUID();
  private readonly members = new Members();
  private readonly waiting = new Map<number, Waiting>();
  private readonly queued: SharedUpdate[] = [];
  private nextId = 0;
  /** Since when the publisher's connection is down (our clock), undefined while it is up. */
  private downSince: number | undefined = monotonicMs();
  private readonly beat: NodeJS.Timeout;
  private readonly trust: Trust;

  private closed = false;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly reader: Redis,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {
    super();
    this.trust = new Trust(
      () => {
        this.dropHere('all');
        this.logger.info('cluster: hearing the other instances through Redis; the in-process cache is on');
      },
      () =>
        this.logger.warn(
          'cluster: not hearing the other instances through Redis; the in-process cache is off until they are heard',
        ),
    );
    subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => this.receive(channel.toString(), message));
    void subscriber.subscribe(this.channel, this.own).catch(() => undefined); // resubscribed on every reconnection
    publisher.on('ready', () => this.reconnected());
    publisher.on('close', () => (this.downSince ??= monotonicMs()));
    subscriber.on('close', () => {
      if (!this.closed) this.trust.cut();
    });
    this.beat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
    this.beat.unref();
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

  private get own(): string {
    return `${this.channel}:${this.id}`;
  }

  private heartbeat(): void {
    this.trust.check();
    if (this.trust.holds())
      for (const id of this.members.forget(this.trust.lastHeard()))
        this.logger.warn({ instance: id }, 'cluster: an instance was not heard for long; it is forgotten');
    if (this.publisher.status !== 'ready') return;
    void this.send({ k: 'heartbeat', from: this.id, sentAt: monotonicMs() });
  }

  /**
   * The publisher's connection is (again) up: peers drop what this instance may have failed to tell them, before
   * its heartbeats (sent after this, on the same connection) make it fresh to them again.
   */
  private reconnected(): void {
    this.downSince = undefined;
    void this.send({ k: 'drop-all', from: this.id });
    for (const update of this.queued.splice(0)) this.share(update);
  }

  private send(message: Broadcast): Promise<number> {
    return this.publisher.publish(this.channel, JSON.stringify(message)).catch(() => -1);
  }

  private receive(channel: string, raw: Buffer): void {
    let message: Broadcast | Direct;
    try {
      message = JSON.parse(raw.toString('utf8')) as Broadcast | Direct;
    } catch {
      return;
    }
    if (channel === this.own) {
      if (message.k !== 'ack') return;
      const waiting = this.waiting.get(message.id);
      waiting?.acks.add(message.by);
      waiting?.check();
      return;
    }
    if (channel !== this.channel || message.k === 'ack') return;
    if (message.k === 'heartbeat') return this.heard(message.from, message.sentAt);
    if (message.from === this.id) {
      const waiting = message.k === 'invalidate' ? this.waiting.get(message.id) : undefined;
      if (waiting) waiting.echoed = true;
      return waiting?.check();
    }
    if (message.k === 'leave') this.members.left(message.from);
    else if (message.k === 'invalidate') {
      this.dropHere(message.tags);
      const ack: Direct = { k: 'ack', id: message.id, by: this.id };
      this.publisher.publish(`${this.channel}:${message.from}`, JSON.stringify(ack)).catch(() => undefined);
    } else if (message.k === 'drop-all') this.dropHere('all');
  }

  private heard(from: string, sentAt: number): void {
    if (from !== this.id) return this.members.heard(from, this.trust.lastHeard(), monotonicMs());
    const resumed = !this.trust.holds();
    this.trust.renewed(sentAt);
    if (resumed) this.members.resumed(sentAt);
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    this.dropHere(tags);
    if (this.downSince !== undefined || this.publisher.status !== 'ready')
      // Cannot tell the others: wait until none vouches for us any more (our last heartbeat reached Redis before
      // the connection broke); they drop everything when we are back (`reconnected`).
      return delay((this.downSince ?? monotonicMs()) + TRUST_MS + HEARTBEAT_MS - monotonicMs());
    const id = ++this.nextId;
    const expected = this.members.recent(monotonicMs());
    let delivered = Infinity; // unknown until Redis answers the PUBLISH
    const acks = new Set<string>();
    const done = new Promise<void>((resolve) => {
      const waiting: Waiting = {
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
    this.waiting.delete(id);
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

  vouches(): boolean {
    return this.trust.holds() && this.members.allFresh(monotonicMs());
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.beat);
    // The others stop waiting for us now rather than after `FORGET_MS`.
    if (this.publisher.status === 'ready') await bounded(this.send({ k: 'leave', from: this.id }), 500);
    for (const w of this.waiting.values()) w.check = () => undefined;
    this.waiting.clear();
    this.subscriber.disconnect();
    this.reader.disconnect();
    this.publisher.disconnect();
  }
}

/** The link of an instance through the Redis at `url`, on the channel of its service. */
export function redisLink(url: string, channel: string, logger: Logger): PeerLink {
  return new RedisLink(
    openRedis(url, logger, 'publisher'),
    openRedis(url, logger, 'subscriber'),
    openRedis(url, logger, 'reader'),
    channel,
    logger,
  );
}
