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
    return persistence.withCalls(origin, async (calls) => {
      const ctx: HandlerContext = {
        class: envelope.class,
        id: envelope.id,
        headers: envelope.headers,
        attempt,
        transport,
        persist: (item, resource) =>
          typeof item === 'string'
            ? calls.persist(item, resource as Item)
            : persistence.persist((resource as string | undefined) ?? envelope.class, item, origin),
        remove: (item, resource) =>
          typeof item === 'string'
            ? calls.remove(item, resource as Id)
            : persistence.remove((resource as string | undefined) ?? envelope.class, item, origin),
        get: calls.get,
        find: calls.find,
        increment: calls.increment,
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
