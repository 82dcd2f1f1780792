/** What every transport does: accept an envelope durably (or handle it at once), and feed consumers. */
import type { Envelope } from '../envelope.js';
import type { HandleMessage } from '../handle.js';

export interface Transport {
  readonly name: string;
  /** Resolves once the message is safely accepted (stored, confirmed by the broker, or handled). */
  send(envelope: Envelope): Promise<void>;
  /** Handles messages until `stop` is called (async transports only). */
  consume?(handle: HandleMessage): Promise<Consumer>;
  close(): Promise<void>;
}

export interface Consumer {
  stop(): Promise<void>;
}

/** The transport cannot take the message now (broker down): the request answers 503. */
export class TransportUnavailableError extends Error {
  override readonly name = 'TransportUnavailableError';
}
