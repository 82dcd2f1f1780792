/**
 * The leak test's Mercure face (test/http/scopes-leaks.test.ts), where the API publishes to its built-in hub: each
 * caller follows every topic (`*`) with an EventSource and a subscriber JWT allowing the topics that only rows they
 * may read publish on (the topics of the rows they read, less those another row shares: what an API would give a
 * user), and one more subscriber follows `*` without a JWT. Each user also subscribes through GraphQL to every
 * row of a scoped resource (outside their scope: refused as an unknown IRI), their JWT allowing their own
 * subscriptions' path. Then, after the refused writes (which publish nothing), each row a caller's write scope lets
 * them change is written unchanged (PATCH `{}`), and publishes. Each subscriber must receive exactly one update of
 * each row whose topics its JWT allows (or whose update is public), one of each row it subscribed to, nothing else,
 * and no token or IRI of a row the caller may not read: a scoped resource's updates are private (docs/scopes.md,
 * "Pushed updates"), so the subscriber without a JWT gets none of them.
 */
import { ITEM_IRI } from '../../../server/expression/evaluate.js';
import type { OperationMetadata } from '../../../server/metadata/types.js';
import { HUB_PATH, mercureOptions } from '../../../server/realtime/index.js';
import { evaluateTopics, rawUrlEncode } from '../../../server/realtime/topics.js';
import { request } from '../harness.js';
import { mercureJwt, sleep, subscribe, type Subscription } from '../sse-client.js';
import { itemPath, walkable, type Face } from './rest.js';
import type { LeakApi, Row, World } from './world.js';

/** The environment variable the built-in hub reads its subscriber key from (none: no built-in hub). */
export const subscriberKeyEnv = (leak: LeakApi): string | undefined =>
  leak.api.settings.mercure?.hub === 'builtin' ? leak.api.settings.mercure.subscriberJwtSecretEnv : undefined;
/** The key the test sets there when the environment holds none. */
export const LEAK_SUBSCRIBER_KEY = 'the-leak-test-subscriber-key-long-enough-0123456789abcdef';

interface Published {
  row: Row;
  topics: string[];
  private: boolean;
}

/**
 * A subscriber: the face it stands for (none: no JWT), its subscription, and what it may be sent: `update <IRI>`
 * for a row's update, `subscription <IRI>` for its GraphQL subscription's.
 */
interface Follower {
  face?: Face;
  subscription: Subscription;
  expected: Set<string>;
}

export class MercureFace {
  private constructor(
    private readonly faces: Face[],
    private readonly writes: Map<Row, OperationMetadata>,
    private readonly followers: Follower[],
  ) {}

  /** The subscribers of every caller and one without a JWT, open; undefined when the API has no built-in hub. */
  static async open(faces: Face[]): Promise<MercureFace | undefined> {
    const leak = faces[0]!.sight.leak;
    const env = subscriberKeyEnv(leak);
    const key = env && process.env[env];
    if (!key) return undefined;
    const origin = faces[0]!.url;
    const writes = new Map<Row, OperationMetadata>();
    const published: Published[] = [];
    for (const op of leak.api.resources.flatMap((r) => r.operations)) {
      const options = op.kind === 'Patch' && walkable(op) ? mercureOptions(op, leak.api.settings) : undefined;
      if (!options) continue;
      for (const row of faces[0]!.sight.world.of(op.resource)) {
        const topics = await topicsOf(faces[0]!.sight.world, row, options.topics, origin);
        writes.set(row, op);
        if (topics) published.push({ row, topics, private: options.private });
      }
    }
    const followers: Follower[] = [];
    const hub = `${origin}${HUB_PATH}`;
    for (const face of [...faces, undefined]) {
      const allowed = face ? allowedTopics(face, published) : [];
      const subscribed = face?.sight.caller.token ? await graphQlSubscriptions(face) : [];
      // A user's JWT allows their own subscriptions' path (docs/graphql.md, "Subscriptions"), no one else's.
      if (subscribed.length)
        allowed.push(`${origin}/users/${rawUrlEncode(face!.sight.caller.name)}/subscriptions/{id}`);
      const headers = allowed.length
        ? { Authorization: `Bearer ${await mercureJwt(key, { subscribe: allowed })}` }
        : undefined;
      const subscription = subscribe(hub, ['*'], headers);
      await subscription.opened;
      const expected = new Set([
        ...published
          .filter((p) => !p.private || p.topics.some((t) => allowed.includes(t)))
          .map((p) => `update ${p.row.iri}`),
        ...subscribed.map((row) => `subscription ${row.iri}`),
      ]);
      followers.push({ ...(face ? { face } : {}), subscription, expected });
    }
    return new MercureFace(faces, writes, followers);
  }

  /** Writes each row unchanged as a caller whose scopes allow it; a row nobody may write is not published. */
  async publish(): Promise<void> {
    const done = new Set<Row>();
    for (const [row, op] of this.writes) {
      for (const face of this.faces) {
        if (!face.sight.caller.token || (await face.sight.refusal(op, row)) !== undefined) continue;
        const r = await request(face.url, 'PATCH', itemPath(op, row.id), {
          headers: {
            'Content-Type': face.sight.leak.api.settings.patchFormats[0] ?? 'application/merge-patch+json',
            Authorization: `Bearer ${face.sight.caller.token}`,
          },
          body: {},
        });
        if (r.status === 200) done.add(row);
        break;
      }
    }
    // What was not written publishes nothing.
    const written = new Set([...done].flatMap((row) => [`update ${row.iri}`, `subscription ${row.iri}`]));
    for (const follower of this.followers)
      for (const key of [...follower.expected]) if (!written.has(key)) follower.expected.delete(key);
  }

  /** Waits for each subscriber's updates, then checks what each received; closes the subscriptions. */
  async check(): Promise<void> {
    try {
      for (const f of this.followers) await f.subscription.waitFor(f.expected.size, 5000).catch(() => undefined);
      await sleep(300);
      for (const f of this.followers) this.checkOne(f);
    } finally {
      for (const f of this.followers) f.subscription.close();
    }
  }

  private checkOne({ face, subscription, expected }: Follower): void {
    // The subscriber without a JWT is checked as the anonymous caller.
    const sight = (face ?? this.faces.find((f) => !f.sight.caller.token)!).sight;
    const who = face ? `Mercure, as ${face.sight.caller.name}` : 'Mercure, without a JWT';
    const counts = new Map<string, number>();
    for (const event of subscription.events) {
      const key = keyOf(JSON.parse(event.data) as Record<string, unknown>);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      sight.check(event.data, `${who}: an update`);
      sight.expect(expected.has(key), () => `${who} receives ${key}: ${event.data}`);
    }
    for (const key of expected)
      sight.expect(counts.get(key) === 1, () => `${who} receives ${counts.get(key) ?? 0} × ${key}`);
  }
}

/** An update's `update <IRI>` (its `@id`), or a GraphQL subscription's `subscription <IRI>` (its item's `id`). */
function keyOf(data: Record<string, unknown>): string {
  if (typeof data['@id'] === 'string') return `update ${data['@id']}`;
  const item = Object.values(data)[0] as { id?: unknown } | null | undefined;
  return `subscription ${String(item?.id)}`;
}

/**
 * The caller's GraphQL subscription to every row of a scoped resource that has one: a row outside their read scope
 * is refused as an unknown IRI (an error with status 404, no topic); the rows they subscribed to are answered.
 */
async function graphQlSubscriptions(face: Face): Promise<Row[]> {
  const { sight } = face;
  const subscribed: Row[] = [];
  for (const gop of sight.leak.api.resources.flatMap((r) => r.graphQlOperations)) {
    const op = gop.operation;
    if (gop.kind !== 'Subscription' || !sight.leak.operations(op.resource).some((o) => sight.leak.scopeOf(o).read))
      continue;
    const key = op.resource.shortName.charAt(0).toLowerCase() + op.resource.shortName.slice(1);
    for (const row of sight.world.of(op.resource)) {
      const query = `subscription { ${gop.fieldName}(input: { id: "${row.iri}" }) { ${key} { id } mercureUrl } }`;
      const r = await request(face.url, 'POST', '/graphql', {
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${sight.caller.token!}` },
        body: JSON.stringify({ query }),
      });
      sight.check(r.text, `GraphQL ${gop.fieldName} of ${row.iri}`, [row.iri]);
      const answer = r.json as { data?: Record<string, { mercureUrl?: string } | null>; errors?: Status[] };
      const url = answer.data?.[gop.fieldName]?.mercureUrl;
      if (await sight.holds(op, row, 'read')) {
        sight.expect(typeof url === 'string', () => `GraphQL ${gop.fieldName} of ${row.iri} answers ${r.text}`);
        if (url) subscribed.push(row);
      } else
        sight.expect(
          !url && answer.errors?.[0]?.extensions?.status === 404,
          () => `GraphQL ${gop.fieldName} of ${row.iri} answers ${r.text}, not as an unknown IRI`,
        );
    }
  }
  return subscribed;
}

type Status = { extensions?: { status?: number } };

/**
 * The topics a row's update has: the option's (expressions evaluated on the row, its to-one relations read through),
 * else its absolute IRI and its path; undefined when an expression fails (the update is then not published).
 */
async function topicsOf(
  world: World,
  row: Row,
  written: string[] | undefined,
  origin: string,
): Promise<string[] | undefined> {
  if (!written) return [`${origin}${row.iri}`, row.iri];
  return evaluateTopics(written, objectOf(world, row, 2), origin).catch(() => undefined);
}

/** The row as topic expressions see it: to-one relations as the related rows, `depth` levels deep. */
function objectOf(world: World, row: Row, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = { ...row.values };
  for (const p of row.resource.properties) {
    const related = typeof row.values[p.name] === 'string' ? world.byIri.get(row.values[p.name] as string) : undefined;
    if (p.relation && !p.array && related && depth > 0) object[p.name] = objectOf(world, related, depth - 1);
  }
  Object.defineProperty(object, ITEM_IRI, { value: row.iri, enumerable: false });
  return object;
}

/** The topics on which only rows the caller may read publish (at least one). */
function allowedTopics(face: Face, published: readonly Published[]): string[] {
  const topics = new Set(published.flatMap((p) => p.topics));
  return [...topics].filter((t) => published.every((p) => !p.topics.includes(t) || face.sight.mayRead(p.row)));
}
