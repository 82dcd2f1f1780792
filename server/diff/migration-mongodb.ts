/**
 * The MongoDB store's side of a migration plan (migration.ts), as mongosh operations on its own layout
 * (store/mongodb/): a collection per resource, `_id` the identifier, fields under their stored names, its indexes
 * by their names, unique lists through an index on a field of their own (store/mongodb/unique.ts).
 */
import type { Change } from '../store/layout.js';
import { fieldOf, indexSpecs, storedName } from '../store/mongodb/query.js';
import { uniqueIndexes } from '../store/mongodb/unique.js';
import type { CollectionSpec, FieldType } from '../store/types.js';
import type { MigrationDialect } from './migration-dialect.js';

const collection = (spec: CollectionSpec): string => `db.getCollection(${JSON.stringify(spec.name)})`;
const json = (v: unknown): string => JSON.stringify(v);

/** The BSON types a field's values may have. */
const BSON_TYPES: Partial<Record<FieldType, string[]>> = {
  int: ['int', 'long'],
  number: ['int', 'long', 'double', 'decimal'],
  bool: ['bool'],
  array: ['array'],
  string: ['string'],
  iri: ['string'],
  datetime: ['string'],
  date: ['string'],
};

/** The filter the items that contradict the change match; undefined when a filter cannot say. */
function contradicts(spec: CollectionSpec, c: Change): Record<string, unknown> | undefined {
  const field = fieldOf(spec, c.subject).path;
  if (c.kind === 'required') return { [field]: null };
  if (c.kind === 'type') {
    const allowed = BSON_TYPES[spec.fields[c.subject]!];
    return allowed && { [field]: { $exists: true, $ne: null, $not: { $type: allowed } } };
  }
  const key = c.detail.split(' ')[0] as keyof NonNullable<CollectionSpec['rules']>[string];
  const bound = spec.rules?.[c.subject]?.[key];
  switch (key) {
    case 'minimum':
      return { [field]: { $lt: bound } };
    case 'maximum':
      return { [field]: { $gt: bound } };
    case 'minLength':
      return { [field]: { $type: 'string', $not: { $regex: `^[\\s\\S]{${String(bound)},}` } } };
    case 'maxLength':
      return { [field]: { $regex: `^[\\s\\S]{${Number(bound) + 1},}` } };
    case 'pattern':
      return { [field]: { $type: 'string', $not: { $regex: String(bound) } } };
    case 'enum':
      return { [field]: { $exists: true, $nin: [...(bound as unknown[]), null] } };
    default:
      return undefined;
  }
}

function check(spec: CollectionSpec, c: Change): string[] {
  if (c.kind === 'identifier')
    return [
      `${collection(spec)}.countDocuments(${json({ _id: { $not: { $type: spec.identifier?.type === 'string' ? 'string' : ['int', 'long'] } } })})`,
    ];
  if (c.kind === 'unique') {
    const paths = c.subject.split(',').map((f) => fieldOf(spec, f).path);
    const match = Object.fromEntries(paths.map((p) => [p, { $ne: null }]));
    const group = { _id: Object.fromEntries(paths.map((p) => [p, `$${p}`])), n: { $sum: 1 } };
    return [
      `${collection(spec)}.aggregate(${json([{ $match: match }, { $group: group }, { $match: { n: { $gt: 1 } } }])})`,
    ];
  }
  const filter = contradicts(spec, c);
  if (filter === undefined) return [`// ${c.detail}: apidsl migrate --dry-run counts the items that do not fit`];
  return [`${collection(spec)}.countDocuments(${json(filter)})`];
}

/** Every index of a layout by name, as the store creates it. */
function indexesOf(spec: CollectionSpec): Map<string, string> {
  const out = new Map<string, string>();
  for (const { key, name } of indexSpecs(spec))
    out.set(name, `${collection(spec)}.createIndex(${json(key)}, ${json({ name })})`);
  for (const { key, name } of uniqueIndexes(spec))
    out.set(
      name,
      `${collection(spec)}.createIndex(${json(key)}, ${json({ name, unique: true })}) // after the store fills ${Object.keys(key)[0]}`,
    );
  return out;
}

export const MONGODB: MigrationDialect = {
  store: 'mongodb',
  create: (spec) => [`db.createCollection(${json(spec.name)})`, ...indexesOf(spec).values()],
  indexes(before, after) {
    const [was, is] = [indexesOf(before), indexesOf(after)];
    return [
      ...[...was.keys()]
        .filter((name) => !is.has(name))
        .map((name) => `${collection(before)}.dropIndex(${json(name)})`),
      ...[...is].filter(([name]) => !was.has(name)).map(([, create]) => create),
    ];
  },
  check,
  fill: (spec, field, value) => {
    const path = fieldOf(spec, field).path;
    return [`${collection(spec)}.updateMany(${json({ [path]: null })}, ${json({ $set: { [path]: value } })})`];
  },
  holding: (spec, field) => [
    `${collection(spec)}.countDocuments(${json({ [fieldOf(spec, field).path]: { $ne: null } })})`,
  ],
  renameField: (spec, from, to) => [
    `${collection(spec)}.updateMany(${json({ [storedName(from)]: { $exists: true } })}, ${json({ $rename: { [storedName(from)]: storedName(to) } })})`,
  ],
};
