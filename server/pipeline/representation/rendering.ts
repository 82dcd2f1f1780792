/**
 * Collection members rendered when they are written. The SQLite store keeps, beside each item, its
 * JSON-LD member text exactly as a collection page shows it (`normalizeItem`, then JSON.stringify), made
 * again on every write; a page then copies stored texts instead of decoding, normalizing and encoding
 * every item (docs/behaviour.md, "Rendered members"). It applies only where that text depends on the item
 * alone: a resource with an identifier whose item IRI template has no other variable, read by the default
 * provider with no processor or controller that could change the items, shown with the resource's
 * own item IRIs (no `itemUriTemplate` naming another route) and `@type` (no operation shortName), with every property the stored text holds
 * (no serialization groups that leave some out or embed related items), and with no property `security` and no operation
 * `security` that reads the items (what such a page shows depends on the user).
 */
import { createHash } from 'node:crypto';
import { itemIri, itemOperation } from '../../protocol/iri.js';
import { perOperation } from '../../metadata/options.js';
import { restrictsOutput } from '../../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { CollectionSpec, Item, Rendering } from '../../store/types.js';
import { PACKAGE_VERSION } from '../../version.js';
import { embedsRelations } from './embedding.js';
import { JsonText } from './json-text.js';
import { JSONAPI_FORMAT } from './jsonapi.js';
import { iriOperation, normalizeItem } from './normalize.js';
import { showsPathsOnly } from './url-generation.js';
import { securityReadsObject } from '../guards.js';
import { scopedMemberRelations } from '../scoped-members.js';

/**
 * Part of every rendering version, with the package's: bump it when normalizeItem or itemIri change what
 * they produce, so that stored texts are rendered again.
 */
const RECIPE = 1;

/** The resource's storage, with its member rendering when it has one. */
export function storageSpec(resource: ResourceMetadata): CollectionSpec {
  const rendering = memberRendering(resource);
  return rendering ? { ...resource.storage, rendering } : resource.storage;
}

function memberRendering(resource: ResourceMetadata): Rendering | undefined {
  const via = itemOperation(resource);
  const idName = resource.identifier?.name;
  if (!via || idName === undefined || via.uriVariables.some((name) => name !== idName)) return undefined;
  const recipe = [
    RECIPE,
    PACKAGE_VERSION,
    resource.shortName,
    via.path,
    idName,
    resource.properties.map((p) => [p.name, p.writeOnly]),
  ];
  return {
    version: createHash('sha1').update(JSON.stringify(recipe)).digest('base64url'),
    render: (item: Item) => JSON.stringify(normalizeItem(resource, item, true, () => itemIri(resource, item, via))),
  };
}

/**
 * Whether a page of the operation may be served from the stored member texts, decided once per operation (the
 * store still decides whether it has them; JSON:API builds its own documents, see `readsStoredMembers`).
 */
export const servesStoredMembers = perOperation(
  (op, api: ApiMetadata): boolean =>
    op.isCollection &&
    !op.provider &&
    !op.processor &&
    !op.controller &&
    iriOperation(op) === itemOperation(op.resource) &&
    // The stored texts carry the resource's @type.
    op.shortName === op.resource.shortName &&
    !restrictsOutput(op, api.settings) &&
    // The stored texts hold relations as IRIs.
    !embedsRelations(op, api) &&
    // What a member shows (or whether the page is shown) may depend on the user.
    !op.resource.properties.some((p) => p.security) &&
    !securityReadsObject(op, api.settings) &&
    // The stored texts list every member of a to-many relation; a scope on the target hides some of them.
    scopedMemberRelations(api, op.resource).length === 0 &&
    // The stored texts hold IRIs as paths: the operation and its relations must show them so.
    showsPathsOnly(op, api),
);

/**
 * Whether an item operation shows an item as its stored text holds it (GraphQL reads related items so,
 * graphql/prefetch.ts): the conditions of `servesStoredMembers` for one item, the identifier shown (the texts are
 * matched to their items by it).
 */
export const servesStoredItems = perOperation(
  (op, api: ApiMetadata): boolean =>
    !op.isCollection &&
    !op.provider &&
    iriOperation(op)?.path === itemOperation(op.resource)?.path &&
    op.shortName === op.resource.shortName &&
    !restrictsOutput(op, api.settings) &&
    !embedsRelations(op, api) &&
    op.resource.identifier?.writeOnly === false &&
    !op.resource.properties.some((p) => p.security) &&
    !securityReadsObject(op, api.settings) &&
    scopedMemberRelations(api, op.resource).length === 0 &&
    showsPathsOnly(op, api),
);

/** Whether this request's page is read as stored member texts: the operation serves them, in JSON-LD or JSON. */
export const readsStoredMembers = (op: OperationMetadata, api: ApiMetadata, output: string): boolean =>
  output !== JSONAPI_FORMAT && servesStoredMembers(op, api);

/** A page's stored JSON-LD member texts as the JSON array of its members, JSON-LD or plain JSON. */
export function storedMembersArray(texts: string[], resource: ResourceMetadata, jsonld: boolean): JsonText {
  return new JsonText(`[${(jsonld ? texts : texts.map(plainMember(resource))).join(',')}]`);
}

/** The plain JSON member of a rendered JSON-LD member: the same text without its `@id` and `@type`. */
function plainMember(resource: ResourceMetadata): (text: string) => string {
  // The @id is a JSON string, so the first `"@type":"<type>"` is the member's own.
  const type = `"@type":${JSON.stringify(resource.shortName)}`;
  return (text) => {
    const rest = text.slice(text.indexOf(type) + type.length);
    return rest === '}' ? '{}' : `{${rest.slice(1)}`;
  };
}
