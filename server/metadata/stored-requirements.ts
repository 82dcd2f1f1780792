/**
 * Which requirements the store may count on. A property's `required` is kept among the store's rules (a PostgreSQL
 * `NOT NULL`, the start-up check that stored items hold a newly required field) only where every write operation of
 * the resource checks it: one in a validation group an operation skips (`validationContext`), or on a resource with
 * an operation that does not validate (`validate: false`), may be stored absent (docs/postgresql.md).
 */
import { optionValue } from './options.js';
import { contextGroups } from './property-access.js';
import type { PropertyMetadata, ResourceMetadata, Settings } from './types.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** The validation groups of each write operation; undefined for one that does not validate. */
function writeGroups(resource: ResourceMetadata, settings: Settings): (readonly string[] | undefined)[] {
  return resource.operations
    .filter((op) => WRITES.has(op.method))
    .map((op) =>
      optionValue(op, settings, 'validate') === false
        ? undefined
        : (contextGroups(optionValue(op, 'validationContext')) ?? ['Default']),
    );
}

/** Whether every write of the resource checks the property's requirement. */
const checkedByEveryWrite = (property: PropertyMetadata, writes: (readonly string[] | undefined)[]): boolean => {
  const groups = property.validation?.required?.groups ?? ['Default'];
  return writes.every((checked) => checked !== undefined && groups.some((g) => checked.includes(g)));
};

/** Drops from the resource's stored rules the requirements some write operation does not check. */
export function keepCheckedRequirements(resource: ResourceMetadata, settings: Settings): void {
  const rules = resource.storage.rules;
  if (!rules) return;
  const writes = writeGroups(resource, settings);
  for (const property of resource.properties) {
    const rule = rules[property.name];
    if (rule?.required && !checkedByEveryWrite(property, writes)) delete rule.required;
  }
}
