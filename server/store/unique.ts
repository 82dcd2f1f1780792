// What both stores share about unique values (CollectionSpec.unique).
import type { CollectionSpec } from './types.js';

/** The unique field lists a store enforces: the identifier alone is the primary key already. */
export const uniqueSets = (spec: CollectionSpec): string[][] =>
  (spec.unique ?? []).filter((fields) => !(fields.length === 1 && fields[0] === spec.identifier?.field));

/**
 * Why a unique index cannot be made over the stored items, in one line naming the repeated values (at most
 * five): `Shop.name is unique, but stored items repeat "Acme" (2 items)`.
 */
export function repeatedValuesMessage(
  spec: CollectionSpec,
  fields: readonly string[],
  repeated: readonly { values: unknown[]; count: number }[],
): string {
  const named = repeated.slice(0, 5).map(({ values, count }) => {
    const shown = values.map((v) => JSON.stringify(v)).join(', ');
    return `${values.length === 1 ? shown : `(${shown})`} (${count} items)`;
  });
  const more = repeated.length > 5 ? ', …' : '';
  return `${spec.name}.${fields.join(',')} is unique, but stored items repeat ${named.join(', ')}${more}`;
}
