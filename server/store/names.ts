// The names a store accepts for resources and fields: they reach table, column and collection names.
import type { CollectionSpec } from './types.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkName(name: string, what: string): string {
  if (!NAME.test(name)) throw new TypeError(`invalid ${what} name ${JSON.stringify(name)}`);
  return name;
}

/** Checks every name of `spec`; resource names starting with `_apidsl_` (any case) are the stores' own. */
export function checkNames(spec: CollectionSpec): void {
  checkName(spec.name, 'resource');
  if (/^_apidsl_/i.test(spec.name))
    throw new TypeError(`resource name ${JSON.stringify(spec.name)} is reserved (_apidsl_ prefix)`);
  if (spec.identifier) checkName(spec.identifier.field, 'identifier');
  for (const field of Object.keys(spec.fields)) checkName(field, 'field');
}
