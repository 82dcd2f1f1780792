/**
 * Row-level scopes at run time (docs/scopes.md): an operation's `scope` compiled once (server/expression/scope.ts),
 * the store collection a request reads through (every read adds the read scope's conditions for that request), and
 * the write scope a write must hold to for the stored item and for the item it would store (403, nothing stored).
 */
import type { SecurityContext } from '../expression/evaluate.js';
import { scopeSources } from '../../grammar/scope-plan.js';
import { compileScope, type CompiledScope, type ResolvedScopePath } from '../expression/scope.js';
import { optionValue, perOperation } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { fieldType } from '../metadata/load-property.js';
import { HttpError } from '../protocol/errors.js';
import { routeIdentifier } from '../protocol/identifier.js';
import { itemKeyPrefix } from '../metadata/item-iris.js';
import { itemOperation } from '../protocol/iri.js';
import { scopeContext } from '../security/access.js';
import { matchesAll, type RelatedLookup } from '../store/matching.js';
import { ScopedCollection } from '../store/scoped-collection.js';
import type { Collection, Item } from '../store/types.js';
import { factsOf } from './guards.js';
import type { OperationState } from './state.js';

export interface OperationScope {
  /** Undefined for a scope that limits writes only (`scope { write: "…" }`). */
  read?: CompiledScope;
  write: CompiledScope;
  /** The 403 detail of a write outside the write scope. */
  message: string;
}

/** A scope that cannot be compiled (the checker refuses it first) matches nothing: fail closed. */
const failing = (source: string): CompiledScope => ({
  source,
  conditions: () => Promise.resolve([{ op: 'or', conditions: [] }]),
});

/** The operation's scope (its own, else its resource's), compiled once; undefined when it has none. */
export const operationScope = perOperation((op: OperationMetadata, api: ApiMetadata): OperationScope | undefined => {
  const sources = scopeSources(optionValue(op, 'scope'));
  if (!sources) return undefined;
  const resolve = pathResolver(api, op.resource);
  const compile = (source: string): CompiledScope => {
    try {
      return compileScope(source, op.uriVariables, resolve);
    } catch {
      return failing(source);
    }
  };
  const read = sources.read === undefined ? undefined : compile(sources.read);
  const write = sources.read === sources.write && read ? read : compile(sources.write);
  const message = optionValue(op, 'scopeMessage');
  return { read, write, message: typeof message === 'string' ? message : 'Access Denied.' };
});

/** Resolves `object.shop.owner` from `resource` through to-one relations to a stored field. */
function pathResolver(api: ApiMetadata, resource: ResourceMetadata) {
  return (names: readonly string[]): ResolvedScopePath => {
    const relations: ResolvedScopePath['relations'] = [];
    let at = resource;
    names.forEach((name, i) => {
      const property = at.properties.find((p) => p.name === name);
      if (!property) throw new Error(`'${name}' is not a property of ${at.shortName}`);
      if (i === names.length - 1) return;
      const target = property.relation === undefined ? undefined : api.resource(property.relation);
      if (!target || property.array) throw new Error(`'${name}' of ${at.shortName} is not a to-one relation`);
      relations.push({ field: name, target: target.storage, keyPrefix: keyPrefix(target) });
      at = target;
    });
    const last = at.properties.find((p) => p.name === names.at(-1))!;
    return { relations, field: last.name, type: fieldType(last) };
  };
}

/** The text before the identifier in the IRIs of `target`'s items (`/shops/` of `/shops/{id}`). */
function keyPrefix(target: ResourceMetadata): string {
  const prefix = itemKeyPrefix(target);
  if (prefix === undefined)
    throw new Error(
      `a scope reads through relations to ${target.shortName} only when its item IRIs end with its identifier`,
    );
  return prefix;
}

/** The request's values of the scope: who asks, their roles, the URI variables. */
function contextOf(state: OperationState): SecurityContext {
  return scopeContext(factsOf(state));
}

/** The collection a request reads through: `collection` seen through the read scope, when the operation has one. */
export function scopedCollection(state: OperationState, collection: Collection): Collection {
  const read = operationScope(state.operation, state.api)?.read;
  if (!read) return collection;
  const { storage } = state.operation.resource;
  return new ScopedCollection(collection, storage, () => read.conditions(contextOf(state)));
}

/**
 * The collections of any resource as this request may read them: each through the read scope of the resource's
 * item Get (its items as that Get would find them), made once per resource and request.
 */
export function readableCollectionOf(state: OperationState): (resource: ResourceMetadata) => Collection {
  const made = new Map<ResourceMetadata, Collection>();
  return (resource) => {
    let collection = made.get(resource);
    if (!collection) {
      const get = itemOperation(resource);
      const read = get ? operationScope(get, state.api)?.read : undefined;
      const base = state.runtime.collectionOf(resource);
      collection = read ? new ScopedCollection(base, resource.storage, () => read.conditions(contextOf(state))) : base;
      made.set(resource, collection);
    }
    return collection;
  };
}

/**
 * The collections as a pushed update reads them (Mercure: its reader is not known): a resource whose item Get has a
 * read scope shows no item, so that a related item an update embeds is written as its IRI (fail closed).
 */
export function pushedCollectionOf(
  api: ApiMetadata,
  collectionOf: (resource: ResourceMetadata) => Collection,
): (resource: ResourceMetadata) => Collection {
  return (resource) => {
    const get = itemOperation(resource);
    const base = collectionOf(resource);
    if (!get || !operationScope(get, api)?.read) return base;
    return new ScopedCollection(base, resource.storage, () => Promise.resolve([{ op: 'or', conditions: [] }]));
  };
}

/**
 * Whether a creating PUT names an item the read scope hides: it exists, so creating it would overwrite another
 * user's item. The request answers 404, as for an item it cannot read.
 */
export async function hiddenByScope(state: OperationState, rawId: string | undefined): Promise<boolean> {
  const collection = state.storeCollection;
  if (!(collection instanceof ScopedCollection) || rawId === undefined) return false;
  const id = routeIdentifier(state.operation.resource, rawId, true);
  return id !== undefined && (await collection.unscoped.get(id)) !== null;
}

/**
 * The write scope, for the stored item (`previous`, null for a create) and the item as it would be stored (`next`,
 * null for a delete): a 403 with `scopeMessage` when either leaves it.
 */
export async function enforceWriteScope(state: OperationState, previous: unknown, next: unknown): Promise<void> {
  const check = await writeScopeCheck(state.operation, state.api, contextOf(state), state.runtime.collectionOf);
  if (!check) return;
  for (const item of [previous, next]) await check(item);
}

/** Throws the 403 of a write scope for an item outside it; anything but an item passes (nothing to store). */
export type WriteScopeCheck = (item: unknown) => Promise<void>;

/**
 * The write scope of `op` bound to a request's values, as a check of items; undefined when the operation has no
 * scope. Its relation paths read the related items as stored, inside the write's transaction when it has begun.
 */
export async function writeScopeCheck(
  op: OperationMetadata,
  api: ApiMetadata,
  context: SecurityContext,
  collectionOf: (resource: ResourceMetadata) => Collection,
): Promise<WriteScopeCheck | undefined> {
  const scope = operationScope(op, api);
  if (!scope) return undefined;
  const conditions = await scope.write.conditions(context);
  const lookup = relatedLookup(api, collectionOf);
  return async (item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return;
    if (!(await matchesAll(op.resource.storage, item as Item, conditions, lookup)))
      throw new HttpError(403, scope.message);
  };
}

/**
 * The operation whose scope a change made outside a request of its own answers to (an item written through a
 * nested document, a message handler's write): the resource's Post for a create, its Patch (else Put) for an
 * update, its Delete for a delete, as if the writer had sent that request; else its item Get, which carries the
 * resource's scope.
 */
export function changingOperation(
  resource: ResourceMetadata,
  kind: 'create' | 'update' | 'delete',
): OperationMetadata | undefined {
  const item = (method: string) => resource.operations.find((o) => o.method === method && !o.isCollection);
  let own: OperationMetadata | undefined;
  if (kind === 'create') own = resource.operations.find((o) => o.method === 'POST');
  else own = kind === 'update' ? (item('PATCH') ?? item('PUT')) : item('DELETE');
  return own ?? itemOperation(resource);
}

/** Reads a related item by the key its reference names, unscoped: a scope's path reads the stored relation. */
export function relatedLookup(
  api: ApiMetadata,
  collectionOf: (resource: ResourceMetadata) => Collection,
): RelatedLookup {
  return async (target, key) => {
    const resource = api.resources.find((r) => r.storage.name === target.name);
    if (!resource) return null;
    let decoded: string;
    try {
      decoded = decodeURIComponent(key);
    } catch {
      return null; // a malformed reference names no item
    }
    const id = routeIdentifier(resource, decoded);
    return id === undefined ? null : collectionOf(resource).get(id);
  };
}
