/**
 * A message on its way to its handler: the message itself (an item, or a request body as received), its
 * class (the resource name, which picks the handler and the transport) and headers that travel with it.
 * Transports carry envelopes as JSON text.
 */
import { v7 as uuidv7 } from 'uuid';

export interface Envelope {
  id: string;
  class: string;
  message: unknown;
  headers: {
    /** Name and method of the operation that dispatched it. */
    operation?: string;
    method?: string;
    /** `http://host:port` of the request that dispatched it (for absolute IRIs). */
    origin?: string;
    dispatchedAt: string;
  };
}

export function newEnvelope(
  messageClass: string,
  message: unknown,
  headers: Omit<Envelope['headers'], 'dispatchedAt'>,
): Envelope {
  return {
    id: uuidv7(),
    class: messageClass,
    message,
    headers: { ...headers, dispatchedAt: new Date().toISOString() },
  };
}

export const envelopeText = (envelope: Envelope): string => JSON.stringify(envelope);

export function parseEnvelope(text: string): Envelope {
  const value = JSON.parse(text) as Envelope;
  if (typeof value !== 'object' || value === null || typeof value.class !== 'string')
    throw new Error('not a message envelope');
  value.headers ??= { dispatchedAt: '' };
  return value;
}
