/**
 * Where a resource's item IRIs come from: the operation whose route builds them (the first item Get) and, when
 * that route ends with the identifier alone, the text before it (`/shops/` of `/shops/{id}`). What relations
 * hold is known here, before any request: scopes read through relations with it (pipeline/scopes.ts), and the
 * storage specs name each relation's target with it (`CollectionSpec.relations`).
 */
import { GENID_PATH } from './load-operation.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from './types.js';
import type { Relation } from '../store/types.js';

const itemOperations = new WeakMap<ResourceMetadata, OperationMetadata | null>();

/** The operation whose route builds a resource's item IRIs (the first item Get). */
export function itemOperation(resource: ResourceMetadata): OperationMetadata | undefined {
  let op = itemOperations.get(resource);
  if (op === undefined) {
    op = resource.operations.find((o) => o.method === 'GET' && !o.isCollection && o.path !== GENID_PATH) ?? null;
    itemOperations.set(resource, op);
  }
  return op ?? undefined;
}

/** The text before the identifier in `resource`'s item IRIs; undefined unless they end with the identifier alone. */
export function itemKeyPrefix(resource: ResourceMetadata): string | undefined {
  const path = itemOperation(resource)?.path;
  const placeholder = `{${resource.identifier?.name}}`;
  if (!path || !resource.identifier || !path.endsWith(placeholder) || path.indexOf('{') !== path.lastIndexOf('{'))
    return undefined;
  return path.slice(0, -placeholder.length);
}

/**
 * The relations of `resource` whose values name stored items: a target with an identifier, read from its table
 * (no custom provider on its item Get), its IRIs the key prefix and the key. Others keep their IRIs as they are.
 */
export function storedRelations(
  api: Pick<ApiMetadata, 'resource'>,
  resource: ResourceMetadata,
): Record<string, Relation> {
  const out: Record<string, Relation> = {};
  for (const p of resource.properties) {
    const target = p.relation === undefined ? undefined : api.resource(p.relation);
    const keyPrefix = target ? itemKeyPrefix(target) : undefined;
    if (!target || keyPrefix === undefined || itemOperation(target)!.provider) continue;
    // A referrer without an identifier is always restricted (pipeline/relations/referential-actions.ts).
    const onDelete = resource.identifier ? (p.onDelete ?? 'restrict') : 'restrict';
    out[p.name] = { target: target.storage, keyPrefix, many: p.array === true, onDelete };
  }
  return out;
}
