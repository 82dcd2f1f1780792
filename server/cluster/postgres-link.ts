/**
 * Instances of one service on one PostgreSQL database talk through it when no Redis is configured
 * (docs/deployment.md): the protocol of channel-link.ts over LISTEN/NOTIFY, on a connection of each instance's
 * own (postgres-connection.ts) that both listens and notifies.
 *
 * PostgreSQL delivers every notification to every listener in the order the notifying transactions committed,
 * but it does not say how many listeners received one. So a writer waits, within `ACK_BOUND_MS`, until it heard
 * its own message back and then for every instance it heard lately at that moment: an instance whose heartbeat
 * committed before the message is among them; one whose heartbeats all committed after it hears the message
 * before any heartbeat that could make it vouch for its cache, so it dropped the pages before it answers from it.
 *
 * A notification holds less than 8000 bytes: a long list of tags is split into several messages, each waited
 * for. Hub updates are rows of a table, announced by a notification, on a second connection
 * (postgres-updates.ts).
 */
import type { Logger } from 'pino';
import { ChannelLink, type Broadcast, type Direct, type Waiting } from './channel-link.js';
import {
  ACK_BOUND_MS,
  HEARTBEAT_MS,
  TRUST_MS,
  bounded,
  delay,
  monotonicMs,
  type PeerLink,
  type SharedUpdate,
} from './link.js';
import { ListenConnection } from './postgres-connection.js';
import { HubUpdates } from './postgres-updates.js';

/** The most bytes a message may take: PostgreSQL refuses a payload of 8000 bytes or more. */
const PAYLOAD_BYTES = 7900;
/** How long a new instance waits at start to hear itself, so that it serves from its cache from the first request. */
const FIRST_HEARD_MS = 2000;

/**
 * The tags in batches of at most `room` bytes of JSON (what else a message holds is far less than the rest of
 * `PAYLOAD_BYTES`); a tag too long for any message makes the whole write drop every page.
 */
export function tagBatches(tags: readonly string[], room = PAYLOAD_BYTES - 200): (readonly string[] | 'all')[] {
  const batches: string[][] = [];
  let size = Infinity;
  for (const tag of tags) {
    const bytes = Buffer.byteLength(JSON.stringify(tag)) + 1;
    if (bytes > room) return ['all'];
    if (size + bytes > room) {
      batches.push([]);
      size = 0;
    }
    batches.at(-1)!.push(tag);
    size += bytes;
  }
  return batches.length > 0 ? batches : [[]];
}

interface Echoed extends Waiting {
  /** When our own message came back (our clock). */
  echoedAt?: number;
  /** The instances to hear from, known once our own message came back. */
  expected?: string[];
}

class PostgresLink extends ChannelLink {
  declare protected readonly waiting: Map<number, Echoed>;
  private readonly connection: ListenConnection;
  private readonly updates: HubUpdates;
  private heardFirst!: () => void;
  /** Resolves once this instance heard itself the first time. */
  readonly firstHeard = new Promise<void>((resolve) => (this.heardFirst = resolve));

  constructor(url: string, channel: string, logger: Logger) {
    super(channel, logger, 'PostgreSQL');
    this.connection = new ListenConnection(
      url,
      [channel, this.channelOf(this.id)],
      {
        up: () => this.reconnected(),
        down: () => {
          this.downSince ??= monotonicMs();
          this.deaf();
        },
        notified: (on, payload) => this.receive(on, payload),
      },
      logger,
    );
    this.updates = new HubUpdates(url, `${channel}:updates`, this.id, (u) => this.deliverHere(u), logger);
  }

  protected override regained(): void {
    this.heardFirst();
  }

  protected canSend(): boolean {
    return this.connection.isUp;
  }

  protected async send(message: Broadcast | Direct, to = this.channel): Promise<boolean> {
    try {
      await this.connection.query('SELECT pg_notify($1, $2)', [to, JSON.stringify(message)]);
      return true;
    } catch {
      return false;
    }
  }

  protected override batches(tags: readonly string[]): (readonly string[] | 'all')[] {
    return tagBatches(tags);
  }

  /** Our own message came back: every instance heard before it is one to wait for. */
  protected echoed(id: number): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    waiting.echoedAt = monotonicMs();
    waiting.expected = this.members.recent(waiting.echoedAt);
    waiting.check();
  }

  /**
   * Waits for the echo and the acknowledgements, within `ACK_BOUND_MS`. Past it, an instance that has not
   * dropped the pages has heard none of its heartbeats sent after the message committed, so it stops vouching
   * `TRUST_MS` after the echo at the latest. Without an echo the message's fate is unknown: the connection is
   * broken, so that every instance stops vouching for this one (`TRUST_MS` after) and drops every page when it
   * is back.
   */
  protected async tell(id: number, tags: readonly string[] | 'all'): Promise<void> {
    const waiting: Echoed = { acks: new Set(), check: () => undefined };
    const done = new Promise<void>((resolve) => {
      waiting.check = () => {
        if (waiting.expected?.every((m) => waiting.acks.has(m))) resolve();
      };
      this.waiting.set(id, waiting);
    });
    let brokeAt: number | undefined;
    const breakOff = (): void => {
      brokeAt ??= monotonicMs();
      this.connection.reset();
    };
    void this.send({ k: 'invalidate', from: this.id, id, tags }).then((sent) => sent || breakOff());
    if (await bounded(done, ACK_BOUND_MS)) return;
    if (waiting.echoedAt === undefined) breakOff();
    await delay((waiting.echoedAt ?? brokeAt!) + TRUST_MS + HEARTBEAT_MS - monotonicMs());
  }

  share(update: SharedUpdate): void {
    this.updates.share(update);
  }

  override async close(): Promise<void> {
    await super.close();
    await Promise.all([this.connection.close(), this.updates.close()]);
  }
}

/**
 * The link of an instance through the PostgreSQL database at `url`, on the channel of its service; resolves once
 * it heard itself, or after `FIRST_HEARD_MS` (its cache is off until it does).
 */
export async function postgresLink(url: string, channel: string, logger: Logger): Promise<PeerLink> {
  const link = new PostgresLink(url, channel, logger);
  await bounded(link.firstHeard, FIRST_HEARD_MS);
  return link;
}
