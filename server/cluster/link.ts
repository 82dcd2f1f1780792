/**
 * What one process of a service tells the others (docs/deployment.md): the pages a write touched, so that no
 * in-process cache serves them after the write's response, and the built-in hub's updates, so that a subscriber
 * of any process hears every write. Workers of `serve --workers N` talk through their primary (primary-link.ts),
 * instances on several machines through Redis (redis-link.ts); a lone process has no one to tell (`aloneLink`).
 *
 * Every round trip has a bound. A process vouches for its cache only while it hears its peers: while a
 * heartbeat sent at most `TRUST_MS` ago has reached it through the same ordered channel as the invalidations
 * (`Trust`). A writer whose peers do not all acknowledge within its bound (longer than `TRUST_MS`) answers
 * anyway: a peer that has not dropped the pages by then has not heard a heartbeat sent after the invalidation
 * either, so it no longer answers from its cache. A process that regains trust drops every page first.
 */
/**
 * An update of a built-in hub as the link carries it: the hub's fields (realtime/update.ts) travel as they are; the
 * link reads only the event id the hub gave it (the same in every process). The link knows no more, so that the
 * realtime room imports this one and not the other way round.
 */
export interface SharedUpdate {
  id: string;
}

/** What a process does when it, or another process, wrote or published. */
export interface PeerListener {
  /** Drops the cached pages tagged `tags`, or every cached page. */
  dropPages?(tags: readonly string[] | 'all'): void;
  /** Delivers an update published by another process's hub to this process's subscribers. */
  deliver?(update: SharedUpdate): void;
}

/** How long a heartbeat vouches for a process's cache. */
export const TRUST_MS = 1000;
/** How often heartbeats are sent. */
export const HEARTBEAT_MS = 200;
/** How long a writer waits for its peers' acknowledgements: longer than a heartbeat vouches. */
export const ACK_BOUND_MS = 2000;

/** Milliseconds on a clock every process of one machine shares and that never goes back (CLOCK_MONOTONIC). */
export const monotonicMs = (): number => Number(process.hrtime.bigint() / 1_000_000n);

export abstract class PeerLink {
  private readonly listeners = new Set<PeerListener>();

  /** Calls `listener` for every write and update, until the returned function is called. */
  listen(listener: PeerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops the pages here, then resolves once every other process dropped them, or once the bound passed. */
  abstract invalidate(tags: readonly string[]): Promise<void>;
  /** Hands an update this process's hub published to the other processes' hubs. */
  abstract share(update: SharedUpdate): void;
  /** Whether this process may answer from its cache and keep new pages in it. */
  abstract vouches(): boolean;
  abstract close(): Promise<void>;

  protected dropHere(tags: readonly string[] | 'all'): void {
    for (const l of this.listeners) l.dropPages?.(tags);
  }

  protected deliverHere(update: SharedUpdate): void {
    for (const l of this.listeners) l.deliver?.(update);
  }
}

/** A process with no peers: nothing to tell, its cache always its own. */
class AloneLink extends PeerLink {
  async invalidate(tags: readonly string[]): Promise<void> {
    this.dropHere(tags);
  }
  share(): void {}
  vouches(): boolean {
    return true;
  }
  async close(): Promise<void> {}
}

export const aloneLink = (): PeerLink => new AloneLink();

/**
 * Whether a process hears its peers: renewed by each heartbeat it receives (stamped when it was sent), ended at
 * once when its channel breaks (`cut`). When it lapsed, the next heartbeat first drops every page
 * (`onRegained`): invalidations may have been missed.
 */
export class Trust {
  private until = -Infinity;
  private held = false;

  constructor(
    private readonly onRegained: () => void,
    private readonly onLapsed: () => void = () => undefined,
  ) {}

  renewed(sentAt: number): void {
    if (!this.holds()) {
      this.onRegained();
      this.held = true;
    }
    this.until = Math.max(this.until, sentAt + TRUST_MS);
  }

  holds(): boolean {
    return monotonicMs() < this.until;
  }

  /** The time the last heartbeat received was sent (−∞ before the first). */
  lastHeard(): number {
    return this.until - TRUST_MS;
  }

  /** The channel broke (messages sent meanwhile are lost): trust ends now, and the next heartbeat drops every page. */
  cut(): void {
    this.until = -Infinity;
    this.check();
  }

  /** Reports a lapse once (called periodically: a lapse is otherwise only noticed when asked). */
  check(): void {
    if (this.held && !this.holds()) {
      this.held = false;
      this.onLapsed();
    }
  }
}

/** Resolves after `ms` without keeping the process alive. */
export const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    if (ms > 0) setTimeout(resolve, ms).unref();
    else resolve();
  });

/** Resolves `true` when `promise` settles within `ms`, `false` otherwise (the timer cleared either way). */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
