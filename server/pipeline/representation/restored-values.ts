/**
 * What an imported record (`apidsl import`, pipeline/import.ts) keeps that the same body POSTed would not: the
 * identifier it gives, even a store-assigned one, and the values the server sets (`default: now`, `onUpdate: now`,
 * `default: { expression }`) it gives, read-only or not, so that an export imports back as it was. Every other
 * read-only value is left out of the body, as a POST ignores it (and as no extra attribute: an export holds them).
 * The rest of the record is a POST body, denormalized by the deserialize stage (stages/deserialize.ts `applyBody`).
 */
import { badRequest } from '../../protocol/errors.js';
import { identifierFault } from '../../protocol/identifier.js';
import type { PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { validationFailed } from '../validation/violations.js';
import { conformingValue, identifierViolation, type IriResolver } from './denormalize.js';
import { setByServer } from './server-values.js';

/** A record split into the body a POST would take and the values it restores. */
export interface RestoredRecord {
  body: unknown;
  /** The identifier the record gives (undefined: none, the store assigns one). */
  id: unknown;
  /** The values the server would set that the record gives. */
  values: [PropertyMetadata, unknown][];
}

export function splitRecord(resource: ResourceMetadata, record: unknown): RestoredRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return { body: record, id: undefined, values: [] };
  const given = record as Item;
  const idName = resource.identifier?.name;
  const id = idName === undefined || given[idName] === null ? undefined : given[idName];
  let body: Item | undefined;
  const values: [PropertyMetadata, unknown][] = [];
  for (const p of resource.properties) {
    if (!(p.readOnly || p.identifier) || !Object.hasOwn(given, p.name)) continue;
    body ??= { ...given };
    if (setByServer(p) && given[p.name] !== null) values.push([p, given[p.name]]);
    delete body[p.name];
  }
  return { body: body ?? given, id, values };
}

/** Puts the restored values into the denormalized item; a value that does not fit its type answers 400. */
export function restoreValues(item: Item, restored: RestoredRecord, iris: IriResolver): void {
  for (const [p, given] of restored.values) {
    const value = conformingValue(p, given, iris);
    if (value === undefined) throw badRequest(`The value of "${p.name}" does not fit its type ${p.type}.`);
    item[p.name] = value;
  }
}

/** Gives the item the record's identifier, which must obey the rule of a client-chosen one (422 otherwise). */
export function restoreIdentifier(resource: ResourceMetadata, item: Item, restored: RestoredRecord): void {
  const id = resource.identifier;
  if (!id || restored.id === undefined) return;
  // The rule a client-chosen identifier obeys (protocol/identifier.ts): the item is reachable at its IRI.
  const fault = identifierFault(resource, restored.id);
  if (fault !== undefined) throw validationFailed([identifierViolation(id.name, fault)]);
  item[id.name] = restored.id;
}
