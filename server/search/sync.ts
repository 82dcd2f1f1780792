/**
 * Keeping the search index true to the store (docs/elasticsearch.md, "Writes"). Every collection of an indexed
 * resource is wrapped (the runtime's write wrapper, as the HTTP cache's invalidation: server/pipeline/runtime.ts),
 * so whatever writes through it — the pipeline's default write, the bulk endpoint, custom code's `ctx.persist`,
 * message handlers, `apidsl import` — hands the index the item as stored once the store committed it. Changes
 * are sent in `_bulk` batches: those that arrive while a batch is under way go together in the next one. A write
 * waits for its batch at most `timeout` milliseconds; an engine that fails or does not answer costs a write no
 * more than that, never its success: the changes are dropped, logged, and `apidsl reindex` repairs the index.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { ResourceMetadata } from '../metadata/types.js';
import { ForwardingCollection } from '../store/forwarding-collection.js';
import type { Collection, Condition, Id, Item } from '../store/types.js';
import type { SearchClient } from './client.js';

/** One change of a document. */
export type IndexChange = { index: string; id: string } & ({ doc: Item } | { doc?: undefined });

/** Changes per `_bulk` request. */
const BATCH = 500;
/** Changes waiting at most; past this the oldest are dropped (and logged): the engine has been away long. */
const MAX_WAITING = 100_000;

interface Waiting {
  change: IndexChange;
  sent: () => void;
}

/** Sends changes to the engine in batches, one request at a time. */
export class IndexWriter {
  private waiting: Waiting[] = [];
  private sending: Promise<void> | undefined;

  constructor(
    private readonly client: SearchClient,
    private readonly timeout: number,
    private readonly logger: Logger,
    /** Before the first batch: the indexes exist with their mappings (false: they could not be made). */
    private readonly ready: () => Promise<boolean>,
  ) {}

  /** Resolves when the engine took the changes, refused them, or `timeout` passed; never rejects. */
  write(changes: IndexChange[]): Promise<void> {
    if (changes.length === 0) return Promise.resolve();
    const taken = Promise.all(
      changes.map((change) => new Promise<void>((sent) => this.waiting.push({ change, sent }))),
    );
    if (this.waiting.length > MAX_WAITING) this.drop(this.waiting.splice(0, this.waiting.length - MAX_WAITING));
    this.sending ??= this.send();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeout)));
    return Promise.race([taken.then(() => undefined), late]).finally(() => clearTimeout(timer));
  }

  /** Waits until every change handed so far was sent (or given up), at most `timeout` per batch. */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async send(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, BATCH);
      try {
        if (!(await this.ready())) throw new Error('the indexes could not be created');
        const { body } = await this.client.bulk({ body: bulkLines(batch.map((w) => w.change)) });
        const result = body as { errors?: boolean; items?: Record<string, { status?: number; error?: unknown }>[] };
        // A delete of a document that is not there (404) leaves the index as wanted.
        const refused = (result.items ?? []).flatMap((item) =>
          Object.values(item).filter((r) => r.error !== undefined && r.status !== 404),
        );
        if (refused.length > 0)
          this.logger.warn(
            { refused: refused.length, first: refused[0].error },
            'search index: the engine refused changes; `apidsl reindex` repairs the index',
          );
      } catch (err) {
        this.drop(batch, err);
        continue;
      }
      for (const w of batch) w.sent();
    }
    this.sending = undefined;
  }

  private drop(batch: Waiting[], err?: unknown): void {
    this.logger.warn(
      { err, changes: batch.length, indexes: [...new Set(batch.map((w) => w.change.index))] },
      'search index: changes not applied (the engine failed or did not answer in time); `apidsl reindex` repairs the index',
    );
    for (const w of batch) w.sent();
  }
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
