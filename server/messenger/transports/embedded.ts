/**
 * `embedded`: messages wait in a queue table of the store's own database (store/sqlite/queue.ts,
 * store/postgres/queue.ts) until a consumer (`apidsl consume`, `serve --consume`) takes them. A failed handler's message is retried after
 * the retry strategy's delay, then moved to the failure queue.
 */
import type { Logger } from 'pino';
import type { MessengerSettings } from '../../metadata/async-settings.js';
import type { MessageQueue, QueuedMessage } from '../../store/types.js';
import { envelopeText, parseEnvelope, readEnvelope, withFailure, withoutFailure, type Envelope } from '../envelope.js';
import { retryDelay, type HandleMessage } from '../handle.js';
import { selected, type Consumer, type FailureQueue, type Selection, type Transport } from './transport.js';

/** How often an idle consumer looks for messages another process queued. */
const POLL_MS = 100;
/** How long a consumer waits before it tries a queue it could not reach again. */
const UNREACHABLE_MS = 1000;

export class EmbeddedTransport implements Transport {
  readonly name = 'embedded';
  /** Wakes this process's idle consumers when it queues a message itself. */
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly queue: MessageQueue,
    private readonly settings: MessengerSettings,
    private readonly logger: Logger,
  ) {}

  async send(envelope: Envelope): Promise<void> {
    await this.queue.push(this.settings.queue, envelopeText(envelope));
    for (const wake of this.wakers) wake();
  }

  async consume(handle: HandleMessage): Promise<Consumer> {
    let running = true;
    let wake: (() => void) | undefined;
    const waker = (): void => wake?.();
    this.wakers.add(waker);
    const loop = (async () => {
      while (running) {
        let handled: boolean;
        try {
          handled = await this.handleNext(handle);
        } catch (e) {
          this.logger.warn({ err: e }, 'messenger: the message queue cannot be reached; trying again');
          await new Promise((resolve) => setTimeout(resolve, UNREACHABLE_MS));
          continue;
        }
        if (!handled && running) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, POLL_MS);
          });
        }
      }
    })();
    return {
      stop: async () => {
        running = false;
        wake?.();
        this.wakers.delete(waker);
        await loop;
      },
    };
  }

  async close(): Promise<void> {}

  readonly failures: FailureQueue = {
    list: async () => (await this.queue.list(this.settings.failureQueue)).map((row) => readEnvelope(row.body)),
    retry: async (selection) => {
      const sent = await this.overFailures(selection, (id, envelope) =>
        this.queue.restore(id, this.settings.failureQueue, this.settings.queue, withoutFailure(envelope)),
      );
      for (const wake of this.wakers) wake();
      return sent;
    },
    remove: async (selection) =>
      this.overFailures(selection, (id) => this.queue.remove(id, this.settings.failureQueue)),
  };

  /** Applies `act` to each selected row of the failure queue; the envelope ids it was done to. */
  private async overFailures(
    selection: Selection,
    act: (row: number, envelope: Envelope) => Promise<boolean>,
  ): Promise<string[]> {
    const done: string[] = [];
    for (const row of await this.queue.list(this.settings.failureQueue)) {
      const envelope = readEnvelope(row.body);
      if (selected(selection, envelope.id) && (await act(row.id, envelope))) done.push(envelope.id);
    }
    return done;
  }

  /**
   * Takes and handles one message; false when there was none. A queue that cannot be reached (PostgreSQL down)
   * throws: the message taken, if any, is delivered again after the redelivery timeout.
   */
  private async handleNext(handle: HandleMessage): Promise<boolean> {
    const redeliverMs = this.settings.redeliverTimeoutSeconds * 1000;
    const taken = await this.queue.take(this.settings.queue, redeliverMs);
    if (!taken) return false;
    const keepAlive = setInterval(
      () => void this.queue.keepAlive(taken.id).catch(() => undefined), // the next stamp may succeed
      Math.max(redeliverMs / 3, 50),
    );
    keepAlive.unref(); // a handler left running at stop must not keep the process alive
    let failure: { error: unknown } | undefined;
    try {
      await handle(parseEnvelope(taken.body), taken.attempts + 1 + (taken.redelivered ? 1 : 0), this.name);
    } catch (e) {
      failure = { error: e };
    } finally {
      clearInterval(keepAlive);
    }
    if (failure) await this.failed(taken, failure.error);
    else await this.queue.ack(taken.id);
    return true;
  }

  /** A handler failed: the message is retried after the strategy's delay, or moved to the failure queue. */
  private async failed(taken: QueuedMessage, e: unknown): Promise<void> {
    const retry = taken.attempts + 1;
    if (retry <= this.settings.retry.maxRetries) {
      const delay = retryDelay(retry, this.settings.retry);
      this.logger.warn({ err: e, message: taken.id, retry, delay }, 'message handler failed; retrying');
      await this.queue.retry(taken.id, delay);
    } else {
      this.logger.error(
        { err: e, message: taken.id, queue: this.settings.failureQueue },
        'message handler failed; moved to the failure queue',
      );
      await this.queue.move(taken.id, this.settings.failureQueue, withFailure(taken.body, e, this.name));
    }
  }
}
