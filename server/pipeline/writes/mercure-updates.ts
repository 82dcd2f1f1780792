/**
 * The Mercure updates of committed changes (the "publish" stage's, and a message handler's): a saved item
 * is published as the document its item Get answers (representation/item-document.ts), a removed one as
 * `{"@id": …}`. Publishing never waits.
 */
import type { Logger } from 'pino';
import { itemIri, itemOperation } from '../../protocol/iri.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { changeUpdate, mercureOptions } from '../../realtime/index.js';
import { itemDocument } from '../representation/item-document.js';
import type { Item } from '../../store/types.js';
import type { Change, Runtime } from '../state.js';

/** `http://host:port` of a request, from its Host header. */
export const requestOrigin = (headers: Record<string, string | string[] | undefined>): string | undefined =>
  typeof headers.host === 'string' && headers.host ? `http://${headers.host}` : undefined;

/** The operation whose `mercure` option governs changes made outside a resource's own operations: the first that publishes. */
export const publishingOperation = (api: ApiMetadata, resource: ResourceMetadata): OperationMetadata | undefined =>
  resource.operations.find((o) => mercureOptions(o, api.settings));

/** Publishes one committed change when `op` (the operation that made it) has Mercure on. */
export function publishChange(
  runtime: Pick<Runtime, 'api' | 'publisher' | 'published'>,
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
      change.kind === 'removed' ? JSON.stringify({ '@id': iri }) : documentAsGet(api, resource, change.item, origin);
    publisher.publish(changeUpdate(options, iri, origin, data));
    runtime.published?.tell({ resource, iri, kind: change.kind, ...(origin ? { origin } : {}) });
  } catch (e) {
    logger?.error({ err: e }, 'mercure: update not built');
  }
}

/** The JSON-LD document the item Get of `resource` answers for `item`, as an anonymous reader sees it. */
function documentAsGet(api: ApiMetadata, resource: ResourceMetadata, item: Item, origin: string | undefined): string {
  const get = itemOperation(resource) ?? resource.operations.find((o) => o.method === 'GET' && !o.isCollection);
  if (!get) throw new Error(`${resource.shortName} has no item Get to show its items as`);
  return JSON.stringify(
    itemDocument(api, get, item, {
      jsonld: true,
      at: { origin: origin ?? '', path: '' },
      // Subscribers are not the user who wrote: a property guarded by `security` is never published (fail closed).
      hidden: new Set(resource.properties.filter((p) => p.security).map((p) => p.name)),
    }),
  );
}
