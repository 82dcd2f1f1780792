/**
 * A message on its way to its handler: the message itself (an item, or a request body as received), its
 * class (the resource name, which picks the handler and the transport) and headers that travel with it.
 * Transports carry envelopes as JSON text.
 */
import { v7 as uuidv7 } from 'uuid';
import type { SecurityUser } from '../expression/evaluate.js';

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
    /**
     * Who dispatched it (null: an anonymous caller), and the URI variables of their request: the handler's writes
     * are checked against the scopes as that user (docs/scopes.md, "Messages").
     */
    user?: SecurityUser | null;
    uriVariables?: Record<string, string>;
    dispatchedAt: string;
    /** Set on a message in the failure queue: why its last delivery failed, when, on which transport. */
    failure?: Failure;
  };
}

export interface Failure {
  error: string;
  at: string;
  transport: string;
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

/**
 * The text of a message that goes to the failure queue, its failure recorded in its headers (as Symfony's
 * ErrorDetailsStamp does); a text that is no envelope stays as it is.
 */
export function withFailure(text: string, error: unknown, transport: string): string {
  let envelope: Envelope;
  try {
    envelope = parseEnvelope(text);
  } catch {
    return text;
  }
  const failure: Failure = {
    error: String((error as Error)?.message ?? error),
    at: new Date().toISOString(),
    transport,
  };
  return envelopeText({ ...envelope, headers: { ...envelope.headers, failure } });
}

/** The text of a failed message sent again (`apidsl messenger failed retry`): its failure forgotten. */
export function withoutFailure(envelope: Envelope): string {
  const { failure: _failure, ...headers } = envelope.headers;
  return envelopeText({ ...envelope, headers });
}

/** The id shown for a stored text that is no envelope; no selection picks it. */
export const UNREADABLE_ID = 'unreadable';

/** A stored message text as an envelope; one that is none shows as such (id UNREADABLE_ID). */
export function readEnvelope(text: string): Envelope {
  try {
    return parseEnvelope(text);
  } catch {
    return { id: UNREADABLE_ID, class: '(not a message envelope)', message: text, headers: { dispatchedAt: '' } };
  }
}
