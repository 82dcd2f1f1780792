/**
 * Subscribing to a Mercure hub in tests with the `eventsource` package (a WHATWG EventSource for Node):
 * the events received, in order, and waiting until some arrive.
 */
import { EventSource } from 'eventsource';
import { SignJWT } from 'jose';

export interface ReceivedEvent {
  id: string;
  type: string;
  data: string;
}

export interface Subscription {
  events: ReceivedEvent[];
  /** Resolves once `count` events arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedEvent[]>;
  /** Resolves once the connection is open (rejects on an error first). */
  opened: Promise<void>;
  source: EventSource;
  close(): void;
}

export function hubUrl(hub: string, topics: string[], extra: Record<string, string> = {}): string {
  const url = new URL(hub);
  for (const t of topics) url.searchParams.append('topic', t);
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return url.toString();
}

export function subscribe(
  hub: string,
  topics: string[],
  headers: Record<string, string> = {},
  eventTypes: string[] = [],
): Subscription {
  const source = new EventSource(hubUrl(hub, topics), {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
  });
  const events: ReceivedEvent[] = [];
  const waiters: (() => void)[] = [];
  const onEvent = (e: MessageEvent): void => {
    events.push({ id: e.lastEventId, type: e.type, data: String(e.data) });
    waiters.splice(0).forEach((w) => w());
  };
  source.addEventListener('message', onEvent);
  for (const type of eventTypes) source.addEventListener(type, onEvent);
  const opened = new Promise<void>((resolve, reject) => {
    source.addEventListener('open', () => resolve(), { once: true });
    source.addEventListener(
      'error',
      (e) =>
        reject(
          new Error(
            `subscription failed: ${(e as { code?: number; message?: string }).code ?? ''} ${(e as { message?: string }).message ?? ''}`,
          ),
        ),
      { once: true },
    );
  });
  opened.catch(() => undefined);
  const waitFor = (count: number, timeoutMs = 5000): Promise<ReceivedEvent[]> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `expected ${count} events within ${timeoutMs} ms, got ${events.length}: ${JSON.stringify(events)}`,
            ),
          ),
        timeoutMs,
      );
      const check = (): void => {
        if (events.length >= count) {
          clearTimeout(timer);
          resolve(events.slice(0, count));
        } else waiters.push(check);
      };
      check();
    });
  return { events, waitFor, opened, source, close: () => source.close() };
}

/** An HS256 JWT with the given `mercure` claim. */
export const mercureJwt = (key: string, claim: { subscribe?: string[]; publish?: string[] }): Promise<string> =>
  new SignJWT({ mercure: claim })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(key));

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `subscription` received an update of each title after its first `from` events; rejects after `ms`. */
export async function receivedTitles(
  subscription: Subscription,
  from: number,
  titles: readonly string[],
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = new Set(subscription.events.slice(from).map((e) => JSON.parse(e.data).title as string));
    const missing = titles.filter((t) => !seen.has(t));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`not received: ${missing.join(', ')}`);
    await sleep(100);
  }
}
