/** `sync`: the handler runs inside the request that dispatched; its failure is the request's. */
import type { Envelope } from '../envelope.js';
import type { HandleMessage } from '../handle.js';
import type { Transport } from './transport.js';

export class SyncTransport implements Transport {
  readonly name = 'sync';

  constructor(private readonly handle: HandleMessage) {}

  async send(envelope: Envelope): Promise<void> {
    await this.handle(envelope, 1, this.name);
  }

  async close(): Promise<void> {}
}
