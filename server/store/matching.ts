// Whether one item in memory matches store-neutral conditions, as the stores would answer for the stored item:
// comparisons never match null or absent values, an 'array' field matches `eq` and `in` element-wise, `refers`
// reads the related item. The write scope checks the item a write would store with it (pipeline/scopes.ts).
import type { CollectionSpec, Condition, Item } from './types.js';

/** The related item of `target` whose key is `key` (the text after the reference's prefix), or null. */
export type RelatedLookup = (target: CollectionSpec, key: string) => Promise<Item | null>;

export async function matchesAll(
  spec: CollectionSpec,
  item: Item,
  conditions: readonly Condition[],
  lookup: RelatedLookup,
): Promise<boolean> {
  for (const c of conditions) if (!(await matches(spec, item, c, lookup))) return false;
  return true;
}

export async function matches(spec: CollectionSpec, item: Item, c: Condition, lookup: RelatedLookup): Promise<boolean> {
  switch (c.op) {
    case 'and':
      return matchesAll(spec, item, c.conditions, lookup);
    case 'or':
      for (const inner of c.conditions) if (await matches(spec, item, inner, lookup)) return true;
      return false;
    case 'refers': {
      const reference = item[c.field];
      if (typeof reference !== 'string' || !reference.startsWith(c.keyPrefix)) return false;
      const related = await lookup(c.target, reference.slice(c.keyPrefix.length));
      return related !== null && matchesAll(c.target, related, c.where, lookup);
    }
    default:
      return holds(spec, item, c);
  }
}

function holds(spec: CollectionSpec, item: Item, c: Exclude<Condition, { op: 'and' | 'or' | 'refers' }>): boolean {
  const value = item[c.field];
  const list = spec.fields[c.field] === 'array' && Array.isArray(value);
  const present = value !== null && value !== undefined && !(list && value.length === 0);
  switch (c.op) {
    case 'exists':
      return present === c.exists;
    case 'eq':
      return list ? value.some((v) => v === c.value) : value === c.value;
    case 'in':
      return list ? value.some((v) => c.values.includes(v)) : present && c.values.includes(value);
    case 'ne':
      return present && !list && value !== c.value;
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return present && !list && ordered(value, c.op, c.value);
    default:
      // Text and pattern tests are no part of a scope: refuse rather than guess.
      throw new TypeError(`a '${c.op}' condition cannot be checked on an item in memory`);
  }
}

function ordered(a: unknown, op: 'lt' | 'lte' | 'gt' | 'gte', b: unknown): boolean {
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string;
  const y = b as number | string;
  return { lt: x < y, lte: x <= y, gt: x > y, gte: x >= y }[op];
}
