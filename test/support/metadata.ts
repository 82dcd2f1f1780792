/** Metadata built by hand for the unit tests of the pipeline's parts (no `.api` file, no server). */
import type { PropertyMetadata } from '../../server/metadata/types.js';

/** A property as the loader makes it: a scalar, optional, nullable, readable and writable; `extra` overrides. */
export function property(name: string, type: string, extra: Partial<PropertyMetadata> = {}): PropertyMetadata {
  return {
    name,
    type,
    array: false,
    identifier: false,
    required: false,
    nullable: true,
    readOnly: false,
    writeOnly: false,
    constrained: false,
    ...extra,
  };
}
