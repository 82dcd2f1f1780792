// How the MongoDB store runs several reads or writes together: reads in one snapshot session where the deployment
// has snapshot reads, writes in one transaction where it has transactions, and a lock for what FerretDB does not
// isolate.
import { MongoServerError, type ClientSession, type MongoClient, type TransactionOptions } from 'mongodb';
import { isUnavailable, SNAPSHOT_RETRYABLE } from './errors.js';

/**
 * Runs reads together: in one snapshot session (`session` given: read one after the other, the first sets the
 * snapshot) when the deployment has snapshot reads, else without a session (`session` undefined).
 */
export type Together = <T>(read: (session: ClientSession | undefined) => Promise<T>) => Promise<T>;

/**
 * `Together` on a deployment that has snapshot reads (`snapshots`, judged from the server's answers at start).
 * A server that refuses them all the same (something that answers like MongoDB 5 without having them) is asked
 * without a session from then on, once a read without one succeeded where the snapshot read failed.
 */
export function readTogether(client: MongoClient, snapshots: boolean): Together {
  let available = snapshots;
  return async (read) => {
    if (!available) return read(undefined);
    try {
      return await client.withSession({ snapshot: true }, (session) => read(session));
    } catch (e) {
      if (isUnavailable(e)) throw e;
      const result = await read(undefined); // the query's own error, when it has one, rejects here
      if (!(e instanceof MongoServerError && SNAPSHOT_RETRYABLE.has(Number(e.code)))) available = false;
      return result;
    }
  };
}

/** Runs writes together: in one transaction when the store has them (`transactional`), else one after the other. */
export type Atomically = (<T>(run: (session: ClientSession | undefined) => Promise<T>) => Promise<T>) & {
  transactional: boolean;
};

/** `Atomically` of a store: in one transaction with these options, or (`transaction` undefined) without. */
export function atomically(client: MongoClient, transaction: TransactionOptions | undefined): Atomically {
  return transaction
    ? Object.assign(
        <T>(run: (session: ClientSession | undefined) => Promise<T>) =>
          client.withSession((session) => session.withTransaction(() => run(session), transaction)),
        { transactional: true },
      )
    : Object.assign(<T>(run: (session: ClientSession | undefined) => Promise<T>) => run(undefined), {
        transactional: false,
      });
}

/** A lock: each call runs after the previous one settled. */
export type Serial = <T>(run: () => Promise<T>) => Promise<T>;

export function serially(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const result = tail.then(run, run);
    tail = result.catch(() => undefined);
    return result;
  };
}
