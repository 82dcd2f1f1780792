/**
 * The calls custom code (processors, controllers, message handlers) makes on any resource: `get`, `find`,
 * `persist`, `remove`, `increment`, `violation` (docs/custom-code.md, "Working across resources"). Every write
 * goes through the runtime's collections (HTTP cache invalidation, search index sync) and deletes through
 * `deleteItem` (referential actions); each is recorded as a change for Mercure. The code runs in one store
 * transaction where the store has them (SQLite); elsewhere (MongoDB) what it wrote is undone, last first, when
 * it throws (compensating writes: readers may see the writes meanwhile).
 */
import type { ResourceMetadata } from '../../metadata/types.js';
import { HttpError } from '../../protocol/errors.js';
import type { Collection, Id, Item } from '../../store/types.js';
import { compensate } from '../relations/compensation.js';
import { deleteItem, type ReferentialWrite } from '../relations/referential-actions.js';
import { validationFailed } from '../validation/violations.js';
import type { Runtime } from '../runtime.js';
import { refusingConflicts } from './conflicts.js';

/** How many times an increment reads and compares-and-sets before it answers 409 (writers kept changing it). */
const INCREMENT_ATTEMPTS = 100;

export interface CrossResourceCalls {
  get(resource: string, id: Id): Promise<Item | null>;
  find(resource: string, criteria?: Record<string, unknown>, options?: FindOptions): Promise<Item[]>;
  persist(resource: string, item: Item): Promise<Item>;
  remove(resource: string, id: Id): Promise<void>;
  increment(resource: string, id: Id, property: string, delta: number, options?: { min?: number }): Promise<Item>;
  violation(path: string, message: string): never;
}

export interface FindOptions {
  limit?: number;
  /** `{ property: 'asc' | 'desc' }`, in the order given. */
  order?: Record<string, 'asc' | 'desc'>;
}

/** A change the calls made: published once the code's writes stand (Mercure, as the write stage's changes). */
export type CrossChange = ReferentialWrite;

/** The calls and what they did: the undo steps of a store without transactions, the changes to publish. */
export interface CrossResourceSession {
  calls: CrossResourceCalls;
  /** How to undo each write made, in order (run last first on a store without transactions). */
  undo: (() => Promise<unknown>)[];
  changes: CrossChange[];
}

type CrossRuntime = Pick<Runtime, 'api' | 'collectionOf' | 'transaction' | 'logger'>;

const idValue = (resource: ResourceMetadata, item: Item): Id | undefined => {
  const v = resource.identifier ? item[resource.identifier.name] : undefined;
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
};

/** The session's calls on `runtime`'s collections. */
export function crossResourceSession(runtime: CrossRuntime): CrossResourceSession {
  const undo: (() => Promise<unknown>)[] = [];
  const changes: CrossChange[] = [];
  const resourceOf = (name: string): ResourceMetadata => {
    const resource = typeof name === 'string' ? runtime.api.resource(name) : undefined;
    if (!resource) throw new Error(`custom code: no resource named ${String(name)}`);
    return resource;
  };
  const calls: CrossResourceCalls = {
    get: (name, id) => runtime.collectionOf(resourceOf(name)).get(id),
    find: (name, criteria = {}, options = {}) =>
      runtime.collectionOf(resourceOf(name)).find({
        where: Object.entries(criteria).map(([field, value]) => ({ op: 'eq', field, value })),
        ...(options.order
          ? { sort: Object.entries(options.order).map(([field, direction]) => ({ field, direction })) }
          : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      }),
    async persist(name, item) {
      const resource = resourceOf(name);
      const collection = runtime.collectionOf(resource);
      const id = idValue(resource, item);
      const previous = id === undefined ? null : await collection.get(id);
      const saved = await refusingConflicts(async () =>
        id === undefined ? collection.insert(item) : (await collection.upsert(id, item)).item,
      );
      const savedId = idValue(resource, saved)!;
      undo.push(() => (previous ? collection.upsert(savedId, previous) : collection.delete(savedId)));
      changes.push({ kind: 'saved', resource, item: saved });
      return saved;
    },
    async remove(name, id) {
      const resource = resourceOf(name);
      const collection = runtime.collectionOf(resource);
      const item = await collection.get(id);
      if (!item) return;
      for (const write of await deleteItem(runtime, resource, item)) {
        changes.push(write);
        if (write.kind === 'removed') {
          const back = runtime.collectionOf(write.resource);
          const removedId = idValue(write.resource, write.item)!;
          undo.push(() => back.upsert(removedId, write.item));
        }
      }
    },
    async increment(name, id, property, delta, options = {}) {
      const resource = resourceOf(name);
      const collection = runtime.collectionOf(resource);
      const saved = await incremented(collection, resource, id, property, delta, options.min);
      undo.push(() => incremented(collection, resource, id, property, -delta, undefined));
      changes.push({ kind: 'saved', resource, item: saved });
      return saved;
    },
    violation(path, message) {
      throw validationFailed([{ propertyPath: path, message, code: 'custom' }]);
    },
  };
  return { calls, undo, changes };
}

/**
 * Adds `delta` to a number property as one compare-and-set (`Collection.replace` with the item read: atomic on
 * both stores, serialised per collection on FerretDB), read again and retried when another writer came first.
 * Below `min` it answers 409 and writes nothing.
 */
async function incremented(
  collection: Collection,
  resource: ResourceMetadata,
  id: Id,
  property: string,
  delta: number,
  min: number | undefined,
): Promise<Item> {
  if (typeof delta !== 'number' || !Number.isFinite(delta))
    throw new Error(`custom code: increment of ${resource.shortName}.${property} by a delta that is not a number`);
  for (let attempt = 0; attempt < INCREMENT_ATTEMPTS; attempt++) {
    const current = await collection.get(id);
    if (!current) throw new HttpError(404, `${resource.shortName} ${String(id)} not found.`);
    const value = current[property] ?? 0;
    if (typeof value !== 'number')
      throw new Error(`custom code: ${resource.shortName}.${property} is not a number, cannot increment it`);
    const next = value + delta;
    if (min !== undefined && next < min)
      throw new HttpError(409, `${resource.shortName} ${String(id)}: ${property} cannot go below ${min}.`);
    const saved = await collection.replace(id, { ...current, [property]: next }, current);
    if (saved) return saved;
  }
  throw new HttpError(409, `${resource.shortName} ${String(id)}: ${property} kept changing; try again.`);
}

/**
 * Runs custom code with a session: inside one store transaction where the runtime has them, else undoing what
 * the session wrote when the code throws (last first; an undo that fails is logged and the item stays as written).
 */
export async function inCodeTransaction<T>(
  runtime: CrossRuntime,
  code: (session: CrossResourceSession) => Promise<T>,
): Promise<{ result: T; changes: CrossChange[] }> {
  const session = crossResourceSession(runtime);
  const run = async () => {
    try {
      return { result: await code(session), changes: session.changes };
    } catch (e) {
      if (!runtime.transaction) await compensate(session.undo, runtime.logger, 'custom code: an item');
      throw e;
    }
  };
  return runtime.transaction ? runtime.transaction(run) : run();
}
