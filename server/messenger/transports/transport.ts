/** What every transport does: accept an envelope durably (or handle it at once), and feed consumers. */
import { UNREADABLE_ID, type Envelope } from '../envelope.js';
import type { HandleMessage } from '../handle.js';

export interface Transport {
  readonly name: string;
  /** Resolves once the message is safely accepted (stored, confirmed by the broker, or handled). */
  send(envelope: Envelope): Promise<void>;
  /** Handles messages until `stop` is called (async transports only). */
  consume?(handle: HandleMessage): Promise<Consumer>;
  /** The failure queue (async transports only): `apidsl messenger failed`. */
  readonly failures?: FailureQueue;
  close(): Promise<void>;
}

/** Which failed messages an action is for: those ids, or every one. */
export type Selection = ReadonlySet<string> | 'all';

export const selected = (selection: Selection, id: string): boolean =>
  id !== UNREADABLE_ID && (selection === 'all' || selection.has(id));

/** The messages whose retries were spent, as Symfony's failure transport holds them. */
export interface FailureQueue {
  /** Oldest first; each carries its failure in `headers.failure`. */
  list(): Promise<Envelope[]>;
  /**
   * Sends the selected messages back to the transport's queue (retries counted from 0 again, the failure
   * forgotten), each taken off the failure queue only once its queue holds it; the ids sent.
   */
  retry(selection: Selection): Promise<string[]>;
  /** Deletes the selected messages; the ids deleted. */
  remove(selection: Selection): Promise<string[]>;
}

export interface Consumer {
  stop(): Promise<void>;
}

/** The transport cannot take the message now (broker down): the request answers 503. */
export class TransportUnavailableError extends Error {
  override readonly name = 'TransportUnavailableError';
}
