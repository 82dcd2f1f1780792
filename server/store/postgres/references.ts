// Relation columns (CollectionSpec.relations): a to-one relation to a stored collection is kept as the target's
// key, with a FOREIGN KEY to the target table and its ON DELETE action, so that `\d book` shows what the
// relation is and the database refuses a dangling row. Items still hold IRIs: the column takes the key out of an
// IRI of the target's form (`keyPrefix` and the URI-encoded key) and gives the IRI back when read. A value of
// another form is no key: the item keeps it among its extra members, its column NULL (table.ts).
import type { CollectionSpec, Relation } from '../types.js';

export interface Reference {
  relation: Relation;
  /** The target's table and key column, unquoted; the key's type. */
  table: string;
  keyColumn: string;
  keyType: 'int' | 'string';
}

/** PostgreSQL's referential action for each `onDelete`. */
const ACTIONS = { restrict: 'RESTRICT', cascade: 'CASCADE', setNull: 'SET NULL' } as const;
/** The catalogue's letter for each (pg_constraint.confdeltype). */
export const ACTION_CODES = { restrict: 'r', cascade: 'c', setNull: 'n' } as const;

/** The reference a field's column keeps, undefined when it keeps the IRI as text. */
export function referenceOf(
  spec: CollectionSpec,
  field: string,
  target: (spec: CollectionSpec) => { rawName: string; key: { rawName: string; type: 'int' | 'string' } },
): Reference | undefined {
  const relation = spec.relations?.[field];
  if (!relation || relation.many || spec.fields[field] !== 'iri' || !relation.target.identifier) return undefined;
  const t = target(relation.target);
  return { relation, table: t.rawName, keyColumn: t.key.rawName, keyType: t.key.type };
}

const INTEGER = /^[0-9]+$/;

/**
 * The key an IRI names (`/shops/7`, and `/shops/07` as the item route reads it), undefined when it is not of the
 * target's form (`keyPrefix` and the encoded key). Another spelling than `iriOf`'s is kept as written beside the
 * key (table.ts), as a datetime in another form is.
 */
export function keyOf(ref: Reference, iri: unknown): number | string | undefined {
  if (typeof iri !== 'string' || !iri.startsWith(ref.relation.keyPrefix)) return undefined;
  const rest = iri.slice(ref.relation.keyPrefix.length);
  if (ref.keyType === 'int') {
    const key = INTEGER.test(rest) ? Number(rest) : NaN;
    return Number.isSafeInteger(key) ? key : undefined;
  }
  let key: string;
  try {
    key = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  // decodeURIComponent gives no lone surrogate; a NUL no text column holds.
  return key !== '' && !key.includes('\0') ? key : undefined;
}

/** The IRI of a stored key. */
export const iriOf = (ref: Reference, key: unknown): string =>
  `${ref.relation.keyPrefix}${encodeURIComponent(String(key))}`;

/** The `FOREIGN KEY … REFERENCES … ON DELETE …` of a constraint. */
export const foreignKeyClause = (column: string, ref: Reference, quote: (name: string) => string): string =>
  `FOREIGN KEY (${column}) REFERENCES ${quote(ref.table)} (${quote(ref.keyColumn)}) ON DELETE ${ACTIONS[ref.relation.onDelete]}`;
