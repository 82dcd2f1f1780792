// How an item is kept as a MongoDB document. `_id` holds the identifier (int or string) or, for a resource without
// one, an internal integer key in insertion order; the other fields are stored as they are (see query.ts for the
// renaming of names starting with `_`). A JSON value that MongoDB cannot hold as a document (a key starting with
// `$`, holding a `.` or a NUL, or empty) is kept as JSON text and its stored name listed in `_j`; item keys that
// cannot be field names are kept together as JSON text in `_x`. Items come back as plain JSON objects.
import type { Document, Filter } from 'mongodb';
import type { CollectionSpec, Id, Item } from '../types.js';
import { isInternal, itemName, KEY, storedName } from './query.js';
import { uniqueFieldsOf } from './unique.js';

/** A stored item: `_id` is the identifier or the internal key. */
export type StoredDoc = Document & { _id: Id };

/**
 * MongoDB refuses documents nested more than 100 levels deep: a value that would come near is kept as text,
 * as is one with keys that cannot be field names.
 */
const MAX_STORED_DEPTH = 90;

export function storable(value: unknown, depth = 1): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_STORED_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => storable(v, depth + 1));
  return Object.entries(value).every(([k, v]) => safeKey(k) && storable(v, depth + 1));
}

const safeKey = (key: string): boolean => key !== '' && !key.startsWith('$') && !/[.\0]/.test(key);

/** The document that keeps `item` under `key`. */
export function docOf(spec: CollectionSpec, key: Id, item: Item): StoredDoc {
  // A plain JSON copy, as the embedded store keeps it: undefined members dropped, dates as strings.
  const json = JSON.parse(JSON.stringify(item)) as Item;
  const doc: StoredDoc = { _id: key };
  const wrapped: string[] = [];
  let odd: Item | undefined;
  for (const [name, value] of Object.entries(json)) {
    if (name === spec.identifier?.field) continue;
    if (!safeKey(name)) {
      (odd ??= {})[name] = value;
      continue;
    }
    const stored = storedName(name);
    if (storable(value)) doc[stored] = value;
    else {
      doc[stored] = JSON.stringify(value);
      wrapped.push(stored);
    }
  }
  if (wrapped.length > 0) doc._j = wrapped;
  if (odd) doc._x = JSON.stringify(odd);
  return Object.assign(doc, uniqueFieldsOf(spec, key, json));
}

/**
 * The filter of the stored document `id`; with `expected`, of that document only while it still holds exactly
 * `expected`'s fields (each stored value equal, each field `expected` lacks absent): a single-document
 * write with it is a compare-and-set.
 */
export function selecting(spec: CollectionSpec, id: Id, expected?: Item): Filter<StoredDoc> {
  if (!expected) return { _id: id };
  const doc = docOf(spec, id, expected);
  const filter: Document = {};
  for (const [name, value] of Object.entries(doc)) filter[name] = { $eq: value };
  for (const name of [...Object.keys(spec.fields).map(storedName), '_j', '_x'])
    if (!(name in doc)) filter[name] = { $exists: false };
  return filter as Filter<StoredDoc>;
}

/** The item a stored document holds. */
export function docItem(spec: CollectionSpec, doc: Document): Item {
  const item: Item = {};
  const wrapped = Array.isArray(doc._j) ? (doc._j as string[]) : [];
  for (const [stored, value] of Object.entries(doc)) {
    if (isInternal(stored)) continue;
    item[itemName(stored)] = wrapped.includes(stored) ? JSON.parse(value as string) : value;
  }
  if (typeof doc._x === 'string') Object.assign(item, JSON.parse(doc._x) as Item);
  if (spec.identifier) item[spec.identifier.field] = doc[KEY];
  return item;
}
