/**
 * The default persistence, as API Platform's persist processor: stores or removes one item and records
 * the committed change for the "publish" stage. The "write" stage and custom code (`ctx.persist`,
 * `ctx.remove`) both go through it.
 */
import { HttpError } from '../../protocol/errors.js';
import { StoreConflictError, type Id, type Item } from '../../store/types.js';
import { deleteItem } from '../relations/referential-actions.js';
import type { OperationState } from '../state.js';

const idOf = (state: OperationState, item: Item): Id | undefined => {
  const name = state.operation.resource.identifier?.name;
  const v = name ? item[name] : undefined;
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
};

/** Records a committed change for the "publish" stage. */
export const committed = (state: OperationState, kind: 'saved' | 'removed', item: Item): void => {
  (state.changes ??= []).push({ kind, item });
};

/** Stores an item: created when it is new, else replaced (the default write of any method). */
export async function persistItem(state: OperationState, item: Item): Promise<Item> {
  const id = idOf(state, item);
  try {
    if (id === undefined) return await insertItem(state, item);
    const { item: saved, created } = await state.storeCollection.upsert(id, item);
    if (created && state.operation.method === 'PUT') state.created = true;
    committed(state, 'saved', saved);
    return saved;
  } catch (e) {
    if (e instanceof StoreConflictError) throw new HttpError(409, e.message);
    throw e;
  }
}

/** Removes an item, with the referential actions its referrers' relations declare (409 on a `restrict`). */
export async function removeItem(state: OperationState, item: Item): Promise<void> {
  const resource = state.operation.resource;
  for (const write of await deleteItem(state, resource, item))
    (state.changes ??= []).push({
      kind: write.kind,
      item: write.item,
      ...(write.resource === resource ? {} : { resource: write.resource }),
    });
}

/** Inserts a new item (a conflict on a unique value is left to the caller). */
export async function insertItem(state: OperationState, item: Item): Promise<Item> {
  const saved = await state.storeCollection.insert(item);
  committed(state, 'saved', saved);
  return saved;
}
