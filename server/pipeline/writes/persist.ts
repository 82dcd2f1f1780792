/**
 * The default persistence, as API Platform's persist processor: stores or removes one item. The "write" stage
 * and custom code (`ctx.persist`, `ctx.remove`) go through `persistItem`/`removeItem`, which record the committed
 * change for the "publish" stage; message handlers through `storePersistence`, which publishes it at once.
 * Both store an item the same way (`storeItem`) and delete with the referential actions (`deleteItem`).
 */
import type { Persistence } from '../../messenger/index.js';
import type { ResourceMetadata } from '../../metadata/types.js';
import { HttpError } from '../../protocol/errors.js';
import { StoreConflictError, UniqueConflictError, type Collection, type Id, type Item } from '../../store/types.js';
import { validationFailed, violation } from '../validation/violations.js';
import { deleteItem } from '../relations/referential-actions.js';
import { writeNested } from '../relations/nested-writes.js';
import type { OperationState, Runtime } from '../state.js';
import { publishChange, publishingOperation } from './mercure-updates.js';

/** The item's identifier value, undefined when it has none yet (the store assigns it). */
const idOf = (resource: ResourceMetadata, item: Item): Id | undefined => {
  const v = resource.identifier ? item[resource.identifier.name] : undefined;
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
};

/**
 * Runs a store write. A value of a `unique` property list that another item holds answers 422 with
 * UniqueEntity's violation on the list's first property (its `errorPath` default); a chosen identifier
 * another item holds answers 409.
 */
export async function refusingConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof UniqueConflictError) {
      // In a bulk write the path names the item, as its other violations do (`[3].sku`).
      const path = e.index === undefined ? e.fields[0]! : `[${e.index}].${e.fields[0]!}`;
      throw validationFailed([violation(path, 'UniqueEntity')]);
    }
    if (e instanceof StoreConflictError) throw new HttpError(409, e.message);
    throw e;
  }
}

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

/** Records a committed change for the "publish" stage. */
export const committed = (state: OperationState, kind: 'saved' | 'removed', item: Item): void => {
  (state.changes ??= []).push({ kind, item });
};

/** Stores an item: created when it is new, else replaced (the default write of any method). */
export async function persistItem(state: OperationState, item: Item): Promise<Item> {
  const { item: saved, created } = await storeItem(state.storeCollection, state.operation.resource, item);
  if (created && state.operation.method === 'PUT') state.created = true;
  committed(state, 'saved', saved);
  return saved;
}

/** Inserts a new item, whatever its identifier (a POST: an identifier in use answers 409). */
export async function insertItem(state: OperationState, item: Item): Promise<Item> {
  const saved = await refusingConflicts(() => state.storeCollection.insert(item));
  committed(state, 'saved', saved);
  return saved;
}

/**
 * Stores the item (by `store`: insertItem or persistItem) with the related items its body's nested documents
 * write, all or nothing (relations/nested-writes.ts); each related item stored is a committed change of its resource.
 */
export async function withNestedWrites(state: OperationState, store: (item: Item) => Promise<Item>): Promise<Item> {
  const writes = state.nestedWrites;
  const item = state.data as Item;
  if (!writes?.length) return store(item);
  const { result, saved } = await refusingConflicts(() =>
    writeNested(state.runtime, writes, item, state.operation.resource, store),
  );
  for (const s of saved) (state.changes ??= []).push({ kind: 'saved', item: s.item, resource: s.resource });
  return result;
}

/** Removes an item, with the referential actions its referrers' relations declare (409 on a `restrict`). */
export async function removeItem(state: OperationState, item: Item): Promise<void> {
  const resource = state.operation.resource;
  for (const write of await deleteItem(state.runtime, resource, item))
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
export function storePersistence(runtime: Omit<Runtime, 'bus'>): Persistence {
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
  };
}
