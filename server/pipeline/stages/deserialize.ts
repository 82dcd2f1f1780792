/**
 * Stage "deserialize": checks the request's Content-Type (PATCH: only the `patch_formats`),
 * reads the body within the size limit, parses it and denormalizes it into the item — a new
 * one (POST), the read item with the body's keys replaced (apidsl's PUT) or merged (PATCH,
 * RFC 7396).
 */
import { badRequest, notFound, type Violation } from '../../protocol/errors.js';
import { routeIdentifier } from '../../protocol/identifier.js';
import { iriResolver, itemIri, type IriResolver } from '../../protocol/iri.js';
import { checkInputType } from '../../protocol/negotiation.js';
import { readsItem, takesBody } from '../../metadata/operation-facts.js';
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import { acceptedProperties, allowsExtraAttributes, denormalizationGroups } from '../../metadata/property-access.js';
import { denormalize, type DenormalizeMode } from '../representation/denormalize.js';
import { iriOperation } from '../representation/normalize.js';
import { JSONAPI_MEDIA_TYPE, requestBody as jsonApiRequestBody } from '../representation/jsonapi.js';
import { setServerValues, type ServerValueMode } from '../representation/server-values.js';
import {
  restoreIdentifier,
  restoreValues,
  splitRecord,
  type RestoredRecord,
} from '../representation/restored-values.js';
import { checkRelations, storeTargets, type StoredTargets } from '../relations/targets.js';
import { NestedDocuments } from '../relations/nested-writes.js';
import type { TargetAccess } from '../relations/target-access.js';
import type { Item } from '../../store/types.js';
import { factsOf } from '../guards.js';
import { writesRelativeIris } from '../representation/url-generation.js';
import { validationFailed } from '../validation/violations.js';
import { isItem, type OperationState } from '../state.js';
import { bodyTooLarge, storeUnavailable, type Answers } from '../answers.js';
import { keepUnreadableMembers } from '../scoped-members.js';
import { readableCollectionOf } from '../scopes.js';

const PATCH_DISABLED =
  'PATCH is not enabled: list its media types in the patch_formats setting of config (e.g. patch_formats: ["application/merge-patch+json"]).';

/** Whether the stage has anything to do: a POST, PUT or PATCH whose `deserialize` and `input` are not false. */
export const deserializes = perOperation(
  (op, settings): boolean =>
    takesBody(op.method) && optionValue(op, settings, 'deserialize') !== false && optionValue(op, 'input') !== false,
);

/** Whether the operation reads a body: it deserializes one, and is no PATCH while `patch_formats` is empty. */
export const readsBody = (op: OperationMetadata, settings: Settings): boolean =>
  deserializes(op, settings) && !(op.method === 'PATCH' && settings.patchFormats.length === 0);

/**
 * A body of the wrong type, too large or not the item; a PUT's identifier no item can have; the store out of reach
 * when the body names related items.
 */
export const deserializeAnswers: Answers = (op, api) => {
  const settings = api.settings;
  if (!deserializes(op, settings)) return [];
  if (!readsBody(op, settings))
    return [
      {
        status: 415,
        description: 'PATCH is not enabled: the patch_formats setting is empty, so every PATCH answers 415.',
      },
    ];
  const collects = optionValue(op, settings, 'collectDenormalizationErrors') === true;
  return [
    { status: 400, description: 'Invalid input: malformed JSON, a value of the wrong type or an invalid IRI.' },
    ...(op.method === 'PUT' && readsItem(op)
      ? [{ status: 404, description: `${op.shortName} resource not found.` }]
      : []),
    bodyTooLarge(api),
    { status: 415, description: 'Missing or unsupported Content-Type.' },
    // collectDenormalizationErrors: type errors and dangling relations as violations.
    ...(collects
      ? [{ status: 422, description: 'Validation failed (constraint violations).', violations: true as const }]
      : []),
    // The IRIs of relations name items the store is asked for (relations/targets.ts), even without a write.
    ...(op.resource.properties.some((p) => p.relation) ? [storeUnavailable()] : []),
  ];
};

export async function deserialize(state: OperationState): Promise<void> {
  const op = state.operation;
  const settings = state.api.settings;
  if (!takesBody(op.method)) return;
  if (optionValue(op, settings, 'deserialize') === false || optionValue(op, 'input') === false) return;
  // patch_formats govern HTTP media types; an adapter handing values (GraphQL's update) merges as PATCH does.
  if (op.method === 'PATCH' && state.representation.kind !== 'values')
    checkInputType(state.contentType, settings.patchFormats, PATCH_DISABLED);
  else checkInputType(state.contentType, Object.values(settings.formats).flat());
  await applyBody(state, await state.readJsonBody('Syntax error'));
}

/** How `applyBody` takes a body besides a request's: an imported record (pipeline/import.ts). */
export interface BodyOptions {
  /**
   * The body is a record the administrator's import restores (representation/restored-values.ts): its identifier
   * and the values the server sets are kept, every property a POST could ever write is read (no denormalization
   * groups, so no nested documents), and the targets' read rules are not evaluated.
   */
  restore?: true;
  /** Where the relation IRIs are looked up (a batch's read-ahead); default: the store, one query per IRI. */
  targets?: StoredTargets;
}

/** Denormalizes a parsed request body into the item `state.data` (also each item of a bulk POST, of an import). */
export async function applyBody(state: OperationState, received: unknown, options: BodyOptions = {}): Promise<void> {
  const op = state.operation;
  const settings = state.api.settings;
  const restored = options.restore ? splitRecord(op.resource, received) : undefined;
  let body = restored ? restored.body : received;
  state.request.body = body;
  const dropped: string[] = [];
  if (state.contentType?.split(';')[0].trim().toLowerCase() === JSONAPI_MEDIA_TYPE)
    body = jsonApiRequestBody(op.resource, body, dropped);
  const previous = isItem(state.previousData) ? state.previousData : null;
  let mode: DenormalizeMode = op.method === 'PUT' || previous ? 'replace' : 'create';
  if (op.method === 'PATCH') mode = 'merge-patch';
  // collectDenormalizationErrors: type errors and dangling relations, all in one 422.
  const collected = optionValue(op, settings, 'collectDenormalizationErrors') === true ? [] : undefined;
  const iris = bodyIris(state);
  // The write's time, the same for the item and the items nested in it (`default: now`, `onUpdate: now`).
  const now = new Date();
  const access = targetAccess(state, iris, previous, options.restore);
  const nested = restored ? undefined : nestedDocuments(state, mode, access, previous, collected, now);
  const item = denormalize(op.resource, body, mode, previous, iris, {
    accepted: restored ? undefined : acceptedProperties(op, settings),
    collected,
    nested: nested?.take,
    // GraphQL's input types already refuse any field the operation does not take (extraArgs are not attributes).
    extraAttributes: {
      allowed: state.representation.kind === 'values' || allowsExtraAttributes(op, settings),
      dropped,
    },
  });
  if (restored) restoreValues(item, restored, iris);
  // A to-many list sent back keeps the members its writer cannot see (docs/scopes.md, "To-many members").
  else if (previous) await keepUnreadableMembers(state.api, readableCollectionOf(state), op.resource, item, previous);
  await setServerValues(op.resource, item, serverValueMode(previous, restored), () => factsOf(state), iris, now);
  if (restored) restoreIdentifier(op.resource, item, restored);
  if (nested?.found) {
    refuseNestedWrites(state);
    await nested.resolve();
  }
  const targets = options.targets ?? storeTargets(iris, state.runtime.collectionOf);
  await checkRelations(op.resource, item, previous, targets, collected, nested?.tokens, access);
  if (collected?.length) throw validationFailed(collected);
  if (nested?.writes.length) state.nestedWrites = nested.writes;
  const id = op.resource.identifier;
  if (id && previous) item[id.name] = previous[id.name];
  else if (id && op.method === 'PUT' && state.uriVariables[id.name] !== undefined) {
    // PUT with allowCreate creates the item with the identifier of the URI; a URI that names no item
    // (`/books/0`, a requirement not met) creates none.
    const value = routeIdentifier(op.resource, state.uriVariables[id.name], true);
    if (value === undefined) throw notFound();
    item[id.name] = value;
  }
  if (op.method === 'PUT' && isItem(body) && Object.hasOwn(body, '@id'))
    checkReplacedIri(state, body['@id'], item, iris);
  state.data = item;
}

function serverValueMode(previous: Item | null, restored: RestoredRecord | undefined): ServerValueMode {
  if (restored) return 'restore';
  return previous ? 'update' : 'create';
}

/**
 * The nested documents a body may hold (relations/nested-writes.ts): only where the operation names
 * denormalization groups, in JSON-LD and JSON bodies (JSON:API keeps its relationships; GraphQL its inputs).
 */
function nestedDocuments(
  state: OperationState,
  mode: DenormalizeMode,
  access: TargetAccess,
  previous: Item | null,
  collected: Violation[] | undefined,
  now: Date,
): NestedDocuments | undefined {
  const groups = denormalizationGroups(state.operation, state.api.settings);
  const type = state.contentType?.split(';')[0].trim().toLowerCase();
  if (!groups || state.representation.kind === 'values' || type === JSONAPI_MEDIA_TYPE) return undefined;
  return new NestedDocuments({
    api: state.api,
    iris: access.iris,
    collectionOf: state.runtime.collectionOf,
    groups,
    mode,
    jsonld: type === 'application/ld+json',
    facts: () => factsOf(state),
    access,
    previous,
    collected,
    allowsExtraAttributes: allowsExtraAttributes(state.operation, state.api.settings),
    now,
  });
}

/** What the relations' checks of the writer's access need (relations/target-access.ts): the request, the item written. */
function targetAccess(
  state: OperationState,
  iris: IriResolver,
  previous: Item | null,
  administrator: true | undefined,
): TargetAccess {
  const resource = state.operation.resource;
  const id = previous && resource.identifier ? previous[resource.identifier.name] : undefined;
  return {
    api: state.api,
    iris,
    collectionOf: state.runtime.collectionOf,
    facts: () => factsOf(state),
    self: { resource, id: typeof id === 'number' || typeof id === 'string' ? id : undefined },
    ...(administrator && { administrator }),
  };
}

/**
 * Nested documents are written by the default persistence, with the item (stages/write.ts): an operation that
 * writes otherwise (a processor, a controller, the bus alone, `write: false`) or a bulk POST refuses them.
 */
function refuseNestedWrites(state: OperationState): void {
  const why = notWrittenByDefault(state);
  if (why) throw badRequest(`Nested documents cannot be written here (${why}). Use IRIs instead.`);
}

/** Why the default persistence does not store this request's item, undefined when it does. */
function notWrittenByDefault(state: OperationState): string | undefined {
  const op = state.operation;
  const messenger = optionValue(op, state.api.settings, 'messenger');
  if (state.representation.kind === 'batch-member') return 'a bulk POST stores its items together';
  if (op.controller || op.processor) return 'the operation writes through its own code';
  if (messenger && messenger !== 'persist') return 'the operation hands its item to the message bus';
  if (optionValue(op, state.api.settings, 'write') === false) return 'the operation writes nothing';
  return undefined;
}

/**
 * A PUT body may carry the `@id` of the item it replaces, and nothing else: an `@id` naming another
 * item or another resource is refused (400) rather than ignored, as API Platform does.
 */
function checkReplacedIri(
  state: OperationState,
  sent: unknown,
  item: Record<string, unknown>,
  iris: IriResolver,
): void {
  const expected = itemIri(state.operation.resource, item, iriOperation(state.operation), state.uriVariables);
  if (typeof sent === 'string' && iris.path(sent) === expected) return;
  const shown = typeof sent === 'string' ? sent : JSON.stringify(sent);
  throw badRequest(
    `Invalid IRI "${shown}": a PUT body's "@id" must be the IRI of the item it replaces ("${expected}").`,
  );
}

/**
 * How the body's IRIs are read: as paths or URLs, and, where the API writes relative IRIs (REL_PATH), as
 * references relative to the request's path, the way a client resolving the IRIs it read writes them.
 */
function bodyIris(state: OperationState): IriResolver {
  const iris = iriResolver(state.api);
  return writesRelativeIris(state.api) ? iris.at(state.path) : iris;
}
