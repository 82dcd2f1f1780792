/**
 * Stage "include" of a JSON:API request with `include=author,coauthors.publisher` (jsonapi-query.ts): the
 * items each relationship path reaches, level by level (the coauthors, then their publishers), are read once
 * each, to be served as the compound document's `included` resource objects, each with the properties its
 * resource's item Get shows. A relation whose target is read under a guard (the item
 * Get's `security`, or property `security`) cannot be included (400): what it would show depends on rules
 * this stage does not run, so it fails closed.
 */
import { badRequest } from '../../protocol/errors.js';
import type { Answers } from '../answers.js';
import { iriResolver, itemOperation } from '../../protocol/iri.js';
import { isGuarded } from '../guards.js';
import { isItem, type IncludedItem, type OperationState } from '../state.js';
import type { OperationMetadata, ResourceMetadata, Settings } from '../../metadata/types.js';
import { JSONAPI_FORMAT } from '../representation/jsonapi.js';
import type { Collection, Item } from '../../store/types.js';
import { readableCollectionOf } from '../scopes.js';

/** Whether the stage may have anything to do: only a JSON:API request asks for `include`. */
export const mayInclude = (_op: OperationMetadata, settings: Settings): boolean =>
  Object.hasOwn(settings.formats, JSONAPI_FORMAT);

/** A relationship whose items are read under guards cannot be included. */
export const includeAnswers: Answers = () => [
  {
    status: 400,
    description: 'A JSON:API `include` names a relationship whose items are read under their own guards.',
  },
];

export async function loadIncluded(state: OperationState): Promise<void> {
  const paths = state.jsonApi?.include ?? [];
  if (paths.length === 0 || state.body !== undefined) return;
  const { api, operation: op } = state;
  if (op.isCollection && state.page?.stream) {
    // An unpaginated collection is streamed; with `include` its items are needed twice.
    const items: unknown[] = [];
    for await (const item of state.page.stream) items.push(item);
    state.page = { ...state.page, items, stream: undefined, total: items.length };
  }
  const primary = op.isCollection ? (state.page?.items ?? []).filter(isItem) : [state.data].filter(isItem);
  // Every item read once, by IRI, whichever paths reach it; `included` keeps the order they were reached in.
  const read = new Map<string, IncludedItem | null>();
  // Through the read scope of each target's item Get: an item outside it is not included (docs/scopes.md).
  const collectionOf = readableCollectionOf(state);
  for (const path of paths) {
    let resource = op.resource;
    let items: Iterable<Item> = primary;
    for (const name of path) {
      const property = resource.properties.find((p) => p.name === name)!;
      const target = api.resource(property.relation!)!;
      const via = itemOperation(target)!;
      if (isGuarded(via, api.settings) || target.properties.some((p) => p.security)) {
        throw badRequest(
          `The relationship "${name}" cannot be included: its items are not readable without their own guards.`,
        );
      }
      const next = new Set<Item>();
      for (const item of items) {
        // Property `security` of the primary items (included ones have none: refused above).
        if (state.hiddenProperties?.get(item)?.has(name)) continue;
        const value = item[name];
        for (const iri of (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string')) {
          if (!read.has(iri)) {
            const found = await readByIri(state, collectionOf(target), target, iri);
            read.set(iri, found && { resource: target, via, item: found, iri });
          }
          const included = read.get(iri);
          if (included) next.add(included.item);
        }
      }
      resource = target;
      items = next;
    }
  }
  state.included = [...read.values()].filter((i): i is IncludedItem => i !== null);
}

async function readByIri(
  state: OperationState,
  collection: Collection,
  target: ResourceMetadata,
  iri: string,
): Promise<Item | null> {
  const value = iriResolver(state.api).identifierOf(target, iri);
  return value === undefined ? null : collection.get(value);
}
