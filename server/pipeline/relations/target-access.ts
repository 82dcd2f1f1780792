/**
 * What a write may do to the existing items its relations name (docs/behaviour.md, "Access to related items"):
 * attaching one by IRI needs read access to it (its resource's item Get `security`), refused as an unknown IRI is
 * so that a denied item's existence does not show; changing one through a nested document with `@id` needs what a
 * PATCH of it needs (its resource's Patch guards, stage by stage, with their messages). An item an `owned`
 * relation of another item lists can be neither attached nor changed (owned-items.ts).
 */
import { badRequest } from '../../protocol/errors.js';
import { itemOperation, type IriResolver } from '../../protocol/iri.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { resourceOption } from '../../metadata/options.js';
import { compileGuard } from '../../expression/guard.js';
import type { CompiledExpression } from '../../expression/evaluate.js';
import { accessDenied, allows, scopeContext, type RequestFacts } from '../../security/access.js';
import { matchesAll } from '../../store/matching.js';
import {
  changingOperation,
  operationScope,
  relatedLookup,
  writeScopeCheck,
  type OperationScope,
  type WriteScopeCheck,
} from '../scopes.js';
import type { Collection, Item } from '../../store/types.js';
import { guardsOf, type Guard } from '../guards.js';
import { ownedElsewhere, ownershipsOf, type OwnerItem } from './owned-items.js';

/** What the checks need of the request writing the relation. */
export interface TargetAccess {
  api: ApiMetadata;
  iris: IriResolver;
  collectionOf: (resource: ResourceMetadata) => Collection;
  facts: () => RequestFacts;
  /** The item whose relation is written, to tell its own owned items from another's. */
  self?: OwnerItem;
  /**
   * The administrator's import (`apidsl import`, pipeline/import.ts): the targets' read rules are not evaluated,
   * as no security rule is; ownership still holds (it is about the data, not the writer).
   */
  administrator?: true;
}

/**
 * The request's facts, with the URI variables of the target's IRI (as a request to that IRI would have) and the
 * target as the resource `object` is of (its relations are what `object.shop.owner` reads through).
 */
function targetFacts(access: TargetAccess, iri: string, target: ResourceMetadata): RequestFacts {
  return { ...access.facts(), resource: target, uriVariables: { ...(access.iris.match(iri)?.variables ?? {}) } };
}

/**
 * Whether a relation may newly name the stored item `iri`: not an item another item owns (whatever the relation:
 * an owned item is reached through its owner only), and readable by the writer.
 */
export async function mayAttach(
  access: TargetAccess,
  target: ResourceMetadata,
  iri: string,
  item: Item,
): Promise<boolean> {
  if (await ownedElsewhere(access.api, access.collectionOf, target, iri, access.self)) return false;
  // An administrator's import is not scoped (docs/scopes.md, "Not scoped").
  if (!access.administrator && !(await inReadScope(access, target, iri, item))) return false;
  const guard = access.administrator ? undefined : readGuard(access.api, target);
  if (!guard) return true;
  return allows(guard, targetFacts(access, iri, target), item, structuredClone(item));
}

/**
 * Whether `mayAttach` says yes to any item of `target` without looking: no item owns it, no read rule guards it,
 * no read scope narrows it.
 */
export const attachesFreely = (access: TargetAccess, target: ResourceMetadata): boolean =>
  ownershipsOf(access.api, target).length === 0 &&
  (access.administrator || (readGuard(access.api, target) === undefined && !readScopeOf(access, target)));

/** The read scope of the target's item Get, if it has one. */
function readScopeOf(access: TargetAccess, target: ResourceMetadata) {
  const get = itemOperation(target);
  return get ? operationScope(get, access.api)?.read : undefined;
}

/** Whether the item is in the read scope of the target's item Get (docs/scopes.md), for this writer. */
const inReadScope = (access: TargetAccess, target: ResourceMetadata, iri: string, item: Item): Promise<boolean> =>
  inScope(access, readScopeOf(access, target), target, iri, item);

async function inScope(
  access: TargetAccess,
  read: OperationScope['read'],
  target: ResourceMetadata,
  iri: string,
  item: Item,
): Promise<boolean> {
  if (!read) return true;
  const conditions = await read.conditions(scopeContext(targetFacts(access, iri, target)));
  const lookup = relatedLookup(access.api, access.collectionOf);
  return matchesAll(target.storage, item, conditions, lookup);
}

/** Whether the stored item a nested document changes is in the read scope of the operation that would change it. */
export function findableForChange(
  access: TargetAccess,
  target: ResourceMetadata,
  iri: string,
  item: Item,
): Promise<boolean> {
  const op = access.administrator ? undefined : changingOperation(target, 'update');
  return inScope(access, op && operationScope(op, access.api)?.read, target, iri, item);
}

/**
 * The write scope an item written through a nested document holds to, bound to this request (undefined: none):
 * `iri` names the stored item changed, undefined for a new one (whose scope sees no URI variable).
 */
export async function nestedWriteScope(
  access: TargetAccess,
  target: ResourceMetadata,
  iri: string | undefined,
): Promise<WriteScopeCheck | undefined> {
  const op = access.administrator ? undefined : changingOperation(target, iri === undefined ? 'create' : 'update');
  if (!op) return undefined;
  const facts =
    iri === undefined ? { ...access.facts(), resource: target, uriVariables: {} } : targetFacts(access, iri, target);
  return writeScopeCheck(op, access.api, scopeContext(facts), access.collectionOf);
}

const resourceGuards = new WeakMap<ResourceMetadata, CompiledExpression | null>();

/**
 * The read rule of the target's items: its item Get's `security` (the resource's merged in at load); without an
 * exposed Get, the resource's own `security`, which every operation of it would inherit (fail closed).
 */
export function readGuard(api: ApiMetadata, target: ResourceMetadata): CompiledExpression | undefined {
  const get = itemOperation(target);
  if (get && !get.hidden) return guardsOf(get, api.settings).security?.expression;
  let guard = resourceGuards.get(target);
  if (guard === undefined) {
    const source = resourceOption(target, 'security');
    guard = typeof source === 'string' ? compileGuard(source) : null;
    resourceGuards.set(target, guard);
  }
  return guard ?? undefined;
}

/** The guards a nested change of an item of `target` runs: its Patch operation's. */
export interface NestedUpdateGuards {
  /** After the denormalization (`object`: the changed item, `previous_object`: the stored one). */
  postDenormalize(item: Item): Promise<void>;
  /** After validation, before anything is written. */
  postValidation(item: Item): Promise<void>;
}

/**
 * Runs the `security` of the target's Patch on the stored item and hands back its later stages; a target without a
 * Patch operation cannot be changed this way (400: the API offers no change of it).
 */
export async function nestedUpdateGuards(
  access: TargetAccess,
  target: ResourceMetadata,
  iri: string,
  stored: Item,
  path: string,
): Promise<NestedUpdateGuards> {
  const patch = patchOperation(target);
  if (!patch)
    throw badRequest(
      `The nested document "${path}" changes "${iri}", but ${target.shortName} has no Patch operation: its items cannot be changed through another item. Use the IRI alone.`,
    );
  const guards = guardsOf(patch, access.api.settings);
  const facts = targetFacts(access, iri, target);
  const previous = structuredClone(stored);
  await enforce(guards.security, facts, stored, previous);
  return {
    postDenormalize: (item) => enforce(guards.securityPostDenormalize, facts, item, previous),
    postValidation: (item) => enforce(guards.securityPostValidation, facts, item, previous),
  };
}

function patchOperation(resource: ResourceMetadata): OperationMetadata | undefined {
  return resource.operations.find((o) => o.method === 'PATCH' && !o.isCollection);
}

async function enforce(guard: Guard | undefined, facts: RequestFacts, object: Item, previous: Item): Promise<void> {
  if (guard && !(await allows(guard.expression, facts, object, previous)))
    throw accessDenied(facts.principal, guard.message);
}
