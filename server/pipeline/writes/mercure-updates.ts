/**
 * The Mercure updates of committed changes (the "publish" stage's, and a message handler's): a saved item
 * is published as the document its item Get answers (the same serializer run on the Get operation), a
 * removed one as `{"@id": …}`. Publishing never waits.
 */
import type { Logger } from 'pino';
import { itemIri, itemOperation } from '../../protocol/iri.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { changeUpdate, mercureOptions, type Publisher } from '../../realtime/index.js';
import type { Item } from '../../store/types.js';
import { serialize } from '../stages/serialize.js';
import type { Change, OperationState } from '../state.js';

const publishers = new WeakMap<ApiMetadata, Publisher>();

/** Makes `publisher` the one the pipeline publishes an API's changes with. */
export function usePublisher(api: ApiMetadata, publisher: Publisher | undefined): void {
  if (publisher) publishers.set(api, publisher);
}

/** `http://host:port` of a request, from its Host header. */
export const requestOrigin = (headers: Record<string, string | string[] | undefined>): string | undefined =>
  typeof headers.host === 'string' && headers.host ? `http://${headers.host}` : undefined;

/** Whether the API publishes at all (a publisher is in use); `publishChange` decides per operation. */
export const hasPublisher = (api: ApiMetadata): boolean => publishers.has(api);

/** The operation whose `mercure` option governs changes made outside a resource's own operations: the first that publishes. */
export const publishingOperation = (api: ApiMetadata, resource: ResourceMetadata): OperationMetadata | undefined =>
  resource.operations.find((o) => mercureOptions(o, api.settings));

/** Publishes one committed change when `op` (the operation that made it) has Mercure on. */
export function publishChange(
  api: ApiMetadata,
  op: OperationMetadata,
  change: Change,
  origin: string | undefined,
  logger?: Logger,
): void {
  const publisher = publishers.get(api);
  // An item a referential action changed publishes as its own resource does (message handlers' rule too).
  const via = change.resource && change.resource !== op.resource ? publishingOperation(api, change.resource) : op;
  const options = publisher && via && mercureOptions(via, api.settings);
  if (!publisher || !options) return;
  const resource = via!.resource;
  try {
    const iri = itemIri(resource, change.item, itemOperation(resource));
    const data =
      change.kind === 'removed' ? JSON.stringify({ '@id': iri }) : documentAsGet(api, resource, change.item, origin);
    publisher.publish(changeUpdate(options, iri, origin, data));
  } catch (e) {
    logger?.error({ err: e }, 'mercure: update not built');
  }
}

/** The JSON-LD document the item Get of `resource` answers for `item`. */
function documentAsGet(api: ApiMetadata, resource: ResourceMetadata, item: Item, origin: string | undefined): string {
  const get = itemOperation(resource) ?? resource.operations.find((o) => o.method === 'GET' && !o.isCollection);
  const state = {
    api,
    operation: get,
    data: item,
    previousData: null,
    output: { name: 'jsonld', mediaType: 'application/ld+json' },
    uriVariables: {},
    request: { method: 'GET', url: '', headers: {}, query: {}, body: undefined, attributes: new Map() },
    criteria: {},
    path: '',
    origin: origin ?? '',
    collectionIri: resource.collectionPath,
    created: false,
    // Subscribers are not the user who wrote: a property guarded by `security` is never published (fail closed).
    hiddenProperties: new WeakMap([[item, new Set(resource.properties.filter((p) => p.security).map((p) => p.name))]]),
  } as unknown as OperationState;
  serialize(state);
  return JSON.stringify(state.body);
}
