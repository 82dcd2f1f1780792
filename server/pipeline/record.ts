/**
 * A record of a data file (`apidsl import`) made into an item as a POST body is, in the order the
 * pipeline runs: recordItem() denormalizes it in create mode (types, defaults, relation IRIs resolved
 * against the routes: the 400s), the caller checks that its relations name stored items (relations/targets.ts),
 * then checkRecordConstraints() applies the constraints of the resource's Post operation (the 422).
 * One difference: a given identifier is kept even when the property is read-only, so that an export
 * imports back with its identifiers.
 */
import { HttpError } from '../protocol/errors.js';
import type { ApiMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Item } from '../store/types.js';
import { identifierFault } from '../protocol/identifier.js';
import { iriResolver } from '../protocol/iri.js';
import { denormalize, identifierViolation } from './representation/denormalize.js';
import { isItem } from './state.js';
import { validationGroups } from './stages/validate.js';
import { validateItem } from './validation/constraints.js';
import { validationFailed } from './validation/violations.js';

/** The item `record` makes before its constraints; throws the HttpError (400) a POST of the same body would answer. */
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
  return item;
}

/**
 * Throws the 422 a POST would answer for the item's constraints: those of the validation groups of the
 * resource's Post operation (`Default` when it declares none), none when that operation says `validate: false`.
 */
export function checkRecordConstraints(api: ApiMetadata, resource: ResourceMetadata, item: Item): void {
  const post = resource.operations.find((op) => op.kind === 'Post' && !op.hidden);
  const groups = post ? validationGroups(post, api.settings) : ['Default'];
  if (!groups) return;
  const violations = validateItem(resource, item, groups);
  if (violations.length > 0) throw validationFailed(violations);
}
