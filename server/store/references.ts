// For stores without sub-queries (MongoDB, the search index): a `refers` condition (types.ts) becomes an `in` of
// the references of the matching related items, read first. Store-neutral: the store says how it reads keys.
import type { Collection, CollectionSpec, Condition, Id, Query } from './types.js';

/** Reads the keys of the items of `target` matching `where` (which holds no `refers` any more). */
export type KeyReader = (target: CollectionSpec, where: Condition[]) => Promise<Id[]>;

/** Whether any condition, at any depth, is a `refers`: most queries have none and are left as they are. */
export function hasReferences(conditions: readonly Condition[] | undefined): boolean {
  return (conditions ?? []).some(
    (c) => c.op === 'refers' || ((c.op === 'and' || c.op === 'or') && hasReferences(c.conditions)),
  );
}

/** The conditions with every `refers` replaced by an `in` of the references its related items have. */
export async function resolveReferences(conditions: Condition[], read: KeyReader): Promise<Condition[]> {
  if (!hasReferences(conditions)) return conditions;
  const out: Condition[] = [];
  for (const c of conditions) out.push(await resolved(c, read));
  return out;
}

async function resolved(c: Condition, read: KeyReader): Promise<Condition> {
  if (c.op === 'and' || c.op === 'or') return { op: c.op, conditions: await resolveReferences(c.conditions, read) };
  if (c.op !== 'refers') return c;
  const keys = await read(c.target, await resolveReferences(c.where, read));
  return { op: 'in', field: c.field, values: keys.map((key) => `${c.keyPrefix}${key}`) };
}

/** The query with its `where` resolved. */
export async function resolveQuery(q: Query, read: KeyReader): Promise<Query> {
  return hasReferences(q.where) ? { ...q, where: await resolveReferences(q.where!, read) } : q;
}

/**
 * Reads keys through the collections themselves: the reader of what has no store of its own (the search index,
 * whose `refers` conditions the store answers). A target without a collection or an identifier names no item.
 */
export const collectionKeys =
  (collectionFor: (target: CollectionSpec) => Collection | undefined): KeyReader =>
  async (target, where) => {
    const collection = collectionFor(target);
    const field = target.identifier?.field;
    if (!collection || field === undefined) return [];
    return (await collection.find({ where })).map((item) => item[field] as Id);
  };
