// The identifier policy both stores follow (Collection.insert): which values are keys, the key an item to insert
// gives, and how a missing one is assigned (integers from a sequence that ends at 2^53 - 1, or UUID v7 text).
import { v7 as uuidv7 } from 'uuid';
import { StoreConflictError, type CollectionSpec, type Id, type Item } from './types.js';

/** Whether missing keys come from the collection's integer sequence (an int identifier, or none) or are UUID v7. */
export const sequenced = (spec: CollectionSpec): boolean => spec.identifier?.type !== 'string';

/** The key type is the identifier's; collections without one use their internal integer key. */
export function isKey(spec: CollectionSpec, id: unknown): id is Id {
  return sequenced(spec) ? Number.isSafeInteger(id) : typeof id === 'string';
}

export function checkKey(spec: CollectionSpec, id: unknown): Id {
  if (!isKey(spec, id)) throw new TypeError(`invalid ${spec.name} identifier ${JSON.stringify(id)}`);
  return id;
}

/** The key an item to insert gives, or null: then the store assigns one (from the sequence, checked by `sequenceKey`, or `stringKey`). */
export function givenKey(spec: CollectionSpec, item: Item): Id | null {
  const given = spec.identifier ? item[spec.identifier.field] : undefined;
  return given !== undefined && given !== null ? checkKey(spec, given) : null;
}

/** A new key of a collection with string identifiers: a time-ordered UUID v7. */
export const stringKey = (): string => uuidv7();

/** `key`, the sequence's next, unless it is past the integers a JSON number holds exactly: then none is left. */
export function sequenceKey(spec: CollectionSpec, key: number): number {
  if (key > Number.MAX_SAFE_INTEGER)
    throw new StoreConflictError(
      `${spec.name} has no identifier left: the sequence reached ${Number.MAX_SAFE_INTEGER}`,
    );
  return key;
}
