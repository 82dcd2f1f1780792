/**
 * The other instances a Redis link knows (redis-link.ts, docs/deployment.md): an instance vouches for its cache
 * only while it heard every one of them lately, since a silent one may be writing without being able to tell
 * it (its connection to Redis is down or coming back).
 *
 * Other machines' clocks cannot be compared with ours, so "lately" is measured on this instance's own
 * heartbeats, which travel on the same ordered channel: a member heard after our own heartbeat sent at `S` was
 * still talking to Redis after `S`. It is fresh while `S + TRUST_MS` has not passed. An instance that stopped
 * (it says so) is dropped at once; one silent for `FORGET_MS` of our own heartbeats is forgotten (it was killed,
 * or it is cut off: the limit docs/deployment.md states).
 */
import { TRUST_MS } from './link.js';

/** Instances heard within this long (received, on our clock) are waited for by a write. */
export const MEMBER_MS = 3 * TRUST_MS;
/**
 * How long an instance silent while we hear ourselves is still waited for before it is forgotten: longer than
 * it takes an instance to reconnect after Redis came back (attempts up to 2 s apart, connecting up to 2 s).
 */
export const FORGET_MS = 10_000;

interface Member {
  /** When we received its last heartbeat, on our clock. */
  heardAt: number;
  /** When our own heartbeat heard before its last one was sent. */
  anchor: number;
  /** Its silence is counted from here on our heartbeats' clock (moved forward while we heard nothing). */
  silentSince: number;
}

export class Members {
  private readonly known = new Map<string, Member>();

  /** A heartbeat of `id` arrived; `ownLastHeard` is when our last heartbeat heard was sent. */
  heard(id: string, ownLastHeard: number, now: number): void {
    this.known.set(id, { heardAt: now, anchor: ownLastHeard, silentSince: ownLastHeard });
  }

  left(id: string): void {
    this.known.delete(id);
  }

  /** We hear ourselves again after a gap (sent at `sentAt`): the others' silence while we heard nothing does not count. */
  resumed(sentAt: number): void {
    for (const m of this.known.values()) m.silentSince = Math.max(m.silentSince, sentAt);
  }

  /** Forgets the members silent for `FORGET_MS` of our heartbeats (the last sent at `ownLastHeard`); returns them. */
  forget(ownLastHeard: number): string[] {
    const gone = [...this.known].filter(([, m]) => ownLastHeard - m.silentSince > FORGET_MS).map(([id]) => id);
    for (const id of gone) this.known.delete(id);
    return gone;
  }

  /** Whether every member was heard after one of our heartbeats sent less than `TRUST_MS` before `now`. */
  allFresh(now: number): boolean {
    for (const m of this.known.values()) if (now >= m.anchor + TRUST_MS) return false;
    return true;
  }

  /** The members received within `MEMBER_MS`: a write waits for their acknowledgements. */
  recent(now: number): string[] {
    return [...this.known].filter(([, m]) => now - m.heardAt < MEMBER_MS).map(([id]) => id);
  }
}
