/**
 * A record of a data file (`apidsl import`) made into an item exactly as a POST body is: denormalize() in
 * create mode (defaults filled, relations resolved against the routes), then the resource's constraints
 * (validateItem). One difference: a given identifier is kept even when the property is read-only, so
 * that an export imports back with its identifiers.
 */
import { HttpError } from '../protocol/errors.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Item } from '../store/types.js';
import { identifierFault } from '../protocol/identifier.js';
import { iriResolver } from '../protocol/iri.js';
import { denormalize, identifierViolation } from './denormalize.js';
import { isItem } from './state.js';
import { validateItem } from './validate.js';
import { validationFailed } from './violations.js';

/** The item `record` makes; throws the HttpError (400 or 422) a POST of the same body would answer. */
export function recordItem(api: ApiMetadata, resource: ResourceMetadata, record: unknown): Item {
  if (!isItem(record)) throw new HttpError(400, 'The input data is misformatted.');
  const id = resource.identifier;
  const given = id && record[id.name] !== undefined && record[id.name] !== null ? record[id.name] : undefined;
  const body = { ...record };
  if (id) delete body[id.name];
  const item = denormalize(resource, body, 'create', null, iriResolver(api));
  if (id && given !== undefined) {
    // The rule a client-chosen identifier obeys (protocol/identifier.ts): the item is reachable at its IRI.
    const fault = identifierFault(resource, given);
    if (fault !== undefined) throw validationFailed([identifierViolation(id.name, fault)]);
    item[id.name] = given;
  }
  const violations = validateItem(resource, item);
  if (violations.length > 0) throw validationFailed(violations);
  return item;
}
