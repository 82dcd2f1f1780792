/**
 * The index writer against an engine that applies what it acknowledged later and out of order
 * (server/search/recent-changes.ts): ZincSearch applies each round of its write-ahead log in random order across
 * shards, so an indexing and a delete of one document taken in the same round can land either way. Whatever the
 * order, the index ends holding exactly what the store holds; a delete of a document the engine never held settles.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { SearchClient } from '../../server/search/client.js';
import type { IndexChange } from '../../server/search/index-change.js';
import { IndexWriter, type ChangeJournal } from '../../server/search/index-sync.js';
import { RecentChanges } from '../../server/search/recent-changes.js';
import type { Item } from '../../server/store/types.js';

type Order = 'deletes first' | 'indexings first';

/**
 * Takes a `_bulk` request at once and applies it at `apply()`, each round's deletes and indexings in `order`. Like
 * ZincSearch, it looks a delete's document up among those applied, and answers one it does not hold with status
 * 200 and an empty error.
 */
class DeferringEngine {
  readonly held = new Map<string, unknown>();
  private log: { key: string; doc?: unknown }[] = [];

  constructor(public order: Order) {}

  bulk({ body }: { body: Record<string, { _index: string; _id: string }>[] }): Promise<{ body: unknown }> {
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < body.length; i++) {
      const { index, delete: remove } = body[i];
      if (index) {
        this.log.push({ key: `${index._index}/${index._id}`, doc: body[++i] });
        items.push({ index: { status: 200, result: 'created' } });
      } else if (this.held.has(`${remove._index}/${remove._id}`)) {
        this.log.push({ key: `${remove._index}/${remove._id}` });
        items.push({ delete: { status: 200, result: 'deleted' } });
      } else items.push({ delete: { status: 200, result: 'deleted', error: {} } });
    }
    return Promise.resolve({ body: { items } });
  }

  search({ index, body }: { index: string; body: { query: { ids: { values: string[] } } } }) {
    const hits = body.query.ids.values.filter((id) => this.held.has(`${index}/${id}`)).map((_id) => ({ _id }));
    return Promise.resolve({ body: { hits: { hits } } });
  }

  apply(): void {
    const deletes = this.log.filter((op) => op.doc === undefined);
    const indexings = this.log.filter((op) => op.doc !== undefined);
    this.log = [];
    const round = this.order === 'deletes first' ? [...deletes, ...indexings] : [...indexings, ...deletes];
    for (const op of round)
      if (op.doc === undefined) this.held.delete(op.key);
      else this.held.set(op.key, op.doc);
  }
}

/** The pending changes as pending.ts keeps them (a record per document, replaced by a newer change), in memory. */
class MemoryJournal implements ChangeJournal {
  readonly records = new Map<string, string>();
  constructor(private readonly store: Map<string, Item>) {}

  note(changes: IndexChange[]): Promise<void> {
    for (const change of changes) {
      const record = { key: `${change.index}/${change.id}`, token: randomUUID() };
      this.records.set(record.key, record.token);
      change.pending = record;
    }
    return Promise.resolve();
  }
  settle(changes: IndexChange[]): Promise<void> {
    for (const { pending } of changes)
      if (pending && this.records.get(pending.key as string) === pending.token)
        this.records.delete(pending.key as string);
    return Promise.resolve();
  }
  due(limit: number): Promise<IndexChange[]> {
    const records = [...this.records].slice(0, limit);
    return Promise.resolve(
      records.map(([key, token]) => ({ index: 'book', id: key.split('/')[1], reread: true, pending: { key, token } })),
    );
  }
  current(change: IndexChange): Promise<IndexChange> {
    const doc = this.store.get(change.id);
    return Promise.resolve(doc ? { ...change, doc } : { index: change.index, id: change.id, pending: change.pending });
  }
}

const QUIET = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('search index writer: an engine that applies changes late and out of order', () => {
  let engine: DeferringEngine;
  let store: Map<string, Item>;
  let journal: MemoryJournal;
  let writer: IndexWriter;
  let ticker: NodeJS.Timeout;

  function setUp(order: Order): void {
    engine = new DeferringEngine(order);
    store = new Map();
    journal = new MemoryJournal(store);
    const client = engine as unknown as SearchClient;
    writer = new IndexWriter(
      client,
      1_000,
      pino({ level: 'silent' }),
      () => Promise.resolve(true),
      new RecentChanges(QUIET),
    );
    writer.keepIn(journal);
  }

  /** Stores (or deletes, without `doc`) the document and hands the writer its change, as SyncingCollection does. */
  async function write(id: string, doc?: Item): Promise<void> {
    if (doc) store.set(id, doc);
    else store.delete(id);
    await writer.write([doc ? { index: 'book', id, doc } : { index: 'book', id }]);
  }

  /** The engine applies what it took every 20 ms until the journal is empty (or 5 s passed). */
  async function settled(): Promise<void> {
    ticker = setInterval(() => engine.apply(), 20);
    for (let waited = 0; journal.records.size > 0 && waited < 5_000; waited += 20) await sleep(20);
    await writer.drain();
    engine.apply();
  }

  afterEach(async () => {
    clearInterval(ticker);
    await writer.close();
  });

  it('leaves no ghost when a delete is applied before an indexing taken in the same round', async () => {
    setUp('deletes first');
    await write('1', { id: 1, title: 'First' });
    engine.apply();
    await write('1', { id: 1, title: 'Second' }); // not applied yet when the delete comes
    await write('1');
    engine.apply();
    expect(engine.held.has('book/1'), 'the engine itself left the ghost').to.equal(true);
    await settled();
    expect([...engine.held.keys()]).to.deep.equal([]);
    expect([...journal.records.keys()]).to.deep.equal([]);
  });

  it('indexes again a document whose delete was applied after its new indexing', async () => {
    setUp('indexings first');
    await write('1', { id: 1, title: 'First' });
    engine.apply();
    await write('1');
    await write('1', { id: 1, title: 'Again' });
    engine.apply();
    expect(engine.held.has('book/1'), 'the engine itself lost the document').to.equal(false);
    await settled();
    expect(engine.held.get('book/1')).to.deep.equal({ id: 1, title: 'Again' });
    expect([...journal.records.keys()]).to.deep.equal([]);
  });

  it('settles the delete of a document the engine never held (it refuses it) at once', async () => {
    setUp('deletes first');
    await write('7');
    expect([...journal.records.keys()]).to.deep.equal([]);
  });

  it('keeps the delete of a document just indexed pending until the indexing is quiet, then settles it', async () => {
    setUp('deletes first');
    await write('2', { id: 2, title: 'Fleeting' });
    await write('2'); // refused: not applied yet
    expect([...journal.records.keys()]).to.deep.equal(['book/2']);
    await settled();
    expect([...engine.held.keys()]).to.deep.equal([]);
    expect([...journal.records.keys()]).to.deep.equal([]);
  });
});
