/**
 * Cache invalidation across the workers of `apidsl serve --workers N` (docs/behaviour.md, "HTTP cache"): a
 * worker that wrote sends the tags to the primary, which hands them to every other worker and answers once each
 * has dropped its pages (or exited). The writer answers its client only after that, so no worker serves a page
 * older than a write whose response was received. Outside a cluster (one process) there is nothing to tell.
 */
import cluster, { type Worker } from 'node:cluster';

const INVALIDATE = 'apidsl:invalidate';
const INVALIDATED = 'apidsl:invalidated';

interface InvalidateMessage {
  type: typeof INVALIDATE;
  id: number;
  tags: string[];
}
interface InvalidatedMessage {
  type: typeof INVALIDATED;
  id: number;
}
type Message = InvalidateMessage | InvalidatedMessage;

const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' && m !== null && ((m as Message).type === INVALIDATE || (m as Message).type === INVALIDATED);

// ---- In a worker ----

let dropPages: ((tags: string[]) => void) | undefined;
const waiting = new Map<number, () => void>();
let nextId = 0;
let listening = false;

/** What this worker does when another one wrote: the current app's cache drops the tagged pages. */
export function onPeerWrite(handler: (tags: string[]) => void): void {
  dropPages = handler;
  if (listening || !cluster.isWorker) return;
  listening = true;
  process.once('disconnect', () => {
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
  });
  process.on('message', (m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === INVALIDATE) {
      dropPages?.(m.tags);
      process.send!({ type: INVALIDATED, id: m.id } satisfies InvalidatedMessage);
    } else {
      waiting.get(m.id)?.();
      waiting.delete(m.id);
    }
  });
}

/** Resolves once every other worker dropped the pages tagged with `tags` (at once outside a cluster). */
export function tellPeers(tags: string[]): Promise<void> {
  // Without the primary (it exited) no other worker is left to tell.
  if (!cluster.isWorker || !process.send || !listening || !process.connected) return Promise.resolve();
  const id = ++nextId;
  return new Promise<void>((resolve) => {
    waiting.set(id, resolve);
    process.send!({ type: INVALIDATE, id, tags } satisfies InvalidateMessage);
  });
}

// ---- In the primary ----

/** Relays each worker's invalidations to the others and acknowledges once all of them dropped their pages. */
export function relayInvalidations(): void {
  const pending = new Map<number, { left: Set<number>; done: () => void }>();
  let nextRelay = 0;
  const settle = (relayId: number, workerId: number): void => {
    const entry = pending.get(relayId);
    if (!entry) return;
    entry.left.delete(workerId);
    if (entry.left.size === 0) {
      pending.delete(relayId);
      entry.done();
    }
  };
  cluster.on('message', (from: Worker, m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === INVALIDATED) return settle(m.id, from.id);
    const peers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => !!w && w.id !== from.id && w.isConnected(),
    );
    const answer = (): void => {
      if (from.isConnected()) from.send({ type: INVALIDATED, id: m.id } satisfies InvalidatedMessage);
    };
    if (peers.length === 0) return answer();
    const relayId = ++nextRelay;
    pending.set(relayId, { left: new Set(peers.map((w) => w.id)), done: answer });
    for (const peer of peers) peer.send({ type: INVALIDATE, id: relayId, tags: m.tags } satisfies InvalidateMessage);
  });
  // A worker that exits has no pages left to drop.
  cluster.on('exit', (worker) => {
    for (const relayId of [...pending.keys()]) settle(relayId, worker.id);
  });
}
