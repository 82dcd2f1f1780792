/**
 * One item as a response shows it: JSON-LD (`@id`, `@type`, then the properties; write-only ones and
 * nulls left out) or plain JSON, and the operation whose route builds the IRIs of the items shown.
 */
import { optionValue, perOperation } from '../../metadata/options.js';
import { itemOperation } from '../../protocol/iri.js';
import type { OperationMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';

/** The operation whose route builds the IRIs of the items an operation returns (found once per operation). */
export const iriOperation = perOperation((op: OperationMetadata, _: void) => routeOfItems(op));

function routeOfItems(op: OperationMetadata): OperationMetadata | undefined {
  const template = optionValue(op, 'itemUriTemplate');
  if (typeof template === 'string') {
    const named = op.resource.operations.find(
      (o) => !o.isCollection && o.method === 'GET' && (o.path === template || o.path.endsWith(template)),
    );
    if (named) return named;
  }
  // An item read by an item Get keeps that Get's URL as its @id; any other operation (a PUT, a PATCH
  // or a custom route, whose URL may answer 405 to GET) shows the canonical item IRI.
  if (!op.isCollection && op.method === 'GET' && op.uriVariables.includes(op.resource.identifier?.name ?? '\u0000'))
    return op;
  return itemOperation(op.resource);
}

/**
 * A relation's stored value (IRIs as absolute paths) as the response writes it (url-generation.ts), or its
 * embedded objects (embedding.ts); undefined leaves the relation out.
 */
export type RelationOutput = (property: PropertyMetadata, value: unknown) => unknown;

/**
 * `relation` (undefined: the stored value) with the members of to-many relations that the reader may not see left
 * out (docs/scopes.md, "To-many members"); `relation` itself when none is hidden.
 */
export function hidingMembers(
  relation: RelationOutput | undefined,
  hidden: ReadonlySet<string> | undefined,
): RelationOutput | undefined {
  if (!hidden?.size) return relation;
  return (property, value) => {
    const shown = Array.isArray(value) ? value.filter((v) => typeof v !== 'string' || !hidden.has(v)) : value;
    return relation ? relation(property, shown) : shown;
  };
}

/**
 * `shown`: the properties the operation shows (property-access.ts); default all but the write-only ones.
 * `hidden`: those of them this user may not see (their `security` denies). `type`: the `@type`, the shortName
 * of the operation that returns the item.
 */
export function normalizeItem(
  resource: ResourceMetadata,
  item: Item,
  jsonld: boolean,
  iri: () => string,
  shown: readonly PropertyMetadata[] = resource.properties.filter((p) => !p.writeOnly),
  hidden?: ReadonlySet<string>,
  relation?: RelationOutput,
  type: string = resource.shortName,
): Record<string, unknown> {
  const out: Record<string, unknown> = jsonld ? { '@id': iri(), '@type': type } : {};
  const declared = resource.properties.length > 0;
  if (declared) {
    for (const p of shown) {
      const v = item[p.name];
      if (v === undefined || v === null || hidden?.has(p.name)) continue;
      // A relation's output may leave it out (undefined: embedding's maxDepth reached).
      const shown = relation && p.relation ? relation(p, v) : v;
      if (shown !== undefined) out[p.name] = shown;
    }
  } else {
    for (const [k, v] of Object.entries(item)) if (v !== undefined && v !== null && !k.startsWith('@')) out[k] = v;
  }
  return out;
}
