// The integer keys of a MongoDB collection (keys.ts says which keys a collection has): one document per
// collection in `_apidsl_sequences`, `{ _id, n }`, the last key handed out (findOneAndUpdate + $inc, atomic),
// raised with $max past every explicitly given key, and at opening past the largest stored one.
import type { Collection as DriverCollection } from 'mongodb';
import { givenKey, sequenceKey, sequenced, stringKey } from '../keys.js';
import type { CollectionSpec, Id, Item } from '../types.js';
import type { StoredDoc } from './documents.js';
import { isDuplicateKey } from './errors.js';
import { KEY } from './query.js';
import type { Serial } from './sessions.js';

export const SEQUENCES = '_apidsl_sequences';

export type Sequences = DriverCollection<{ _id: string; n: number }>;

/** Raises the sequence of `spec` past its largest stored key, creating it when missing (at opening). */
export async function seedSequence(spec: CollectionSpec, items: DriverCollection<StoredDoc>, sequences: Sequences) {
  // The sequence goes on after the largest stored key, even if it was lost or the data imported.
  // Created here, before any insert: concurrent first inserts then never race to create it.
  const n = await largestKey(items);
  try {
    await sequences.updateOne({ _id: spec.name }, { $max: { n } }, { upsert: true });
  } catch (e) {
    if (!isDuplicateKey(e)) throw e; // another instance created it meanwhile
    await sequences.updateOne({ _id: spec.name }, { $max: { n } });
  }
}

async function largestKey(items: DriverCollection<StoredDoc>): Promise<number> {
  const top = await items.findOne({}, { sort: { [KEY]: -1 }, projection: { [KEY]: 1 } });
  return typeof top?._id === 'number' ? top._id : 0;
}

/** The sequence of one collection, each driver call run by `guard` (store errors, a deadline). */
export class KeySequence {
  constructor(
    private readonly spec: CollectionSpec,
    private readonly items: DriverCollection<StoredDoc>,
    private readonly sequences: Sequences,
    private readonly guard: <T>(run: () => Promise<T>) => Promise<T>,
    /**
     * FerretDB workaround. FerretDB 1.x applies an update as read, modify, write without isolation: concurrent
     * `$inc`s on one document lose increments (50 concurrent findOneAndUpdate $inc returned 14 distinct values in
     * our test), so two inserts could be handed the same key. On FerretDB the sequence updates of a collection run
     * one at a time in this process; across processes the unique `_id` still refuses a duplicate and `insert`
     * retries with a raised sequence. MongoDB's updates are atomic: no lock there.
     */
    private readonly lock?: Serial,
  ) {}

  /** The last of `count` new integer keys (the sequence moves by `count`). */
  async next(count = 1): Promise<number> {
    const increment = (): Promise<{ n: number } | null> =>
      this.sequences.findOneAndUpdate(
        { _id: this.spec.name },
        { $inc: { n: count } },
        { upsert: true, returnDocument: 'after' },
      );
    // The document exists from collection(); if it was deleted meanwhile, two upserts may race to create it.
    const row = await this.update(() =>
      increment().catch((e: unknown) => (isDuplicateKey(e) ? increment() : Promise.reject(e))),
    );
    if (!row || typeof row.n !== 'number')
      throw new Error(`the ${SEQUENCES} document of ${this.spec.name} is malformed`);
    return sequenceKey(this.spec, row.n);
  }

  /** Keeps every later assigned key above `key`. */
  async raise(key: number): Promise<void> {
    await this.update(() => this.sequences.updateOne({ _id: this.spec.name }, { $max: { n: key } }, { upsert: true }));
  }

  /** Raises the sequence past the stored keys (an assigned key was taken: written by another program). */
  async raisePastStored(): Promise<void> {
    await this.raise(await this.guard(() => largestKey(this.items)));
  }

  /**
   * The key of each item, as `insert` in turn would choose it: integer keys are taken from the sequence in
   * blocks, one per run of items without a key, and a given key raises the sequence before the items after it.
   */
  async keysOf(items: Item[]): Promise<{ keys: Id[]; assigned: boolean[] }> {
    const assigned: boolean[] = [];
    const keys: Id[] = new Array(items.length);
    let run: number[] = []; // indexes of items waiting for an integer key
    const flush = async (): Promise<void> => {
      if (run.length === 0) return;
      const last = await this.next(run.length);
      run.forEach((index, i) => (keys[index] = last - run.length + 1 + i));
      run = [];
    };
    for (const [i, item] of items.entries()) {
      const given = givenKey(this.spec, item);
      assigned.push(given === null);
      if (given !== null) {
        keys[i] = given;
        if (typeof given === 'number' && run.length > 0) await flush();
        if (typeof given === 'number') await this.raise(given);
      } else if (sequenced(this.spec)) run.push(i);
      else keys[i] = stringKey();
    }
    await flush();
    return { keys, assigned };
  }

  private update<T>(run: () => Promise<T>): Promise<T> {
    return this.guard(() => (this.lock ? this.lock(run) : run()));
  }
}
