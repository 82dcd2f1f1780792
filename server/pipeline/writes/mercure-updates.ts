/**
 * The Mercure updates of committed changes (the "publish" stage's, and a message handler's): a saved item
 * is published as the document its item Get answers (representation/item-document.ts), a removed one as
 * `{"@id": …}`. Publishing never waits: an item whose Get embeds related items (representation/embedding.ts) is
 * published once they are read, after the write answered, each topic's updates kept in order.
 */
import type { Logger } from 'pino';
import { itemIri, itemOperation } from '../../protocol/iri.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { changeUpdate, mercureOptions, type MercureOptions, type Publisher } from '../../realtime/index.js';
import { evaluateTopics, hasTopicExpression, topicMemberPaths } from '../../realtime/topics.js';
import { RelationReads, withIri } from '../../security/relation-reads.js';
import { itemDocument } from '../representation/item-document.js';
import { pushedCollectionOf } from '../scopes.js';
import { scopedMemberRelations, unreadableMembers } from '../scoped-members.js';
import { embeddingPlan, EmbeddingWriter } from '../representation/embedding.js';
import { hidingMembers, type RelationOutput } from '../representation/normalize.js';
import { relationOutput } from '../representation/url-generation.js';
import { everyGuardedHidden, ReadEmbeddedItems } from '../relations/embedded-items.js';
import type { Item } from '../../store/types.js';
import type { Change } from '../state.js';
import type { Runtime } from '../runtime.js';

/** `http://host:port` of a request, from its Host header. */
export const requestOrigin = (headers: Record<string, string | string[] | undefined>): string | undefined =>
  typeof headers.host === 'string' && headers.host ? `http://${headers.host}` : undefined;

/** The operation whose `mercure` option governs changes made outside a resource's own operations: the first that publishes. */
export const publishingOperation = (api: ApiMetadata, resource: ResourceMetadata): OperationMetadata | undefined =>
  resource.operations.find((o) => mercureOptions(o, api.settings));

/** Publishes one committed change when `op` (the operation that made it) has Mercure on. */
export function publishChange(
  runtime: Pick<Runtime, 'api' | 'publisher' | 'published' | 'collectionOf'>,
  op: OperationMetadata,
  change: Change,
  origin: string | undefined,
  logger?: Logger,
): void {
  const { api, publisher } = runtime;
  if (!publisher) return;
  // An item a referential action changed publishes as its own resource does (message handlers' rule too).
  const via = change.resource && change.resource !== op.resource ? publishingOperation(api, change.resource) : op;
  const options = via && mercureOptions(via, api.settings);
  if (!options) return;
  const resource = via!.resource;
  try {
    const iri = itemIri(resource, change.item, itemOperation(resource));
    const data =
      change.kind === 'removed'
        ? JSON.stringify({ '@id': iri })
        : documentAsGet(runtime, resource, change.item, origin ?? '');
    const topics = hasTopicExpression(options.topics)
      ? topicsOf(runtime, options, resource, change.item, iri, origin)
      : undefined;
    type Ready = { text: string; evaluated?: string[] };
    let update: Ready | Promise<Ready>;
    if (topics) update = Promise.all([data, topics]).then(([text, evaluated]) => ({ text, evaluated }));
    else update = typeof data === 'string' ? { text: data } : data.then((text) => ({ text }));
    const send = ({ text, evaluated }: Ready) => publisher.publish(changeUpdate(options, iri, origin, text, evaluated));
    inTopicOrder(publisher, iri, update, send, logger);
    runtime.published?.tell({ resource, iri, kind: change.kind, ...(origin ? { origin } : {}) });
  } catch (e) {
    logger?.error({ err: e }, 'mercure: update not built');
  }
}

/** The topics of a change whose `mercure` option writes some as expressions (realtime/topics.ts). */
async function topicsOf(
  runtime: Pick<Runtime, 'api' | 'collectionOf'>,
  options: MercureOptions,
  resource: ResourceMetadata,
  item: Item,
  iri: string,
  origin: string | undefined,
): Promise<string[]> {
  const written = options.topics!;
  const reads = new RelationReads(runtime.api, (r) => runtime.collectionOf(r));
  const seen = await reads.view(resource, item, topicMemberPaths(written));
  return evaluateTopics(written, withIri({ ...(seen as Item) }, iri), origin);
}

/** Per publisher, the updates of each topic still being built (their embedded items being read). */
const building = new WeakMap<Publisher, Map<string, Promise<void>>>();

/**
 * Sends an update at once when it is ready and none of its topic waits; else after the topic's earlier ones, so
 * that subscribers get a topic's updates in the order of the changes. The write's response never waits for it.
 */
function inTopicOrder<T>(
  publisher: Publisher,
  topic: string,
  data: T | Promise<T>,
  send: (data: T) => void,
  logger: Logger | undefined,
): void {
  let topics = building.get(publisher);
  const before = topics?.get(topic);
  if (!before && !(data instanceof Promise)) return send(data);
  if (!topics) building.set(publisher, (topics = new Map()));
  const queue = topics;
  const sent: Promise<void> = Promise.all([data, before])
    .then(([text]) => send(text))
    .catch((e: unknown) => logger?.error({ err: e }, 'mercure: update not built'))
    .finally(() => {
      if (queue.get(topic) === sent) queue.delete(topic);
    });
  queue.set(topic, sent);
}

/**
 * The JSON-LD document the item Get of `resource` answers for `item`, as an anonymous reader sees it; a promise
 * when the Get embeds related items, read first (relations/embedded-items.ts).
 */
function documentAsGet(
  runtime: Pick<Runtime, 'api' | 'collectionOf'>,
  resource: ResourceMetadata,
  item: Item,
  origin: string,
): string | Promise<string> {
  const { api } = runtime;
  const get = itemOperation(resource) ?? resource.operations.find((o) => o.method === 'GET' && !o.isCollection);
  if (!get) throw new Error(`${resource.shortName} has no item Get to show its items as`);
  const at = { origin, path: '' };
  // Subscribers are not the user who wrote: a property guarded by `security` is never published (fail closed).
  const hidden = new Set(resource.properties.filter((p) => p.security).map((p) => p.name));
  const document = (relations?: RelationOutput) =>
    JSON.stringify(itemDocument(api, get, item, { jsonld: true, at, hidden, relations }));
  const plan = embeddingPlan(get, api);
  if (!plan && !scopedMemberRelations(api, resource).length) return document();
  // A related item under a row-level scope is never embedded, nor listed among the members of a to-many relation:
  // who would read it is not known (docs/scopes.md).
  const reader = { api, collectionOf: pushedCollectionOf(api, runtime.collectionOf) };
  return (async () => {
    const members = await unreadableMembers(api, reader.collectionOf, resource, [item]);
    if (!plan) return document(hidingMembers(relationOutput(api, resource, at), members));
    const read = await new ReadEmbeddedItems().read(reader, plan, get, [item], everyGuardedHidden);
    for (const [target, items] of read.itemsByResource())
      await unreadableMembers(api, reader.collectionOf, target, items, members);
    const writer = new EmbeddingWriter(plan, read, true, at, members);
    return document(writer.relationsFor(resource, item, hidden, relationOutput(api, resource, at)));
  })();
}
