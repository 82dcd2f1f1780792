// The driver's errors as store errors: unreachable or too slow (StoreUnavailableError: the service answers 503), a
// taken key or a repeated unique value (StoreConflictError, UniqueConflictError), the key sequence exhausted.
import {
  MissingReferenceError,
  StillReferencedError,
  StoreConflictError,
  StoreUnavailableError,
  UniqueConflictError,
  type CollectionSpec,
  type Item,
} from '../types.js';

interface DriverError {
  code?: string;
  constraint?: string;
  detail?: string;
  message: string;
}

/** SQLSTATEs that mean "not reachable right now": connection failures, shutdown, too many connections, a timeout. */
const UNAVAILABLE = /^(08|57P0[1-3]$|53300$|57014$|40001$|40P01$)/;
/** Node's and the driver's own words for a lost or slow connection. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|not queryable|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|Cannot use a pool after calling end/;

export function isUnavailable(e: unknown): boolean {
  const error = e as DriverError;
  if (typeof error?.message !== 'string') return false;
  if (typeof error.code === 'string' && UNAVAILABLE.test(error.code)) return true;
  return (
    UNAVAILABLE_MESSAGE.test(error.message) || (typeof error.code === 'string' && UNAVAILABLE_MESSAGE.test(error.code))
  );
}

/** What a write's errors are read with: the fields of each unique index and foreign key (by name), the item. */
export interface WriteContext {
  unique: Map<string, string[]>;
  references: Map<string, string>;
  index?: number;
  item?: Item;
}

/** Driver errors as store errors; anything else unchanged. `write` names the constraints a write may meet. */
export function storeError(e: unknown, spec?: CollectionSpec, write?: WriteContext): unknown {
  const { unique, references, index, item } = write ?? {};
  if (e instanceof StoreUnavailableError || e instanceof StoreConflictError) return e;
  const error = e as DriverError;
  if (error?.code === '23505') {
    const fields = error.constraint ? unique?.get(error.constraint) : undefined;
    if (fields) return new UniqueConflictError(fields, { cause: e, index });
    return new StoreConflictError(`${spec?.name ?? 'the'} identifier already exists`, { cause: e });
  }
  // A foreign key (references.ts): a write naming an item that is not stored, or a delete of one still named.
  if (error?.code === '23503') {
    const field = error.constraint ? references?.get(error.constraint) : undefined;
    if (field && item) return new MissingReferenceError(field, item[field], { cause: e });
    return new StillReferencedError(
      `${spec?.name ?? 'The item'} is still referenced: ${error.detail ?? error.message}`,
      {
        cause: e,
      },
    );
  }
  if (error?.code === '2200H')
    return new StoreConflictError(
      `${spec?.name} has no identifier left: the sequence reached ${Number.MAX_SAFE_INTEGER}`,
      {
        cause: e,
      },
    );
  if (isUnavailable(e))
    return new StoreUnavailableError(`PostgreSQL cannot be reached: ${error.message}`, { cause: e });
  return e;
}
