/**
 * Calling a message's handler: `handler(message, ctx)` where ctx offers the default persistence of the
 * message's class (`persist`, `remove`) and says which delivery this is. A missing handler is an error the
 * transport treats like a failed handler.
 */
import type { CodeFunction } from '../metadata/types.js';
import type { Id, Item } from '../store/types.js';
import type { Envelope } from './envelope.js';

/** Storage of items of a message class (the embedded or MongoDB store of the service). */
export interface Persistence {
  persist(messageClass: string, item: Item, origin?: string): Promise<Item>;
  remove(messageClass: string, item: Item, origin?: string): Promise<void>;
  /**
   * Runs a handler with the calls on any resource (pipeline/writes/custom-writes.ts): what they wrote is undone
   * when it throws (no store transaction: a handler may run long); the changes published once it succeeded.
   */
  withCalls<T>(origin: string | undefined, handler: (calls: ResourceCalls) => Promise<T>): Promise<T>;
  /**
   * What the handler's writes of `envelope` must hold to: the row-level scopes, as the user who dispatched it.
   * Throws, and the message fails, when it carries no user (or one that cannot be rebuilt) and needs one.
   */
  guard(envelope: Envelope): Promise<WriteGuard>;
}

/** The checks of a handler's writes (pipeline/writes/message-scopes.ts): each throws to refuse the write. */
export interface WriteGuard {
  /** Before an item is stored: the stored one it replaces (if any) and itself. */
  saving(messageClass: string, item: Item): Promise<void>;
  /** Before a stored item (given, or named by its identifier) is removed or changed in place. */
  stored(messageClass: string, item: Item | Id, kind: 'update' | 'delete'): Promise<void>;
}

/** The calls a handler makes on any resource (as processors': docs/custom-code.md). */
export interface ResourceCalls {
  get(resource: string, id: Id): Promise<Item | null>;
  find(resource: string, criteria?: Record<string, unknown>, options?: Record<string, unknown>): Promise<Item[]>;
  persist(resource: string, item: Item): Promise<Item>;
  remove(resource: string, id: Id): Promise<void>;
  increment(resource: string, id: Id, property: string, delta: number, options?: { min?: number }): Promise<Item>;
  violation(path: string, message: string): never;
}

export interface HandlerContext {
  /** The message class (resource name). */
  class: string;
  id: string;
  headers: Envelope['headers'];
  /** 1 on the first delivery, then 2, 3… on retries and redeliveries. */
  attempt: number;
  transport: string;
  /** Stores an item of the message's class, or of the resource named by `resource`; `(resource, item)` as well. */
  persist(item: Item | string, resource?: string | Item): Promise<Item>;
  /** Removes the item (of the message's class, or of `resource`); `(resource, id)`: that resource's item. */
  remove(item: Item | string, resource?: string | Id): Promise<void>;
  get: ResourceCalls['get'];
  find: ResourceCalls['find'];
  increment: ResourceCalls['increment'];
  violation: ResourceCalls['violation'];
}

export class NoHandlerError extends Error {}

export type HandleMessage = (envelope: Envelope, attempt: number, transport: string) => Promise<unknown>;

export function messageHandler(handlers: Map<string, CodeFunction>, persistence: Persistence): HandleMessage {
  return async (envelope, attempt, transport) => {
    const handler = handlers.get(envelope.class);
    if (!handler) throw new NoHandlerError(`no handler for messages of class ${envelope.class}`);
    const origin = envelope.headers.origin;
    const guard = await persistence.guard(envelope);
    return persistence.withCalls(origin, async (calls) => {
      const ctx: HandlerContext = {
        class: envelope.class,
        id: envelope.id,
        headers: envelope.headers,
        attempt,
        transport,
        persist: async (item, resource) => {
          if (typeof item === 'string') {
            await guard.saving(item, resource as Item);
            return calls.persist(item, resource as Item);
          }
          const messageClass = (resource as string | undefined) ?? envelope.class;
          await guard.saving(messageClass, item);
          return persistence.persist(messageClass, item, origin);
        },
        remove: async (item, resource) => {
          if (typeof item === 'string') {
            await guard.stored(item, resource as Id, 'delete');
            return calls.remove(item, resource as Id);
          }
          const messageClass = (resource as string | undefined) ?? envelope.class;
          await guard.stored(messageClass, item, 'delete');
          return persistence.remove(messageClass, item, origin);
        },
        get: calls.get,
        find: calls.find,
        increment: async (resource, id, property, delta, options) => {
          await guard.stored(resource, id, 'update');
          const saved = await calls.increment(resource, id, property, delta, options);
          await guard.saving(resource, saved); // a refusal undoes the increment with the handler's other writes
          return saved;
        },
        violation: calls.violation,
      };
      return handler(envelope.message, ctx);
    });
  };
}

/** The delay before retry number `retry` (1, 2, …) of a failed message. */
export function retryDelay(retry: number, strategy: { delay: number; multiplier: number; maxDelay: number }): number {
  const delay = strategy.delay * strategy.multiplier ** (retry - 1);
  return Math.round(strategy.maxDelay > 0 ? Math.min(delay, strategy.maxDelay) : delay);
}
