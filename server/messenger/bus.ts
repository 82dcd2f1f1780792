/**
 * The message bus of a loaded API: routes each message, by its class, to its transport (`messenger.routing`,
 * else `messenger.transport`) and runs the consumers of the asynchronous transports in use.
 */
import type { Logger } from 'pino';
import type { TransportName } from '../metadata/async-settings.js';
import type { ApiMetadata } from '../metadata/types.js';
import { Refusal } from '../refusal.js';
import type { Store } from '../store/types.js';
import type { Envelope } from './envelope.js';
import { messageHandler, type HandleMessage, type Persistence } from './handle.js';
import { AmqpTransport } from './transports/amqp.js';
import { EmbeddedTransport } from './transports/embedded.js';
import { SyncTransport } from './transports/sync.js';
import type { Consumer, FailureQueue, Transport } from './transports/transport.js';

const STOP_GRACE_MS = 5000;

async function within(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** A messenger setting that cannot work (a command refuses to start with it). */
export class MessengerConfigError extends Refusal {}

export class MessageBus {
  private readonly transports = new Map<TransportName, Transport>();
  private readonly handle: HandleMessage;

  constructor(
    private readonly api: ApiMetadata,
    private readonly store: Store,
    persistence: Persistence,
    private readonly logger: Logger,
  ) {
    this.handle = messageHandler(api.messageHandlers, persistence);
    // Made now, so that a transport the store cannot hold stops the start rather than a request.
    for (const name of this.transportsInUse()) this.transport(name);
  }

  async dispatch(envelope: Envelope): Promise<void> {
    const settings = this.api.settings.messenger;
    await this.transport(settings.routing[envelope.class] ?? settings.transport).send(envelope);
  }

  /** Starts a consumer on every asynchronous transport in use; resolves once they all listen. */
  async consume(): Promise<Consumer> {
    const consumers: Consumer[] = [];
    for (const name of this.transportsInUse()) {
      const transport = this.transport(name);
      if (transport.consume) consumers.push(await transport.consume(this.handle));
    }
    // A handler still running at stop gets a few seconds; its message is not acknowledged if it has not
    // finished, so it is delivered again later.
    return { stop: () => within(STOP_GRACE_MS, Promise.all(consumers.map((c) => c.stop()))) };
  }

  /** The failure queues of the asynchronous transports in use. */
  failureQueues(): { transport: TransportName; failures: FailureQueue }[] {
    return this.transportsInUse().flatMap((name) => {
      const failures = this.transport(name).failures;
      return failures ? [{ transport: name, failures }] : [];
    });
  }

  /** Whether some message goes through an asynchronous transport (something to consume). */
  hasQueues(): boolean {
    return this.transportsInUse().some((name) => name !== 'sync');
  }

  async close(): Promise<void> {
    await Promise.all([...this.transports.values()].map((t) => t.close()));
  }

  private transportsInUse(): TransportName[] {
    const settings = this.api.settings.messenger;
    const names = new Set<TransportName>(Object.values(settings.routing));
    if (this.api.resources.some((r) => !(r.shortName in settings.routing))) names.add(settings.transport);
    return [...names];
  }

  private transport(name: TransportName): Transport {
    let transport = this.transports.get(name);
    if (transport) return transport;
    const settings = this.api.settings.messenger;
    if (name === 'sync') transport = new SyncTransport(this.handle);
    else if (name === 'amqp') transport = new AmqpTransport(settings, this.logger);
    else {
      const queue = this.store.messageQueue?.();
      if (!queue)
        throw new MessengerConfigError(
          'the embedded message transport needs the embedded store or PostgreSQL (not MongoDB): choose "amqp" or "sync"',
        );
      transport = new EmbeddedTransport(queue, settings, this.logger);
    }
    this.transports.set(name, transport);
    return transport;
  }
}
