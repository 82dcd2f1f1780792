/**
 * A record of a data file (`apidsl import`) made into an item as a POST body is, in the order the
 * pipeline runs: recordItem() denormalizes it in create mode (types, defaults, relation IRIs resolved
 * against the routes: the 400s), the caller checks that its relations name stored items (relations/targets.ts),
 * then checkRecordConstraints() applies the constraints of the resource's Post operation (the 422).
 * One difference: a given identifier, and a value the server would set, are kept even when the property is
 * read-only, so that an export imports back as it was.
 */
import { HttpError } from '../protocol/errors.js';
import { pino } from 'pino';
import { allowsExtraAttributes } from '../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import { ANONYMOUS, type RequestFacts } from '../security/access.js';
import type { Item } from '../store/types.js';
import { identifierFault } from '../protocol/identifier.js';
import { iriResolver } from '../protocol/iri.js';
import { conformingValue, denormalize, identifierViolation } from './representation/denormalize.js';
import { setByServer, setServerValues } from './representation/server-values.js';
import { isItem } from './state.js';
import { validationGroups } from './stages/validate.js';
import { validateItem } from './validation/constraints.js';
import { validationFailed } from './validation/violations.js';

/**
 * The item `record` makes before its constraints; throws the HttpError (400) a POST of the same body would
 * answer. Values the server sets (`default: now`, `onUpdate: now`, `default: { expression }`) are the record's
 * when it gives them, even read-only: an import restores data; absent ones are filled, an expression with no
 * user (an import has none). Other read-only values are ignored as a POST ignores them; with
 * `allow_extra_attributes: false` on the Post operation, attributes the resource does not declare refuse the record.
 */
export async function recordItem(api: ApiMetadata, resource: ResourceMetadata, record: unknown): Promise<Item> {
  if (!isItem(record)) throw new HttpError(400, 'The input data is misformatted.');
  const id = resource.identifier;
  const given = id && record[id.name] !== undefined && record[id.name] !== null ? record[id.name] : undefined;
  const body = { ...record };
  if (id) delete body[id.name];
  const restored: PropertyMetadata[] = [];
  for (const p of resource.properties) {
    if (!p.readOnly || !Object.hasOwn(body, p.name)) continue;
    if (setByServer(p) && body[p.name] !== null) restored.push(p);
    delete body[p.name];
  }
  const iris = iriResolver(api);
  const post = postOperation(resource);
  const allowed = post === undefined || allowsExtraAttributes(post, api.settings);
  const item = denormalize(resource, body, 'create', null, iris, { extraAttributes: { allowed } });
  for (const p of restored) {
    const value = conformingValue(p, record[p.name], iris);
    if (value === undefined) throw new HttpError(400, `The value of "${p.name}" does not fit its type ${p.type}.`);
    item[p.name] = value;
  }
  await setServerValues(resource, item, 'restore', importFacts(api, resource), iris);
  if (id && given !== undefined) {
    // The rule a client-chosen identifier obeys (protocol/identifier.ts): the item is reachable at its IRI.
    const fault = identifierFault(resource, given);
    if (fault !== undefined) throw validationFailed([identifierViolation(id.name, fault)]);
    item[id.name] = given;
  }
  return item;
}

/** The resource's Post operation, whose rules an imported record obeys. */
const postOperation = (resource: ResourceMetadata): OperationMetadata | undefined =>
  resource.operations.find((op) => op.kind === 'Post' && !op.hidden);

/** What an expression of a default sees during an import: no user, no request (nothing is logged). */
function importFacts(api: ApiMetadata, resource: ResourceMetadata): RequestFacts {
  return {
    security: api.security,
    principal: ANONYMOUS,
    request: { method: 'POST', path: '', query: {}, headers: {} },
    uriVariables: {},
    logger: SILENT,
    operation: `${resource.shortName} (import)`,
  };
}

const SILENT = pino({ enabled: false });

/**
 * Throws the 422 a POST would answer for the item's constraints: those of the validation groups of the
 * resource's Post operation (`Default` when it declares none), none when that operation says `validate: false`.
 */
export function checkRecordConstraints(api: ApiMetadata, resource: ResourceMetadata, item: Item): void {
  const post = postOperation(resource);
  const groups = post ? validationGroups(post, api.settings) : ['Default'];
  if (!groups) return;
  const violations = validateItem(resource, item, groups);
  if (violations.length > 0) throw validationFailed(violations);
}
