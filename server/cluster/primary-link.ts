/**
 * The workers of `apidsl serve --workers N` talk through their primary (docs/behaviour.md, "Workers"):
 * - a worker that wrote sends the tags to the primary, which hands them to every other worker, the ones still
 *   starting included, and answers once each dropped its pages (or exited), or after `ACK_BOUND_MS`;
 * - the primary sends every worker a heartbeat each `HEARTBEAT_MS` on the same channel: a worker answers from
 *   its cache only while it has heard one sent less than `TRUST_MS` ago (link.ts says why that makes the bound
 *   safe), so a worker that starts, stalls or lost its primary serves nothing from a cache it could not keep true;
 * - updates of the built-in hub are handed to every other worker's hub.
 * The worker's side listens from the moment it is made, before its service starts.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { ACK_BOUND_MS, HEARTBEAT_MS, PeerLink, Trust, bounded, monotonicMs, type SharedUpdate } from './link.js';

const INVALIDATE = 'apidsl:invalidate';
const INVALIDATED = 'apidsl:invalidated';
const HEARTBEAT = 'apidsl:heartbeat';
const UPDATE = 'apidsl:update';

type Message =
  | { type: typeof INVALIDATE; id: number; tags: readonly string[] }
  | { type: typeof INVALIDATED; id: number }
  | { type: typeof HEARTBEAT; sentAt: number }
  | { type: typeof UPDATE; update: SharedUpdate };

/** Sends without throwing or emitting 'error' when the channel closed meanwhile (the peer exited). */
const tell = (to: Worker | NodeJS.Process, m: Message): void => {
  if (to === process) {
    if (process.connected) process.send!(m, undefined, undefined, () => undefined);
  } else if ((to as Worker).isConnected()) (to as Worker).send(m, () => undefined);
};

const KINDS = new Set<string>([INVALIDATE, INVALIDATED, HEARTBEAT, UPDATE]);
const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' && m !== null && KINDS.has((m as { type?: string }).type ?? '');

/**
 * The writer's own bound: longer than the primary's, so that the primary's answer normally comes first; it only
 * matters when the primary stalls or is gone.
 */
const WRITER_BOUND_MS = ACK_BOUND_MS + 1000;

/** A worker's side. */
class PrimaryLink extends PeerLink {
  private readonly waiting = new Map<number, () => void>();
  private nextId = 0;
  private readonly trust = new Trust(() => this.dropHere('all'));

  constructor(private readonly logger: Logger) {
    super();
    process.on('message', this.receive);
    process.once('disconnect', this.released);
  }

  private readonly receive = (m: unknown): void => {
    if (!isMessage(m)) return;
    switch (m.type) {
      case INVALIDATE:
        this.dropHere(m.tags);
        tell(process, { type: INVALIDATED, id: m.id });
        return;
      case INVALIDATED:
        this.waiting.get(m.id)?.();
        this.waiting.delete(m.id);
        return;
      case HEARTBEAT:
        return this.trust.renewed(m.sentAt);
      case UPDATE:
        return this.deliverHere(m.update);
    }
  };

  /** Without the primary no other worker is left to tell: nothing more to wait for. */
  private readonly released = (): void => {
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
  };

  async invalidate(tags: readonly string[]): Promise<void> {
    this.dropHere(tags);
    if (!process.connected) return;
    const id = ++this.nextId;
    const answered = new Promise<void>((resolve) => {
      this.waiting.set(id, resolve);
      tell(process, { type: INVALIDATE, id, tags });
    });
    const inTime = await bounded(answered, WRITER_BOUND_MS);
    if (!inTime) {
      this.waiting.delete(id);
      this.logger.warn({ tags: tags.length }, 'workers: the primary did not confirm an invalidation in time');
    }
  }

  share(update: SharedUpdate): void {
    tell(process, { type: UPDATE, update });
  }

  vouches(): boolean {
    return this.trust.holds();
  }

  async close(): Promise<void> {
    process.off('message', this.receive);
    process.off('disconnect', this.released);
    this.released();
  }
}

/** The link of a worker of `serve --workers N`; call it first thing, before the service starts. */
export const primaryLink = (logger: Logger): PeerLink => new PrimaryLink(logger);

// ---- In the primary ----

/**
 * Relays invalidations and updates between the workers and sends them heartbeats; returns what stops it.
 * An invalidation is answered once every other worker acknowledged it, exited, or `ACK_BOUND_MS` passed.
 */
export function relayBetweenWorkers(logger: Logger): () => void {
  const pending = new Map<number, { left: Set<number>; done: () => void }>();
  let nextRelay = 0;
  const settle = (relayId: number, workerId: number): void => {
    const entry = pending.get(relayId);
    if (!entry) return;
    entry.left.delete(workerId);
    if (entry.left.size === 0) entry.done();
  };
  const others = (from?: Worker): Worker[] =>
    Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w !== from && w.isConnected());
  const onMessage = (from: Worker, m: unknown): void => {
    if (!isMessage(m)) return;
    if (m.type === INVALIDATED) return settle(m.id, from.id);
    if (m.type === UPDATE) {
      for (const peer of others(from)) tell(peer, m);
      return;
    }
    if (m.type !== INVALIDATE) return;
    const answer = (): void => {
      tell(from, { type: INVALIDATED, id: m.id });
    };
    const peers = others(from);
    if (peers.length === 0) return answer();
    const relayId = ++nextRelay;
    const done = (): void => {
      clearTimeout(timer);
      pending.delete(relayId);
      answer();
    };
    pending.set(relayId, { left: new Set(peers.map((w) => w.id)), done });
    const timer = setTimeout(() => {
      const late = pending.get(relayId)?.left.size ?? 0;
      logger.warn({ late }, 'workers: answering a write without every worker having dropped its pages (bound reached)');
      done();
    }, ACK_BOUND_MS);
    for (const peer of peers) tell(peer, { type: INVALIDATE, id: relayId, tags: m.tags });
  };
  // A worker that exits has no pages left to drop.
  const onExit = (worker: Worker): void => {
    for (const relayId of [...pending.keys()]) settle(relayId, worker.id);
  };
  const beat = setInterval(() => {
    const message = { type: HEARTBEAT, sentAt: monotonicMs() } satisfies Message;
    for (const worker of others()) tell(worker, message);
  }, HEARTBEAT_MS);
  beat.unref();
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return () => {
    clearInterval(beat);
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
    for (const entry of [...pending.values()]) entry.done();
  };
}
