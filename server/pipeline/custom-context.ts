/**
 * The context custom code receives (docs/language.md; types/apidsl.d.ts): the operation, URI variables,
 * filters, the request (with its attributes Map), the data at hand, the user, the default persistence as
 * `persist`/`remove`, and the calls on any resource (`get`, `find`, `persist`, `remove`, `increment`, `violation`;
 * writes/custom-writes.ts).
 */
import type { OperationKind } from '../../grammar/catalogue/types.js';
import type { OperationMetadata } from '../metadata/types.js';
import type { SecurityUser } from '../expression/evaluate.js';
import type { Id, Item } from '../store/types.js';
import { valuesOf, type OperationState, type PublicRequest } from './state.js';
import { storedForm } from './representation/denormalize.js';
import { persistItem, removeItem } from './writes/persist.js';
import { crossResourceSession, type CrossResourceSession, type FindOptions } from './writes/custom-writes.js';

export interface PublicOperation {
  name: string;
  kind: OperationKind;
  method: string;
  uriTemplate: string;
  resource: string;
  options: Readonly<Record<string, unknown>>;
}

export interface CustomContext {
  operation: PublicOperation;
  uriVariables: Record<string, string>;
  filters: Record<string, unknown>;
  request: PublicRequest;
  data: unknown;
  previousData: unknown;
  /** The authenticated user, null for an anonymous request. */
  user: SecurityUser | null;
  /** A GraphQL operation's arguments (none for REST). */
  args?: Record<string, unknown>;
  /**
   * Items of the operation's resource whose properties equal `equal` (every item for `{}`), at most `limit`;
   * or, given a resource name first, that resource's items matching `criteria`, with `{ limit, order }`.
   */
  find(equal?: Record<string, unknown>, limit?: number): Promise<Item[]>;
  find(resource: string, criteria?: Record<string, unknown>, options?: FindOptions): Promise<Item[]>;
  /** The stored item of `resource` with this identifier, or null. */
  get(resource: string, id: Id): Promise<Item | null>;
  /** The default write of the operation's item, or (a resource name first) a store of that resource's item. */
  persist(data: Item): Promise<Item>;
  persist(resource: string, item: Item): Promise<Item>;
  remove(data: Item): Promise<void>;
  remove(resource: string, id: Id): Promise<void>;
  /** Adds `delta` to a number property atomically; 409 and nothing written when it would go below `min`. */
  increment(resource: string, id: Id, property: string, delta: number, options?: { min?: number }): Promise<Item>;
  /** Throws the 422 of a violation at `path`, as validation does. */
  violation(path: string, message: string): never;
}

export function publicOperation(op: OperationMetadata): PublicOperation {
  return {
    name: op.name,
    kind: op.kind,
    method: op.method,
    uriTemplate: op.path,
    resource: op.resource.shortName,
    options: op.options,
  };
}

/**
 * The context of `state`'s custom code; `session` records its writes on any resource (a processor's or
 * controller's session runs in the write's transaction, stages/write.ts).
 */
export function customContext(
  state: OperationState,
  session: CrossResourceSession = crossResourceSession(state.runtime),
): CustomContext {
  const { calls } = session;
  const resource = state.operation.resource;
  return {
    operation: publicOperation(state.operation),
    uriVariables: state.uriVariables,
    filters: state.request.query,
    request: state.request,
    data: state.data,
    previousData: state.previousData,
    user: state.principal.user,
    ...(valuesOf(state)?.args ? { args: valuesOf(state)!.args } : {}),
    find: (
      first?: Record<string, unknown> | string,
      second?: Record<string, unknown> | number,
      options?: FindOptions,
    ) =>
      typeof first === 'string'
        ? calls.find(first, second as Record<string, unknown> | undefined, options)
        : calls.find(resource.shortName, first, typeof second === 'number' ? { limit: second } : {}),
    get: calls.get,
    persist: (first: Item | string, item?: Item) => {
      if (typeof first === 'string') return calls.persist(first, item!);
      return undoable(session, state, first, () => persistItem(state, storedForm(resource, first)));
    },
    remove: (first: Item | string, id?: Id) => {
      if (typeof first === 'string') return calls.remove(first, id!);
      return undoable(session, state, first, () => removeItem(state, first));
    },
    increment: calls.increment,
    violation: calls.violation,
  };
}

/**
 * A write of the operation's own item (the one-argument `persist`/`remove`), with its undo registered in the
 * session: the item put back as it was, or deleted when it was new.
 */
async function undoable<T>(
  session: CrossResourceSession,
  state: OperationState,
  item: Item,
  write: () => Promise<T>,
): Promise<T> {
  const { resource } = state.operation;
  const key = resource.identifier ? item[resource.identifier.name] : undefined;
  const id = typeof key === 'number' || typeof key === 'string' ? key : undefined;
  const previous = id === undefined ? null : await state.storeCollection.get(id);
  const result = await write();
  const stored = (result ?? previous) as Item | null;
  const storedKey = stored && resource.identifier ? stored[resource.identifier.name] : id;
  if (typeof storedKey === 'number' || typeof storedKey === 'string')
    session.undo.push(() =>
      previous ? state.storeCollection.upsert(storedKey, previous) : state.storeCollection.delete(storedKey),
    );
  return result;
}
