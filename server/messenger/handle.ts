/**
 * Calling a message's handler: `handler(message, ctx)` where ctx offers the default persistence of the
 * message's class (`persist`, `remove`) and says which delivery this is. A missing handler is an error the
 * transport treats like a failed handler.
 */
import type { CodeFunction } from '../metadata/types.js';
import type { Item } from '../store/types.js';
import type { Envelope } from './envelope.js';

/** Storage of items of a message class (the embedded or MongoDB store of the service). */
export interface Persistence {
  persist(messageClass: string, item: Item, origin?: string): Promise<Item>;
  remove(messageClass: string, item: Item, origin?: string): Promise<void>;
}

export interface HandlerContext {
  /** The message class (resource name). */
  class: string;
  id: string;
  headers: Envelope['headers'];
  /** 1 on the first delivery, then 2, 3… on retries and redeliveries. */
  attempt: number;
  transport: string;
  /** Stores an item of the message's class, or of the resource named by `resource`. */
  persist(item: Item, resource?: string): Promise<Item>;
  remove(item: Item, resource?: string): Promise<void>;
}

export class NoHandlerError extends Error {}

export type HandleMessage = (envelope: Envelope, attempt: number, transport: string) => Promise<unknown>;

export function messageHandler(handlers: Map<string, CodeFunction>, persistence: Persistence): HandleMessage {
  return async (envelope, attempt, transport) => {
    const handler = handlers.get(envelope.class);
    if (!handler) throw new NoHandlerError(`no handler for messages of class ${envelope.class}`);
    const origin = envelope.headers.origin;
    const ctx: HandlerContext = {
      class: envelope.class,
      id: envelope.id,
      headers: envelope.headers,
      attempt,
      transport,
      persist: (item, resource) => persistence.persist(resource ?? envelope.class, item, origin),
      remove: (item, resource) => persistence.remove(resource ?? envelope.class, item, origin),
    };
    return handler(envelope.message, ctx);
  };
}

/** The delay before retry number `retry` (1, 2, …) of a failed message. */
export function retryDelay(retry: number, strategy: { delay: number; multiplier: number; maxDelay: number }): number {
  const delay = strategy.delay * strategy.multiplier ** (retry - 1);
  return Math.round(strategy.maxDelay > 0 ? Math.min(delay, strategy.maxDelay) : delay);
}
