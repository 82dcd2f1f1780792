/**
 * The built-in Mercure hub, served at `/.well-known/mercure`:
 * - GET subscribes over Server-Sent Events to the `topic` selectors of the query; `Last-Event-ID` (header or
 *   `lastEventID` parameter) replays what the bounded history holds after that event.
 * - POST publishes a form-encoded update (`topic`, `data`, `private`, `id`, `type`, `retry`) for a publisher
 *   whose JWT's `mercure.publish` selectors match every topic.
 * - Private updates reach only subscribers whose JWT's `mercure.subscribe` selectors match one of their topics.
 *   A token that does not verify is refused (401); without a token a subscriber gets public updates only.
 * - Idle subscriptions get a comment every `heartbeat` seconds; a subscriber that leaves more than
 *   `subscriber_buffer` bytes unread is disconnected (it may reconnect with Last-Event-ID).
 * - Every update is shared with the hubs of the service's other processes (server/cluster/link.ts), which
 *   deliver it to their subscribers and keep it in their history under the same id.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import { v7 as uuidv7 } from 'uuid';
import type { Logger } from 'pino';
import type { PeerLink, SharedUpdate } from '../cluster/link.js';
import type { MercureSettings } from '../metadata/async-settings.js';
import { claimedSelectors, InvalidToken, requestToken } from './jwt.js';
import { anyMatches } from './topic-selector.js';
import type { Publisher, Update } from './update.js';

export const HUB_PATH = '/.well-known/mercure';

/** An update with the event id a hub gave it, the same in every process. */
type Dispatched = Update & SharedUpdate;

interface Subscriber {
  selectors: string[];
  /** Selectors of the subscriber's JWT (`mercure.subscribe`); empty: public updates only. */
  allowed: string[];
  res: ServerResponse;
}

const PUBLISH_BODY_LIMIT = 1024 * 1024;

export class BuiltinHub implements Publisher {
  private readonly history: Dispatched[] = [];
  private readonly subscribers = new Set<Subscriber>();
  private readonly heartbeat?: NodeJS.Timeout;
  private readonly stopSharing: () => void;
  /** Closed with the service: a subscription still being set up then gets its headers and ends at once. */
  private closed = false;

  constructor(
    private readonly settings: MercureSettings,
    private readonly logger: Logger,
    private readonly link: PeerLink,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    // What a link delivers is what a hub of this service shared (Dispatched), carried as it was.
    this.stopSharing = link.listen({ deliver: (update) => this.dispatch(update as Dispatched) });
    if (settings.heartbeatSeconds > 0) {
      this.heartbeat = setInterval(() => this.beat(), settings.heartbeatSeconds * 1000);
      this.heartbeat.unref();
    }
  }

  publish(update: Update, id = `urn:uuid:${uuidv7()}`): string {
    const event: Dispatched = { ...update, id };
    this.dispatch(event);
    this.link.share(event);
    return id;
  }

  /** Keeps an update in the history and writes it to the subscribers it is for. */
  private dispatch(event: Dispatched): void {
    this.history.push(event);
    if (this.history.length > this.settings.historySize)
      this.history.splice(0, this.history.length - this.settings.historySize);
    const text = eventText(event);
    for (const s of this.subscribers) if (this.deliverable(s, event)) this.write(s, text);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopSharing();
    clearInterval(this.heartbeat);
    for (const s of this.subscribers) s.res.end();
    this.subscribers.clear();
  }

  /** Answers a request to the hub's path; resolves once a publication is answered or a subscription set up. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://hub');
    if (req.method === 'GET') return this.subscribe(req, res, url.searchParams);
    if (req.method === 'POST') return this.receive(req, res, url.searchParams);
    res.writeHead(405, { Allow: 'GET, POST', 'Content-Type': 'text/plain' }).end('Method Not Allowed');
  }

  private deliverable(s: Subscriber, event: Dispatched): boolean {
    if (!anyMatches(s.selectors, event.topics)) return false;
    return !event.private || anyMatches(s.allowed, event.topics);
  }

  private async subscribe(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const selectors = query.getAll('topic');
    if (selectors.length === 0) return plain(res, 400, 'Missing "topic" parameter.');
    let allowed: string[] = [];
    const token = requestToken(req.headers, query);
    if (token !== undefined) {
      try {
        allowed = await claimedSelectors(token, this.env[this.settings.subscriberJwtSecretEnv], 'subscribe');
      } catch (e) {
        if (!(e instanceof InvalidToken)) throw e;
        return plain(res, 401, 'Unauthorized: invalid subscriber JWT.');
      }
    }
    const header = req.headers['last-event-id'];
    const lastEventId = (typeof header === 'string' ? header : undefined) ?? query.get('lastEventID') ?? undefined;
    const subscriber: Subscriber = { selectors, allowed, res };
    const replay = lastEventId === undefined ? { events: [], preceding: '' } : this.after(lastEventId);
    const headers: Record<string, string> = {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'private, no-cache, no-store, must-revalidate, max-age=0',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = replay.preceding;
    res.writeHead(200, headers);
    res.write(':\n\n'); // sends the headers now: EventSource clients report "open" on them
    for (const event of replay.events)
      if (this.deliverable(subscriber, event)) this.write(subscriber, eventText(event));
    if (res.destroyed) return;
    if (this.closed) return void res.end();
    this.subscribers.add(subscriber);
    res.on('close', () => this.subscribers.delete(subscriber));
  }

  /** History after the event `id`: everything for `earliest` or an unknown id (nothing lost that is still held). */
  private after(id: string): { events: Dispatched[]; preceding: string } {
    const index = id === 'earliest' ? -1 : this.history.findIndex((e) => e.id === id);
    const events = this.history.slice(index + 1);
    return { events, preceding: index >= 0 ? id : 'earliest' };
  }

  private async receive(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const token = requestToken(req.headers, query);
    let allowed: string[];
    try {
      if (token === undefined) throw new InvalidToken('no publisher JWT');
      allowed = await claimedSelectors(token, this.env[this.settings.publisherJwtSecretEnv], 'publish');
    } catch (e) {
      if (!(e instanceof InvalidToken)) throw e;
      return plain(res, 401, 'Unauthorized: invalid or missing publisher JWT.');
    }
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await getRawBody(req, { limit: PUBLISH_BODY_LIMIT, encoding: 'utf8' }));
    } catch {
      return plain(res, 400, 'The update could not be read.');
    }
    const topics = form.getAll('topic');
    if (topics.length === 0) return plain(res, 400, 'Missing "topic" parameter.');
    if (!topics.every((t) => anyMatches(allowed, [t])))
      return plain(res, 403, 'Forbidden: the publisher JWT does not allow these topics.');
    const givenId = form.get('id');
    if (givenId?.startsWith('#')) return plain(res, 400, 'An update id must not start with "#".');
    const retry = form.get('retry');
    const update: Update = { topics, data: form.get('data') ?? '', private: form.has('private') };
    if (form.get('type')) update.type = form.get('type')!;
    if (retry !== null && /^\d+$/.test(retry)) update.retry = Number(retry);
    const id = this.publish(update, givenId || undefined);
    this.logger.debug({ id, topics }, 'mercure update received');
    plain(res, 200, id);
  }

  private write(s: Subscriber, text: string): void {
    if (s.res.destroyed) return;
    s.res.write(text);
    if (s.res.writableLength > this.settings.subscriberBuffer) {
      this.logger.warn({ buffered: s.res.writableLength }, 'mercure subscriber too slow; disconnected');
      this.subscribers.delete(s);
      s.res.destroy();
    }
  }

  private beat(): void {
    for (const s of this.subscribers) this.write(s, ':\n\n');
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
}

/** One SSE event; every line of the data gets its own `data:` field. */
function eventText(event: Dispatched): string {
  let text = `id: ${event.id}\n`;
  if (event.type) text += `event: ${event.type}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}
