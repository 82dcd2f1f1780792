// The driver's errors as store errors: unreachable (StoreUnavailableError), a duplicate key, where an ordered
// insertMany stopped; and `guard`, which runs a driver call under those rules and a deadline.
import {
  MongoBulkWriteError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { StoreConflictError, StoreUnavailableError } from '../types.js';

export const DUPLICATE_KEY = 11000;
/** A snapshot read that may succeed when tried again (SnapshotTooOld, SnapshotUnavailable). */
export const SNAPSHOT_RETRYABLE = new Set([239, 246]);
export const NAMESPACE_EXISTS = 48;
/** Server errors that mean "not reachable right now": shutdown, step-down, no primary, network. */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

export function isUnavailable(e: unknown): boolean {
  return (
    e instanceof MongoNetworkError || // PoolClearedError and timeouts included
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNotConnectedError ||
    e instanceof MongoTopologyClosedError ||
    e instanceof MongoWriteConcernError ||
    (e instanceof MongoServerError && typeof e.code === 'number' && UNAVAILABLE_CODES.has(e.code)) ||
    (e instanceof MongoError &&
      e.hasErrorLabel('TransientTransactionError') &&
      !(e instanceof MongoServerError && e.code === DUPLICATE_KEY))
  );
}

/**
 * A duplicate key. FerretDB 1.24 workaround: an update (replaceOne) that breaks a unique index answers
 * InternalError (code 1) with its backend's message instead of 11000.
 */
export const isDuplicateKey = (e: unknown): boolean =>
  e instanceof MongoServerError &&
  (e.code === DUPLICATE_KEY ||
    (e.code === 1 && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(e.message)));

/** The index of the document an ordered insertMany stopped at, when the server said which. */
export function failedIndex(e: unknown): number | undefined {
  if (!(e instanceof MongoBulkWriteError)) return undefined;
  const errors = Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
  return typeof errors[0]?.index === 'number' ? errors[0].index : undefined;
}

/** Driver errors as store errors: unreachable → StoreUnavailableError; anything else unchanged. */
export function storeError(e: unknown, what = 'MongoDB cannot be reached'): unknown {
  if (e instanceof StoreUnavailableError || e instanceof StoreConflictError) return e;
  if (isUnavailable(e)) return new StoreUnavailableError(`${what}: ${(e as Error).message}`, { cause: e });
  return e;
}

/** Runs a driver call with its errors as store errors and, when `deadlineMs` is given, at most that long. */
export async function guard<T>(run: () => Promise<T>, deadlineMs?: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const operation = run();
    if (deadlineMs === undefined) return await operation;
    operation.catch(() => undefined); // a late failure, after the deadline answered, is of no interest
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`MongoDB did not answer within ${deadlineMs} ms`)),
        deadlineMs,
      );
    });
    return await Promise.race([operation, expired]);
  } catch (e) {
    throw storeError(e);
  } finally {
    clearTimeout(timer);
  }
}
