/** A collection as a later file names it: its fields renamed (a property's `renamedFrom`), nothing else changed. */
import type { CollectionSpec } from '../store/types.js';

/** `before` with each field `renames` maps renamed, under the resource name `name`. */
export function renamedSpec(
  before: CollectionSpec,
  renames: ReadonlyMap<string, string>,
  name: string,
): CollectionSpec {
  const rename = (f: string) => renames.get(f) ?? f;
  const entries = <T>(r: Record<string, T> | undefined) =>
    r && Object.fromEntries(Object.entries(r).map(([k, v]) => [rename(k), v]));
  return {
    ...before,
    name,
    ...(before.identifier ? { identifier: { ...before.identifier, field: rename(before.identifier.field) } } : {}),
    fields: entries(before.fields)!,
    ...(before.rules ? { rules: entries(before.rules) } : {}),
    ...(before.relations ? { relations: entries(before.relations) } : {}),
    indexes: before.indexes.map((fields) => fields.map(rename)),
    ...(before.unique ? { unique: before.unique.map((fields) => fields.map(rename)) } : {}),
    ...(before.relations ? { relations: entries(before.relations) } : {}),
  };
}
