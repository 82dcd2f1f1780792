/**
 * Publishing to an external Mercure hub: each update is POSTed as the protocol's form, one at a time and
 * in order, with the publisher JWT (a ready token from `publisher_jwt_env`, else one signed with the key of
 * `publisher_jwt_secret_env`). A failed POST is retried with a doubling delay; past `publish_retries` the
 * update is logged and dropped. Nothing here makes the writing request wait or fail; the waiting updates
 * are bounded (the oldest is dropped first).
 */
import type { Logger } from 'pino';
import type { MercureSettings } from '../metadata/async-settings.js';
import { publisherToken } from './jwt.js';
import type { Publisher, Update } from './update.js';

const MAX_WAITING = 10_000;
const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 10_000;
const POST_TIMEOUT_MS = 10_000;

export class ExternalHubPublisher implements Publisher {
  private readonly waiting: Update[] = [];
  private sending = false;
  private closed = false;
  private wake?: () => void;

  constructor(
    private readonly settings: MercureSettings,
    private readonly logger: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  publish(update: Update): void {
    if (this.closed) return;
    this.waiting.push(update);
    if (this.waiting.length > MAX_WAITING) {
      const dropped = this.waiting.shift()!;
      this.logger.error({ topics: dropped.topics }, 'mercure: too many updates waiting for the hub; oldest dropped');
    }
    if (!this.sending) void this.drain();
  }

  /** Stops retrying; what is still waiting is sent once more (briefly) then given up. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    const deadline = Date.now() + 2000;
    while (this.sending && Date.now() < deadline) await sleep(20);
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.length) {
        const update = this.waiting[0]!;
        await this.deliver(update);
        this.waiting.shift();
      }
    } finally {
      this.sending = false;
    }
  }

  private async deliver(update: Update): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.post(update);
        return;
      } catch (e) {
        if (attempt >= this.settings.publishRetries || this.closed) {
          this.logger.error(
            { err: e, topics: update.topics, attempts: attempt + 1 },
            'mercure: update not published; dropped',
          );
          return;
        }
        this.logger.warn({ err: (e as Error).message, attempt: attempt + 1 }, 'mercure: publishing failed; retrying');
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, Math.min(FIRST_DELAY_MS * 2 ** attempt, MAX_DELAY_MS)).unref();
        });
      }
    }
  }

  private async post(update: Update): Promise<void> {
    const form = new URLSearchParams();
    for (const topic of update.topics) form.append('topic', topic);
    form.append('data', update.data);
    if (update.private) form.append('private', 'on');
    if (update.type) form.append('type', update.type);
    if (update.retry !== undefined) form.append('retry', String(update.retry));
    const response = await fetch(this.settings.hub, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await this.token()}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`the hub answered ${response.status}`);
  }

  private async token(): Promise<string> {
    const ready = this.env[this.settings.publisherJwtEnv];
    if (ready) return ready;
    const secret = this.env[this.settings.publisherJwtSecretEnv];
    if (!secret)
      throw new Error(`neither ${this.settings.publisherJwtEnv} nor ${this.settings.publisherJwtSecretEnv} is set`);
    return publisherToken(secret);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
