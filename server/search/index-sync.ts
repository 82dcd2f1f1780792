/**
 * Keeping the search index true to the store (docs/elasticsearch.md, "Writes"). Every collection of an indexed
 * resource is wrapped (the runtime's write wrapper, as the HTTP cache's invalidation: server/pipeline/open-runtime.ts),
 * so whatever writes through it — the pipeline's default write, the bulk endpoint, custom code's `ctx.persist`,
 * message handlers, `apidsl import` — hands the index the item as stored once the store committed it. Changes
 * are sent in `_bulk` batches: those that arrive while a batch is under way go together in the next one. A write
 * waits for its batch at most `timeout` milliseconds; an engine that fails or does not answer costs a write no
 * more than that, never its success. A change the engine refuses or does not take, or whose acceptance cannot be
 * trusted yet (recent-changes.ts), is kept in the store and retried with backoff until the engine takes it
 * (pending.ts); without that journal (a command such as `apidsl import`) it is logged, and `apidsl reindex`
 * repairs the index.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { ResourceMetadata } from '../metadata/types.js';
import { ForwardingCollection } from '../store/forwarding-collection.js';
import type { Collection, Condition, Id, Item } from '../store/types.js';
import type { SearchClient } from './client.js';
import type { IndexChange } from './index-change.js';
import { heldByEngine } from './presence.js';
import { RecentChanges } from './recent-changes.js';

/** Where the changes not yet accepted are kept, and how a pending change is brought up to date (index.ts). */
export interface ChangeJournal {
  note(changes: IndexChange[]): Promise<void>;
  settle(changes: IndexChange[]): Promise<void>;
  due(limit: number): Promise<IndexChange[]>;
  /** The change as the store holds the document now; undefined when it no longer concerns an indexed resource. */
  current(change: IndexChange): Promise<IndexChange | undefined>;
}

/** Changes per `_bulk` request. */
const BATCH = 500;
/** Changes waiting at most; past this the oldest are set aside (the journal keeps them): the engine has been away long. */
const MAX_WAITING = 100_000;
/** The first retry's delay, doubled after each failed round up to the last. */
const FIRST_RETRY = 250;
const LAST_RETRY = 5_000;

interface Waiting {
  change: IndexChange;
  sent: () => void;
}

/** The changes of a `_bulk` request the engine took, those it refused, and how long until the others may settle. */
interface Judgement {
  accepted: IndexChange[];
  refused: { change: IndexChange; reason: string }[];
  wait: number;
}

/** What the engine said of one change of a `_bulk` request. */
interface BulkItem {
  status?: number;
  error?: unknown;
}

/** Sends changes to the engine in batches, one request at a time; retries what it did not take. */
export class IndexWriter {
  private waiting: Waiting[] = [];
  private sending: Promise<void> | undefined;
  private journal: ChangeJournal | undefined;
  private retryDelay = FIRST_RETRY;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly client: SearchClient,
    private readonly timeout: number,
    private readonly logger: Logger,
    /** Before the first batch: the indexes exist with their mappings (false: they could not be made). */
    private readonly ready: () => Promise<boolean>,
    /** When each document's changes were last sent: a change is trusted only once the other kind is quiet. */
    private readonly recent = new RecentChanges(),
  ) {}

  /** From now on, changes are kept in the journal until the engine takes them; those already there are sent. */
  keepIn(journal: ChangeJournal): void {
    this.journal = journal;
    void this.replay();
  }

  /** Resolves when the engine took the changes, refused them, or `timeout` passed; never rejects. */
  async write(changes: IndexChange[]): Promise<void> {
    if (changes.length === 0) return;
    try {
      await this.journal?.note(changes);
    } catch (err) {
      this.logger.warn({ err }, 'search index: pending changes could not be recorded in the store');
    }
    const taken = this.enqueue(changes);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeout)));
    return Promise.race([taken, late]).finally(() => clearTimeout(timer));
  }

  /** Waits until every change handed so far was sent (or given up), at most `timeout` per batch. */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  /** No more retries: what is pending stays in the journal for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.drain();
  }

  private enqueue(changes: IndexChange[]): Promise<void> {
    const taken = Promise.all(
      changes.map((change) => new Promise<void>((sent) => this.waiting.push({ change, sent }))),
    );
    if (this.waiting.length > MAX_WAITING) this.drop(this.waiting.splice(0, this.waiting.length - MAX_WAITING));
    this.sending ??= this.send();
    return taken.then(() => undefined);
  }

  private async send(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, BATCH);
      try {
        if (!(await this.ready())) throw new Error('the indexes could not be created');
        await this.sendBatch(batch.map((w) => w.change));
      } catch (err) {
        this.drop(batch, err);
        continue;
      }
      for (const w of batch) w.sent();
    }
    this.sending = undefined;
  }

  private async sendBatch(batch: IndexChange[]): Promise<void> {
    const changes: IndexChange[] = [];
    const obsolete: IndexChange[] = [];
    for (const change of batch) {
      const now = change.reread && this.journal ? await this.journal.current(change) : change;
      if (now) changes.push(now);
      else obsolete.push(change);
    }
    await this.journal?.settle(obsolete);
    if (changes.length === 0) return;
    this.recent.mark(changes);
    let body: unknown;
    try {
      ({ body } = await this.client.bulk({ body: bulkLines(changes) }));
    } finally {
      this.recent.mark(changes); // a request given up on may still be applied: from its end, too
    }
    const items = (body as { items?: Record<string, BulkItem>[] }).items ?? [];
    const { accepted, refused, wait } = await this.judge(changes, items);
    await this.journal?.settle(accepted);
    if (refused.length === 0 && wait === 0) {
      this.retryDelay = FIRST_RETRY;
      if (batch.some((c) => c.reread)) this.retryLater(0); // more may be pending than one round took
      return;
    }
    // Changes not trusted yet are sent again with the backoff too (a delete lands as soon as the engine holds
    // the document), and settle at the first round after `wait`.
    if (refused.length > 0) this.logRefusals(refused);
    this.retryLater();
  }

  private logRefusals(refused: Judgement['refused']): void {
    this.logger.warn(
      {
        refused: refused.length,
        reasons: [...new Set(refused.map((r) => r.reason))].slice(0, 5),
        first: { index: refused[0].change.index, id: refused[0].change.id },
      },
      this.journal
        ? 'search index: the engine refused changes; they are kept and retried'
        : 'search index: the engine refused changes; `apidsl reindex` repairs the index',
    );
  }

  /**
   * What became of each change of a `_bulk` request. A change sent less than `QUIET` after a change of the other
   * kind of its document is not trusted, whatever the engine said (recent-changes.ts): it stays pending for `wait`
   * ms more. A delete the engine turned down settles when the engine does not hold the document.
   */
  private async judge(changes: IndexChange[], items: Record<string, BulkItem>[]): Promise<Judgement> {
    const judgement: Judgement = { accepted: [], refused: [], wait: 0 };
    const doubted: { change: IndexChange; reason: string }[] = [];
    changes.forEach((change, i) => {
      const outcome = Object.values(items[i] ?? {})[0];
      // A delete of a document that is not there (404) leaves the index as wanted.
      const took = outcome !== undefined && (outcome.error === undefined || outcome.status === 404);
      const wait = this.recent.wait(change);
      judgement.wait = Math.max(judgement.wait, wait);
      if (took && wait === 0) judgement.accepted.push(change);
      else if (!took && change.doc) judgement.refused.push({ change, reason: reasonOf(outcome) });
      else if (!took) doubted.push({ change, reason: reasonOf(outcome) });
    });
    if (doubted.length === 0) return judgement;
    const held = await heldByEngine(
      this.client,
      doubted.map((d) => d.change),
    ).catch(() => undefined);
    for (const d of doubted) {
      if (held?.has(`${d.change.index}/${d.change.id}`) !== false) judgement.refused.push(d);
      else if (this.recent.wait(d.change) === 0) judgement.accepted.push(d.change);
    }
    return judgement;
  }

  private drop(batch: Waiting[], err?: unknown): void {
    this.logger.warn(
      { err, changes: batch.length, indexes: [...new Set(batch.map((w) => w.change.index))] },
      this.journal
        ? 'search index: changes not applied (the engine failed or did not answer in time); they are kept and retried'
        : 'search index: changes not applied (the engine failed or did not answer in time); `apidsl reindex` repairs the index',
    );
    for (const w of batch) w.sent();
    this.retryLater();
  }

  /** Sends the pending changes again after a delay (the current backoff, which doubles). */
  private retryLater(delay = this.retryDelay): void {
    if (!this.journal || this.closed || this.retryTimer) return;
    if (delay > 0) this.retryDelay = Math.min(this.retryDelay * 2, LAST_RETRY);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.replay();
    }, delay);
    this.retryTimer.unref();
  }

  /** One round of retries: the oldest pending changes, each re-read from the store when it is sent. */
  private async replay(): Promise<void> {
    if (!this.journal || this.closed) return;
    let due: IndexChange[];
    try {
      due = await this.journal.due(BATCH);
    } catch (err) {
      this.logger.warn({ err }, 'search index: pending changes could not be read from the store');
      this.retryLater();
      return;
    }
    if (due.length > 0) await this.enqueue(due);
  }
}

/**
 * The engine's reason for refusing a change: its error type and reason (Elasticsearch, OpenSearch), or, when it
 * gives none (ZincSearch answers a delete of a document it has not made searchable yet with status 200, result
 * `deleted` and an empty `error`, and keeps the document), the status and result it did give.
 */
function reasonOf(outcome: (BulkItem & { result?: string }) | undefined): string {
  if (!outcome) return 'no answer for this change in the bulk response';
  const error = outcome.error as { type?: string; reason?: string } | string | undefined;
  if (typeof error === 'string') return `${outcome.status ?? '?'} ${error}`;
  if (error?.type || error?.reason) return [outcome.status, error.type, error.reason].filter(Boolean).join(' ');
  return `${outcome.status ?? '?'} ${outcome.result ?? 'no result'}, with an error that gives no type or reason`;
}

/** The `_bulk` body: an action line per change, and the document after an `index` action. */
function bulkLines(changes: IndexChange[]): Record<string, unknown>[] {
  return changes.flatMap((c) =>
    c.doc ? [{ index: { _index: c.index, _id: c.id } }, c.doc] : [{ delete: { _index: c.index, _id: c.id } }],
  );
}

/** The changes of writes made inside `heldBack`, waiting for its end. */
const held = new AsyncLocalStorage<IndexChange[]>();

/**
 * Runs `run` (a store transaction) with the index changes of its writes held back, then sends them when it
 * succeeded (a transaction that failed left the store as it was: nothing to tell the index).
 */
export async function heldBack<T>(writer: IndexWriter, run: () => Promise<T>): Promise<T> {
  const changes: IndexChange[] = [];
  const result = await held.run(changes, run);
  await writer.write(changes);
  return result;
}

/** A resource's store collection whose every committed write goes to its index too. */
export class SyncingCollection extends ForwardingCollection {
  constructor(
    inner: Collection,
    private readonly resource: ResourceMetadata,
    private readonly index: string,
    private readonly writer: IndexWriter,
  ) {
    super(inner);
  }

  override async insert(item: Item): Promise<Item> {
    const saved = await this.inner.insert(item);
    await this.tell([this.indexed(saved)]);
    return saved;
  }
  override async insertMany(items: Item[]): Promise<Item[]> {
    const saved = await this.inner.insertMany(items);
    await this.tell(saved.map((item) => this.indexed(item)));
    return saved;
  }
  override async replace(id: Id, item: Item, expected?: Item): Promise<Item | null> {
    const saved = await this.inner.replace(id, item, expected);
    if (saved) await this.tell([this.indexed(saved)]);
    return saved;
  }
  override async upsert(id: Id, item: Item): Promise<{ item: Item; created: boolean }> {
    const result = await this.inner.upsert(id, item);
    await this.tell([this.indexed(result.item)]);
    return result;
  }
  override async delete(id: Id, expected?: Item, where?: Condition[]): Promise<boolean> {
    const deleted = await this.inner.delete(id, expected, where);
    if (deleted) await this.tell([{ index: this.index, id: String(id) }]);
    return deleted;
  }
  override async clear(): Promise<number> {
    // The identifiers of what goes, read first: the index drops exactly those.
    const ids: string[] = [];
    const idName = this.resource.identifier!.name;
    for await (const item of this.inner.stream({})) ids.push(String(item[idName]));
    const n = await this.inner.clear();
    await this.tell(ids.map((id) => ({ index: this.index, id })));
    return n;
  }

  private indexed(item: Item): IndexChange {
    return { index: this.index, id: String(item[this.resource.identifier!.name]), doc: item };
  }

  private tell(changes: IndexChange[]): Promise<void> {
    const holding = held.getStore();
    if (holding) {
      holding.push(...changes);
      return Promise.resolve();
    }
    return this.writer.write(changes);
  }
}
