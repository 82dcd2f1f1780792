/**
 * What the links of instances on several machines share (docs/deployment.md), whichever server carries their
 * messages: Redis's publish/subscribe (redis-link.ts) or PostgreSQL's LISTEN/NOTIFY (postgres-link.ts). Both
 * deliver a channel's messages to every subscriber in one order, the same for all.
 *
 * Every instance listens to the service's channel and to its own, and sends a heartbeat on the service's channel
 * each `HEARTBEAT_MS`. Hearing its own heartbeat back renews its trust (link.ts), which ends at once when its
 * listening connection breaks; hearing the others' tells who is there (members.ts), and it vouches for its cache
 * only while it heard every one of them lately. A write sends its tags on the service's channel; every other
 * instance drops the pages and acknowledges on the writer's channel; how long the writer waits is the carrier's
 * (`tell`), within `ACK_BOUND_MS`.
 *
 * Carrier down: no instance hears this one's heartbeats, so none answers from its cache while it is silent. A
 * write that cannot be sent waits until every instance has stopped vouching for it (`TRUST_MS` after the
 * connection broke: its last heartbeat was sent before that), and once back it tells every other to drop its
 * cache before its heartbeats make it fresh to them again.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { HEARTBEAT_MS, PeerLink, TRUST_MS, Trust, bounded, delay, monotonicMs } from './link.js';
import { Members } from './members.js';

export type Broadcast =
  | { k: 'invalidate'; from: string; id: number; tags: readonly string[] | 'all' }
  | { k: 'drop-all'; from: string }
  | { k: 'leave'; from: string }
  | { k: 'heartbeat'; from: string; sentAt: number };
export type Direct = { k: 'ack'; id: number; by: string };

/** An invalidation sent, waiting for its acknowledgements. */
export interface Waiting {
  acks: Set<string>;
  check: () => void;
}

export abstract class ChannelLink extends PeerLink {
  readonly id = randomUUID();
  protected readonly members = new Members();
  protected readonly waiting = new Map<number, Waiting>();
  protected readonly trust: Trust;
  /** Since when the sending connection is down (our clock), undefined while it is up. */
  protected downSince: number | undefined = monotonicMs();
  protected closed = false;
  private nextId = 0;
  private readonly beat: NodeJS.Timeout;

  /** `carrier` names the server in logs ("Redis", "PostgreSQL"). */
  constructor(
    protected readonly channel: string,
    protected readonly logger: Logger,
    carrier: string,
  ) {
    super();
    this.trust = new Trust(
      () => {
        this.dropHere('all');
        this.regained();
        this.logger.info(`cluster: hearing the other instances through ${carrier}; the in-process cache is on`);
      },
      () =>
        this.logger.warn(
          `cluster: not hearing the other instances through ${carrier}; the in-process cache is off until they are heard`,
        ),
    );
    this.beat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
    this.beat.unref();
  }

  /** Sends a message on the service's channel, or on an instance's (`to`); resolves false when it could not. */
  protected abstract send(message: Broadcast | Direct, to?: string): Promise<unknown>;
  /** Whether messages can be sent now. */
  protected abstract canSend(): boolean;
  /** Sends one invalidation (`id`) and resolves once the carrier's rule says every instance dropped the pages. */
  protected abstract tell(id: number, tags: readonly string[] | 'all'): Promise<void>;
  /** Our own invalidation `id` came back. */
  protected abstract echoed(id: number): void;
  /** Trust was regained (after the pages were dropped). */
  protected regained(): void {}
  /** The tags of one write in the messages the carrier can take. */
  protected batches(tags: readonly string[]): (readonly string[] | 'all')[] {
    return [tags];
  }

  /** An instance's own channel. */
  protected channelOf(id: string): string {
    return `${this.channel}:${id}`;
  }

  private heartbeat(): void {
    this.trust.check();
    if (this.trust.holds())
      for (const id of this.members.forget(this.trust.lastHeard()))
        this.logger.warn({ instance: id }, 'cluster: an instance was not heard for long; it is forgotten');
    if (this.canSend()) void this.send({ k: 'heartbeat', from: this.id, sentAt: monotonicMs() });
  }

  /**
   * The sending connection is (again) up: peers drop what this instance may have failed to tell them, before its
   * heartbeats (sent after this, on the same connection) make it fresh to them again.
   */
  protected reconnected(): void {
    this.downSince = undefined;
    void this.send({ k: 'drop-all', from: this.id });
  }

  /** The listening connection broke: what is sent until it listens again is lost to it. */
  protected deaf(): void {
    if (!this.closed) this.trust.cut();
  }

  protected receive(channel: string, raw: string): void {
    let message: Broadcast | Direct;
    try {
      message = JSON.parse(raw) as Broadcast | Direct;
    } catch {
      return;
    }
    if (channel === this.channelOf(this.id)) {
      if (message.k !== 'ack') return;
      const waiting = this.waiting.get(message.id);
      waiting?.acks.add(message.by);
      return waiting?.check();
    }
    if (channel !== this.channel || message.k === 'ack') return;
    if (message.k === 'heartbeat') return this.heard(message.from, message.sentAt);
    if (message.from === this.id) return message.k === 'invalidate' ? this.echoed(message.id) : undefined;
    if (message.k === 'leave') this.members.left(message.from);
    else if (message.k === 'invalidate') {
      this.dropHere(message.tags);
      void this.send({ k: 'ack', id: message.id, by: this.id }, this.channelOf(message.from));
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
    if (this.downSince !== undefined || !this.canSend())
      // Cannot tell the others: wait until none vouches for us any more (our last heartbeat was sent before the
      // connection broke); they drop everything when we are back (`reconnected`).
      return delay((this.downSince ?? monotonicMs()) + TRUST_MS + HEARTBEAT_MS - monotonicMs());
    await Promise.all(
      this.batches(tags).map(async (batch) => {
        const id = ++this.nextId;
        await this.tell(id, batch);
        this.waiting.delete(id);
      }),
    );
  }

  vouches(): boolean {
    return this.trust.holds() && this.members.allFresh(monotonicMs());
  }

  /** Says it leaves (the others stop waiting for it now rather than after `FORGET_MS`) and stops beating. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.beat);
    if (this.canSend()) await bounded(this.send({ k: 'leave', from: this.id }), 500);
    for (const w of this.waiting.values()) w.check = () => undefined;
    this.waiting.clear();
  }
}
