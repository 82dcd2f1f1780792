/**
 * The default persistence, as API Platform's persist processor: stores or removes one item. The "write" stage
 * and custom code (`ctx.persist`, `ctx.remove`) go through `persistItem`/`removeItem`, which record the committed
 * change for the "publish" stage; message handlers through `storePersistence`, which publishes it at once.
 * Both store an item the same way (`storeItem`) and delete with the referential actions (`deleteItem`).
 */
import type { Persistence } from '../../messenger/index.js';
import type { ResourceMetadata } from '../../metadata/types.js';
import { HttpError, preconditionFailed } from '../../protocol/errors.js';
import { iriResolver } from '../../protocol/iri.js';
import { MissingReferenceError, StoreConflictError, type Collection, type Id, type Item } from '../../store/types.js';
import { refusingConflicts } from './conflicts.js';
import { deleteItem } from '../relations/referential-actions.js';
import { checkRelations, storeTargets } from '../relations/targets.js';
import { writeNested } from '../relations/nested-writes.js';
import { droppedOwned } from '../relations/owned-items.js';
import { isItem, type OperationState, type WriteCondition } from '../state.js';
import { type Runtime } from '../runtime.js';
import { publishChange, publishingOperation } from './mercure-updates.js';
import { enforceWriteScope } from '../scopes.js';
import { messageWriteGuard } from './message-scopes.js';
import { inCodeTransaction } from './custom-writes.js';

export { refusingConflicts };

/** The item's identifier value, undefined when it has none yet (the store assigns it). */
const idOf = (resource: ResourceMetadata, item: Item): Id | undefined => {
  const v = resource.identifier ? item[resource.identifier.name] : undefined;
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
};

/** Stores an item: inserted when it has no identifier, else created or replaced. */
function storeItem(
  collection: Collection,
  resource: ResourceMetadata,
  item: Item,
): Promise<{ item: Item; created: boolean }> {
  const id = idOf(resource, item);
  return refusingConflicts(async () =>
    id === undefined ? { item: await collection.insert(item), created: true } : collection.upsert(id, item),
  );
}

/**
 * Confirms, once the item is stored, that the related items it names newly are still there (docs/behaviour.md,
 * "Writes racing a delete"); when one is gone, `undo` takes the write back and the answer is the 400 of an unknown
 * IRI. The check before the write (targets.ts) and the store are two steps: a delete may run between them, and its
 * own look for late referrers (referential-actions.ts) may run before this write lands; this look, after it,
 * closes that gap. It waits for a delete of a target still in flight (`settled`): a delete that already looked for
 * late referrers but has not committed must not be read through.
 */
async function confirmTargets(
  state: OperationState,
  saved: Item,
  previous: Item | null,
  undo: () => Promise<unknown>,
): Promise<void> {
  const { api, collectionOf } = state.runtime;
  try {
    await checkRelations(state.operation.resource, saved, previous, storeTargets(iriResolver(api), collectionOf, true));
  } catch (e) {
    if (e instanceof HttpError) await undo();
    throw e;
  }
}

/** Records a committed change for the "publish" stage. */
export const committed = (state: OperationState, kind: 'saved' | 'removed', item: Item): void => {
  (state.changes ??= []).push({ kind, item });
};

/**
 * Stores an item: created when it is new, else replaced (the default write of any method). The request's own item
 * under a conditional request (custom code's `ctx.persist` of it too) is written only while the condition holds.
 */
export async function persistItem(state: OperationState, item: Item): Promise<Item> {
  const condition = conditionOn(state, item);
  if (condition) return persistConditionally(state, item, condition);
  const collection = state.storeCollection;
  const resource = state.operation.resource;
  const { item: saved, created } = await storeItem(collection, resource, item);
  const id = idOf(resource, saved)!;
  // The stored version this write replaced, when the operation read it (custom code may persist another item).
  const read = isItem(state.previousData) ? state.previousData : null;
  const previous = read && idOf(resource, read) === id ? read : null;
  // The undo stores the previous version back even when the delete's cascade took the item meanwhile (it did so
  // only for the reference this write is refused for).
  if (created || previous)
    await confirmTargets(state, saved, previous, () =>
      previous ? collection.upsert(id, previous) : collection.delete(id),
    );
  if (created && state.operation.method === 'PUT') state.created = true;
  committed(state, 'saved', saved);
  return saved;
}

/** The request's condition (preconditions.ts) when `item` is the item it is about (by identifier), else none. */
function conditionOn(state: OperationState, item: Item): WriteCondition | undefined {
  const { condition, operation } = state;
  const { resource } = operation;
  const id = idOf(resource, item);
  if (!condition || id === undefined) return undefined;
  const about = condition.expected
    ? idOf(resource, condition.expected)
    : state.uriVariables[resource.identifier?.name ?? ''];
  return about !== undefined && String(about) === String(id) ? condition : undefined;
}

/**
 * The write of a conditional request, atomic with its condition: replaces the item only while it is still stored
 * as the `If-Match` named, creates it only while none exists (`If-None-Match: *`); else 412 and nothing written.
 */
async function persistConditionally(state: OperationState, item: Item, condition: WriteCondition): Promise<Item> {
  const { resource } = state.operation;
  const id = idOf(resource, item);
  let saved: Item | null;
  if (condition.absent) {
    saved = await refusingConflicts(() =>
      state.storeCollection.insert(item).catch((e: unknown) => {
        if (e instanceof StoreConflictError && !(e instanceof MissingReferenceError)) return null;
        throw e;
      }),
    );
    if (saved) state.created = true;
  } else
    saved =
      id === undefined
        ? null
        : await refusingConflicts(() => state.storeCollection.replace(id, item, condition.expected));
  if (!saved)
    throw preconditionFailed(
      condition.absent
        ? 'The item exists (If-None-Match: *): nothing was written.'
        : 'The item changed since the version the request names (If-Match): nothing was written.',
    );
  committed(state, 'saved', saved);
  return saved;
}

/** Inserts a new item, whatever its identifier (a POST: an identifier in use answers 409). */
export async function insertItem(state: OperationState, item: Item): Promise<Item> {
  const saved = await refusingConflicts(() => state.storeCollection.insert(item));
  await confirmTargets(state, saved, null, () => state.storeCollection.delete(idOf(state.operation.resource, saved)!));
  committed(state, 'saved', saved);
  return saved;
}

/**
 * Stores the item (by `store`: insertItem or persistItem) with the related items its body's nested documents
 * write, all or nothing (relations/nested-writes.ts); each related item stored is a committed change of its resource.
 * An update also deletes the items it dropped from its `owned` relations, after storing the item and in the same
 * transaction where the store has them (relations/owned-items.ts).
 */
export async function withNestedWrites(state: OperationState, store: (item: Item) => Promise<Item>): Promise<Item> {
  const writes = state.nestedWrites ?? [];
  const item = state.data as Item;
  const resource = state.operation.resource;
  const previous = isItem(state.previousData) ? state.previousData : null;
  const owns = previous !== null && resource.properties.some((p) => p.owned);
  if (!writes.length && !owns) return store(item);
  // The nested changes' securityPostValidation (target-access.ts), after validation and before any write.
  for (const w of writes) await w.postValidation?.();
  const storeAll = async (settled: Item): Promise<Item> => {
    // The item's write scope, held off by the write stage until its relations name the related items stored.
    if (writes.length) await enforceWriteScope(state, null, settled);
    const saved = await store(settled);
    if (owns) await removeOrphans(state, saved, previous);
    return saved;
  };
  const { result, saved } = await refusingConflicts(() => writeNested(state.runtime, writes, item, resource, storeAll));
  for (const s of saved) (state.changes ??= []).push({ kind: 'saved', item: s.item, resource: s.resource });
  return result;
}

/**
 * Deletes the owned items an update dropped, each with the referential actions of its own referrers; inside the
 * write's transaction (none is opened here). Without one (MongoDB) the owner is stored first: an orphan delete a
 * `restrict` refuses (409) then leaves the owner changed and that item in place.
 */
async function removeOrphans(state: OperationState, saved: Item, previous: Item): Promise<void> {
  const { api, collectionOf } = state.runtime;
  const iris = iriResolver(api);
  for (const { target, iri } of droppedOwned(api, state.operation.resource, saved, previous)) {
    const id = iris.identifierOf(target, iri);
    const orphan = id === undefined ? null : await collectionOf(target).get(id);
    if (!orphan) continue;
    for (const write of await deleteItem({ api, collectionOf, transaction: undefined }, target, orphan))
      (state.changes ??= []).push({ kind: write.kind, item: write.item, resource: write.resource });
  }
}

/**
 * Removes an item, with the referential actions its referrers' relations declare (409 on a `restrict`); the
 * request's own item under a conditional request only while it is still stored as the `If-Match` named (else 412).
 */
export async function removeItem(state: OperationState, item: Item): Promise<void> {
  const resource = state.operation.resource;
  const expected = conditionOn(state, item)?.expected;
  for (const write of await deleteItem(state.runtime, resource, item, expected))
    (state.changes ??= []).push({
      kind: write.kind,
      item: write.item,
      ...(write.resource === resource ? {} : { resource: write.resource }),
    });
}

/**
 * The persistence offered to message handlers (`ctx.persist`, `ctx.remove`): items of the message's class stored
 * in, or removed from, its collection, each change published as its resource publishes once committed.
 */
export function storePersistence(runtime: Omit<Runtime, 'bus' | 'close'>): Persistence {
  const { api, logger } = runtime;
  const resourceOf = (messageClass: string): ResourceMetadata => {
    const resource = api.resource(messageClass);
    if (!resource) throw new Error(`no resource named ${messageClass} to persist into`);
    return resource;
  };
  const publish = (resource: ResourceMetadata, kind: 'saved' | 'removed', item: Item, origin?: string): void => {
    const op = publishingOperation(api, resource);
    if (op) publishChange(runtime, op, { kind, item }, origin, logger);
  };
  return {
    async persist(messageClass, item, origin) {
      const resource = resourceOf(messageClass);
      const { item: saved } = await storeItem(runtime.collectionOf(resource), resource, item);
      publish(resource, 'saved', saved, origin);
      return saved;
    },
    async remove(messageClass, item, origin) {
      const resource = resourceOf(messageClass);
      // The referential actions of the relations to it apply as on an HTTP delete (a restrict throws its 409).
      for (const write of await deleteItem(runtime, resource, item))
        publish(write.resource, write.kind, write.item, origin);
    },
    guard: (envelope) => messageWriteGuard(runtime, envelope),
    async withCalls(origin, handler) {
      // Without the store's transaction: a handler may run long (remote calls, retries), and on SQLite an open
      // transaction would hold the database's write lock, for the other processes too. Its writes are undone
      // when it throws instead, on every store.
      const untransacted = { ...runtime, transaction: undefined };
      const { result, changes } = await inCodeTransaction(untransacted, (session) => handler(session.calls));
      for (const change of changes) publish(change.resource, change.kind, change.item, origin);
      return result;
    },
  };
}
