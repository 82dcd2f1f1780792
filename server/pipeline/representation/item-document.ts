/**
 * The document of one item as an operation shows it: JSON-LD (`@context` first, unless the item is a member of
 * a bulk batch's document, then `@id`, `@type` and the properties) or plain JSON. The "serialize" stage writes
 * an item operation's body with it; the Mercure updates of committed changes (writes/mercure-updates.ts) publish
 * a saved item as its Get shows it.
 */
import { itemIri } from '../../protocol/iri.js';
import { shownProperties } from '../../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { iriOperation, normalizeItem, type RelationOutput } from './normalize.js';
import { relationOutput, urlStyle, type RequestPlace } from './url-generation.js';

/** The context of what an operation returns: its own shortName's (docs/behaviour.md, "Operation shortName"). */
export const contextIri = (op: OperationMetadata): string => `/contexts/${op.shortName}`;

export interface ItemDocumentOptions {
  jsonld: boolean;
  /** Where the request was sent (absolute and relative IRIs are written from it). */
  at: RequestPlace;
  /** The operation's URI variables, for an item IRI template with more than the identifier. */
  uriVariables?: Record<string, string>;
  /** The item's IRI, when the caller already made it. */
  iri?: string;
  /** Properties left out: those whose `security` denies the reader. */
  hidden?: ReadonlySet<string>;
  /** A member of a batch's document: no `@context` of its own. */
  member?: boolean;
  /** How its relations are written, when it embeds related items (embedding.ts); default their IRIs. */
  relations?: RelationOutput;
}

/** The item's IRI as `op` writes it (the style of the operation whose template makes it, its item Get). */
export function itemDocumentIri(
  api: ApiMetadata,
  op: OperationMetadata,
  item: Item,
  at: RequestPlace,
  uriVariables?: Record<string, string>,
): string {
  const via = iriOperation(op);
  return urlStyle(via, api.settings, at)(itemIri(op.resource, item, via, uriVariables));
}

export function itemDocument(
  api: ApiMetadata,
  op: OperationMetadata,
  item: Item,
  options: ItemDocumentOptions,
): Record<string, unknown> {
  const { jsonld, at } = options;
  const iri = options.iri ?? itemDocumentIri(api, op, item, at, options.uriVariables);
  const body = normalizeItem(
    op.resource,
    item,
    jsonld,
    () => iri,
    shownProperties(op, api.settings),
    options.hidden,
    options.relations ?? relationOutput(api, op.resource, at),
    op.shortName,
  );
  return jsonld && !options.member ? { '@context': urlStyle(op, api.settings, at)(contextIri(op)), ...body } : body;
}
