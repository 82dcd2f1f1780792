/**
 * The default persistence offered to message handlers (`ctx.persist`, `ctx.remove`): items of the message's
 * class stored in, or removed from, its collection, and their Mercure updates published once committed.
 */
import type { Logger } from 'pino';
import type { Persistence } from '../../messenger/index.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Collection, Item } from '../../store/types.js';
import { publishChange, publishingOperation } from './mercure-updates.js';
import { deleteItem, type Transaction } from '../relations/referential-actions.js';

export function storePersistence(
  api: ApiMetadata,
  collections: Map<string, Collection>,
  logger: Logger,
  transaction?: Transaction,
): Persistence {
  const target = (messageClass: string): { resource: ResourceMetadata; collection: Collection } => {
    const resource = api.resource(messageClass);
    const collection = collections.get(messageClass);
    if (!resource || !collection) throw new Error(`no resource named ${messageClass} to persist into`);
    return { resource, collection };
  };
  const idOf = (resource: ResourceMetadata, item: Item): string | number | undefined => {
    const v = resource.identifier ? item[resource.identifier.name] : undefined;
    return typeof v === 'string' || typeof v === 'number' ? v : undefined;
  };
  const publishing = (resource: ResourceMetadata): OperationMetadata | undefined => publishingOperation(api, resource);
  const deletes = { api, collectionOf: (r: ResourceMetadata) => collections.get(r.shortName)!, transaction };
  return {
    async persist(messageClass, item, origin) {
      const { resource, collection } = target(messageClass);
      const id = idOf(resource, item);
      const saved = id === undefined ? await collection.insert(item) : (await collection.upsert(id, item)).item;
      const op = publishing(resource);
      if (op) publishChange(api, op, { kind: 'saved', item: saved }, origin, logger);
      return saved;
    },
    async remove(messageClass, item, origin) {
      const { resource } = target(messageClass);
      // The referential actions of the relations to it apply as on an HTTP delete (a restrict throws its 409).
      for (const write of await deleteItem(deletes, resource, item)) {
        const op = publishing(write.resource);
        if (op) publishChange(api, op, { kind: write.kind, item: write.item }, origin, logger);
      }
    },
  };
}
