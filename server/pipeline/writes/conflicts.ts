/** The answers to a store write refused for a conflict: 422 for a taken unique value, 409 for a taken identifier. */
import { HttpError, badRequest } from '../../protocol/errors.js';
import { MissingReferenceError, StoreConflictError, UniqueConflictError } from '../../store/types.js';
import { notFound } from '../relations/targets.js';
import { validationFailed, violation } from '../validation/violations.js';

/**
 * Runs a store write. A value of a `unique` property list that another item holds answers 422 with
 * UniqueEntity's violation on the list's first property (its `errorPath` default); a chosen identifier
 * another item holds answers 409; a relation naming an item the store does not hold, the 400 of an unknown IRI.
 */
export async function refusingConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof UniqueConflictError) {
      // In a bulk write the path names the item, as its other violations do (`[3].sku`).
      const path = e.index === undefined ? e.fields[0]! : `[${e.index}].${e.fields[0]!}`;
      throw validationFailed([violation(path, 'UniqueEntity')]);
    }
    // The store's own check of a relation (a foreign key): its target was deleted since the pipeline looked.
    if (e instanceof MissingReferenceError) throw badRequest(notFound(String(e.value)));
    if (e instanceof StoreConflictError) throw new HttpError(409, e.message);
    throw e;
  }
}
