// Unique values in the MongoDB store (CollectionSpec.unique). Each unique field list is kept in a field of
// its own, `_u:shop,sku`, holding the values as JSON text (`["s1","A-1"]`), under a plain unique index. An item
// with a null or absent value in the list holds its own key there instead (`#17`), which no other item holds:
// nulls repeat freely, as in SQL. One index kind that MongoDB and FerretDB 1.24 both enforce (FerretDB has no
// partial indexes, and MongoDB's unique indexes count a missing field as one null value).
import type { Collection as DriverCollection, Document } from 'mongodb';
import type { CollectionSpec, Id, Item } from '../types.js';
import { repeatedValuesMessage, uniqueSets } from '../unique.js';

/** A collection of stored items (documents.ts StoredDoc): `_id` is the identifier or the internal key. */
type Items = DriverCollection<Document & { _id: Id }>;

/** The stored field that holds the values of `fields`; internal (`_` + a non-underscore character). */
export const uniqueField = (fields: readonly string[]): string => `_u:${fields.join(',')}`;

/** The name of the unique index on `fields`. */
export const uniqueIndexName = (fields: readonly string[]): string => `unique(${fields.join(',')})`;

/** The field list a unique index is named after; undefined for another index. */
export const uniqueIndexFields = (name: string): string[] | undefined => /^unique\((.+)\)$/.exec(name)?.[1]?.split(',');

/** The unique indexes of the collection, as createIndexes takes them. */
export function uniqueIndexes(spec: CollectionSpec): { key: Document; name: string; unique: true }[] {
  return uniqueSets(spec).map((fields) => ({
    key: { [uniqueField(fields)]: 1 },
    name: uniqueIndexName(fields),
    unique: true,
  }));
}

/** The value of `fields` in the item as its unique field holds it; `key` stands for a null. */
function uniqueValue(fields: readonly string[], key: Id, item: Item): string {
  const values = fields.map((f) => item[f]);
  return values.some((v) => v === undefined || v === null) ? `#${JSON.stringify(key)}` : JSON.stringify(values);
}

/** The unique fields of a document (keyed `key`) holding the item (a plain JSON copy). */
export function uniqueFieldsOf(spec: CollectionSpec, key: Id, item: Item): Document {
  const doc: Document = {};
  for (const fields of uniqueSets(spec)) doc[uniqueField(fields)] = uniqueValue(fields, key, item);
  return doc;
}

/**
 * Which unique field list another document already holds as `doc` does, among the stored ones and `earlier`
 * (the documents written before it in its batch): the cause of a duplicate-key error (undefined: the identifier
 * was the duplicate). Asked of the data, as FerretDB names no index in its error.
 */
export async function clashingUnique(
  spec: CollectionSpec,
  items: Items,
  doc: Document,
  earlier: readonly Document[] = [],
): Promise<string[] | undefined> {
  for (const fields of uniqueSets(spec)) {
    const field = uniqueField(fields);
    if (earlier.some((other) => other[field] === doc[field])) return fields;
    if (await items.findOne({ [field]: doc[field], _id: { $ne: doc._id } }, { projection: { _id: 1 } })) return fields;
  }
  return undefined;
}

/** Writes the unique fields into documents stored before their list was declared unique. */
export async function fillUniqueFields(
  spec: CollectionSpec,
  items: Items,
  itemOf: (doc: Document) => Item,
): Promise<void> {
  for (const fields of uniqueSets(spec)) {
    const field = uniqueField(fields);
    for await (const doc of items.find({ [field]: { $exists: false } })) {
      await items.updateOne({ _id: doc._id }, { $set: { [field]: uniqueValue(fields, doc._id, itemOf(doc)) } });
    }
  }
}

/** What keeps the unique index on `fields` from being made: the values several stored items share. */
export async function describeDuplicates(
  spec: CollectionSpec,
  items: Items,
  fields: readonly string[],
): Promise<string> {
  const field = uniqueField(fields);
  const counts = new Map<string, number>();
  for await (const doc of items.find({}, { projection: { [field]: 1 } })) {
    const value = doc[field];
    if (typeof value === 'string' && value.startsWith('[')) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const repeated = [...counts]
    .filter(([, n]) => n > 1)
    .map(([value, count]) => ({ values: JSON.parse(value) as unknown[], count }));
  return repeatedValuesMessage(spec, fields, repeated);
}
