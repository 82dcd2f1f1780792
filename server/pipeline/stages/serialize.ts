/**
 * Stage "serialize": the response body. Items in JSON-LD (`@context` on the top-level
 * document, `@id`, `@type`, then the properties; write-only ones and nulls left out) or plain
 * JSON; collections as the Hydra collection document or, in JSON, a bare array.
 */
import { Readable } from 'node:stream';
import { operationHydraKeys } from '../../protocol/hydra.js';
import { itemIri } from '../../protocol/iri.js';
import { answersWithBody } from '../../metadata/operation-facts.js';
import { shownProperties } from '../../metadata/property-access.js';
import type { PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { JsonText, spliced } from '../representation/json-text.js';
import { collectionEnvelope, JSONAPI_FORMAT, JSONAPI_VIEW_KEYS, resourceObject } from '../representation/jsonapi.js';
import { contextIri, itemDocument } from '../representation/item-document.js';
import { hidingMembers, iriOperation, normalizeItem, type RelationOutput } from '../representation/normalize.js';
import { pageView } from '../pages/pagination.js';
import { asPage } from '../pages/page.js';
import { storedMembersArray } from '../representation/rendering.js';
import { searchTemplate } from '../filters/search-template.js';
import { relationOutput, styledView, urlStyle, type UrlStyle } from '../representation/url-generation.js';
import { isItem, type OperationState, type Page } from '../state.js';
import { factsOf, hiddenPropertiesFor } from '../guards.js';
import { ReadEmbeddedItems } from '../relations/embedded-items.js';
import { readableCollectionOf } from '../scopes.js';
import { scopedMemberRelations, unreadableMembers } from '../scoped-members.js';
import { embeddingPlan, EmbeddingWriter, type EmbeddingPlan } from '../representation/embedding.js';
import { memberTexts } from '../representation/member-text.js';

export function serialize(state: OperationState): void | Promise<void> {
  const op = state.operation;
  const settings = state.api.settings;
  const resource = op.resource;
  const via = iriOperation(op);
  // urlGenerationStrategy: the operation's for its own links, the item Get's for item IRIs, the targets' for relations.
  const style = urlStyle(op, settings, state);
  const itemUrl = urlStyle(via, settings, state);
  const iriOf = (item: Item) => (): string => itemUrl(itemIri(resource, item, via, state.uriVariables));
  // The item's IRI (for Location and Content-Location), also when there is no body.
  const subject = [state.data, state.previousData].find(isItem);
  if (subject && !op.isCollection && resource.identifier) state.iri = iriOf(subject)();
  if (!answersWithBody(op, settings)) return;
  // To-many members outside the reader's read scope are left out: found first (docs/scopes.md).
  if (!state.hiddenMembers && listsScopedMembers(state)) return findHiddenMembers(state).then(() => serialize(state));
  const relation = hidingMembers(relationOutput(state.api, resource, state), state.hiddenMembers);
  const jsonld = state.output.name === 'jsonld';
  const shown = shownProperties(op, settings);
  const hidden = state.hiddenProperties;
  if (state.output.name === JSONAPI_FORMAT) return serializeJsonApi(state, shown, iriOf, style, relation);
  if (op.isCollection && !state.page && state.data != null) state.page = asPage(state.data, state);
  if (state.representation.kind === 'values')
    return serializeValues(state, (item) =>
      normalizeItem(resource, item, jsonld, iriOf(item), shown, hidden?.get(item), relation, op.shortName),
    );
  // Related items shown as objects are read first (GraphQL's values and JSON:API keep their relations apart).
  const plan = state.embedded ? undefined : embeddingPlan(op, state.api);
  if (plan) return readEmbedded(state, plan).then(() => serialize(state));
  const relationsOf = state.embedded ? state.embedded.relationsOf : () => relation;
  if (op.isCollection && state.page) {
    const normalize = (item: Item) =>
      normalizeItem(resource, item, jsonld, iriOf(item), shown, hidden?.get(item), relationsOf(item), op.shortName);
    if (state.page.stream) {
      state.body = streamedCollection(state, state.page.stream, normalize);
      return;
    }
    const written = memberTexts(op, settings)?.[jsonld ? 'jsonld' : 'json'];
    const members = state.page.rendered
      ? storedMembersArray(state.page.items as string[], resource, jsonld)
      : pageMembers(
          state.page.items,
          normalize,
          written && ((item) => written(item, iriOf(item)(), hidden?.get(item), relationsOf(item))),
        );
    if (!jsonld) {
      state.body = members;
      return;
    }
    state.body = hydraCollection(state, state.page, members, style);
    return;
  }
  if (!isItem(state.data)) {
    state.body = state.data ?? undefined;
    return;
  }
  state.body = itemDocument(state.api, op, state.data, {
    jsonld,
    at: state,
    iri: state.iri ?? iriOf(state.data)(),
    hidden: hidden?.get(state.data),
    member: state.representation.kind === 'batch-member',
    relations: state.embedded?.relationsOf(state.data) ?? relation,
  });
}

/**
 * A page's items (anything else it holds left out) as its members: the JSON array of their texts where the
 * operation has a member writer (member-text.ts), else their normalized objects.
 */
function pageMembers(
  items: unknown[],
  normalize: (item: Item) => Record<string, unknown>,
  written: ((item: Item) => string) | undefined,
): JsonText | Record<string, unknown>[] {
  if (!written) return items.filter(isItem).map(normalize);
  let array = '[';
  for (const item of items) if (isItem(item)) array += array === '[' ? written(item) : `,${written(item)}`;
  return new JsonText(`${array}]`);
}

/** The Hydra collection document of a page: its members between the head (`@id`, total) and the view and search. */
function hydraCollection(
  state: OperationState,
  page: Page,
  members: JsonText | Record<string, unknown>[],
  style: UrlStyle,
): unknown {
  const op = state.operation;
  const keys = operationHydraKeys(op, state.api.settings);
  const head: Record<string, unknown> = {
    '@context': style(contextIri(op)),
    '@id': style(state.collectionIri),
    '@type': keys.collectionType,
  };
  if (page.total !== undefined) head[keys.totalItems] = page.total;
  const tail: Record<string, unknown> = {};
  const view = styledView(pageView(page, state.path, state.request.query, state.api.settings, keys), style);
  if (view) tail[keys.view] = view;
  const search = searchTemplate(state.api, op, state.path, keys);
  if (search) tail[keys.search] = search;
  return members instanceof JsonText
    ? spliced(head, keys.member, members, tail)
    : { ...head, [keys.member]: members, ...tail };
}

/** Items of a streamed collection whose related items are read together. */
const STREAM_BATCH = 100;

/**
 * Reads the related items the response embeds (relations/embedded-items.ts) and records how its items' relations
 * are written; a streamed collection's are read a batch at a time as it is written, so memory stays flat.
 */
async function readEmbedded(state: OperationState, plan: EmbeddingPlan): Promise<void> {
  const { api, operation: op } = state;
  const hiddenOf = hiddenPropertiesFor(factsOf(state));
  const writerOf = async (items: Item[]) => {
    // Related items are read through their own resource's read scope: one outside it stays an IRI.
    const reader = { api, collectionOf: readableCollectionOf(state) };
    const read = await new ReadEmbeddedItems().read(reader, plan, op, items, hiddenOf);
    // The to-many members of the embedded items, as the response's own (docs/scopes.md, "To-many members").
    const hidden = (state.hiddenMembers ??= new Set());
    for (const [resource, embedded] of read.itemsByResource())
      await unreadableMembers(api, reader.collectionOf, resource, embedded, hidden);
    return { read, writer: new EmbeddingWriter(plan, read, state.output.name === 'jsonld', state, hidden) };
  };
  const fallback = relationOutput(api, op.resource, state);
  const hidden = state.hiddenProperties;
  const page = state.page;
  if (page?.stream) {
    let writer: EmbeddingWriter | undefined;
    page.stream = inBatches(page.stream, STREAM_BATCH, async (batch) => {
      writer = (await writerOf(batch.filter(isItem))).writer;
    });
    state.embedded = {
      relationsOf: (item) => writer!.relationsFor(op.resource, item, hidden?.get(item), fallback),
      iris: new Set(),
      streamedTargets: plan.targets(),
    };
    return;
  }
  const { read, writer } = await writerOf((page ? page.items : [state.data]).filter(isItem));
  state.embedded = {
    relationsOf: (item) => writer.relationsFor(op.resource, item, hidden?.get(item), fallback),
    iris: new Set(read.iris()),
  };
}

/**
 * The to-many members of the response's items that the reader may not see (scoped-members.ts), into
 * `state.hiddenMembers`; a streamed collection's batch by batch as it is written.
 */
async function findHiddenMembers(state: OperationState): Promise<void> {
  const { api, operation: op } = state;
  const hidden = (state.hiddenMembers = new Set());
  const collectionOf = readableCollectionOf(state);
  const find = (items: unknown[]) => unreadableMembers(api, collectionOf, op.resource, items.filter(isItem), hidden);
  if (op.isCollection && !state.page && state.data != null) state.page = asPage(state.data, state);
  const page = state.page;
  if (page?.stream) {
    page.stream = inBatches(page.stream, STREAM_BATCH, async (batch) => void (await find(batch)));
    return;
  }
  await find(page ? page.items : [state.data]);
  // JSON:API's included items (stages/include.ts) show their relations too.
  const included = new Map<ResourceMetadata, Item[]>();
  for (const { resource, item } of state.included ?? [])
    included.set(resource, [...(included.get(resource) ?? []), item]);
  for (const [resource, items] of included) await unreadableMembers(api, collectionOf, resource, items, hidden);
}

/** Whether the response's items or its JSON:API included items have to-many relations read through a scope. */
const listsScopedMembers = (state: OperationState): boolean =>
  [state.operation.resource, ...(state.included ?? []).map((i) => i.resource)].some(
    (resource) => scopedMemberRelations(state.api, resource).length > 0,
  );

/** `source`'s values, `onBatch` awaited before each batch of `size` of them is handed on. */
async function* inBatches(
  source: AsyncIterable<unknown>,
  size: number,
  onBatch: (batch: unknown[]) => Promise<void>,
): AsyncGenerator<unknown> {
  let batch: unknown[] = [];
  for await (const value of source) {
    batch.push(value);
    if (batch.length < size) continue;
    await onBatch(batch);
    yield* batch;
    batch = [];
  }
  if (batch.length) {
    await onBatch(batch);
    yield* batch;
  }
}

/**
 * What an adapter that writes its own documents asked for (state.ts, `Representation`): the item's
 * JSON-LD value, or a collection's members with the page they came from; a stream (pagination off) is read whole.
 */
async function serializeValues(
  state: OperationState,
  normalize: (item: Item) => Record<string, unknown>,
): Promise<void> {
  const page = state.page;
  if (!state.operation.isCollection || !page) {
    state.body = isItem(state.data) ? normalize(state.data) : (state.data ?? undefined);
    return;
  }
  const members: unknown[] = [];
  if (page.stream) for await (const item of page.stream) members.push(isItem(item) ? normalize(item) : item);
  // One parse of the page's texts costs less than one per text.
  else if (page.rendered) members.push(...(JSON.parse(`[${(page.items as string[]).join(',')}]`) as unknown[]));
  else for (const item of page.items) members.push(isItem(item) ? normalize(item) : item);
  state.body = { members, page };
}

/** The JSON:API document of an item or a collection (jsonapi.ts). */
function serializeJsonApi(
  state: OperationState,
  shown: readonly PropertyMetadata[],
  iriOf: (item: Item) => () => string,
  style: UrlStyle,
  relation: RelationOutput | undefined,
): void {
  const { api, operation: op } = state;
  const hidden = state.hiddenProperties;
  // Sparse fieldsets (`fields[Book]=title,author`) keep only the members they name of that type's objects.
  const fieldsOf = (type: string, properties: readonly PropertyMetadata[]) => {
    const names = state.jsonApi?.fields.get(type);
    return names ? properties.filter((p) => names.has(p.name)) : properties;
  };
  const own = fieldsOf(op.resource.shortName, shown);
  // Property `security`: what this user may not see of an item is left out of its attributes too.
  const visible = (item: Item) => {
    const names = hidden?.get(item);
    return names ? own.filter((p) => !names.has(p.name)) : own;
  };
  const object = (item: Item, iri = iriOf(item)()) =>
    resourceObject(api, op.resource, item, iri, visible(item), relation);
  if (op.isCollection && !state.page && state.data != null) state.page = asPage(state.data, state);
  let document: Record<string, unknown>;
  if (op.isCollection && state.page) {
    const page = state.page;
    const selfIri = style(state.path.replace(/\.jsonapi$/, ''));
    if (page.stream) {
      const stream = page.stream;
      state.body = Readable.from(
        (async function* () {
          yield '{"data":[';
          let count = 0;
          for await (const item of stream)
            if (isItem(item)) yield (count++ === 0 ? '' : ',') + JSON.stringify(object(item));
          yield `],${JSON.stringify(collectionEnvelope(selfIri, undefined, { totalItems: count })).slice(1)}`;
        })(),
        { objectMode: false },
      );
      return;
    }
    const view = styledView(pageView(page, state.path, state.request.query, api.settings, JSONAPI_VIEW_KEYS), style);
    const meta = page.request.enabled
      ? { totalItems: page.total, itemsPerPage: page.request.itemsPerPage, currentPage: page.request.page }
      : { totalItems: page.total };
    document = {
      ...collectionEnvelope(selfIri, view, meta),
      data: page.items.filter(isItem).map((item) => object(item)),
    };
  } else if (!isItem(state.data)) {
    state.body = state.data ?? undefined;
    return;
  } else {
    document = { data: object(state.data, state.iri ?? iriOf(state.data)()) };
  }
  if (state.included) {
    // A compound document: each included item once, never one of the primary data.
    const primary = new Set(
      (Array.isArray(document.data) ? document.data : [document.data]).map(
        (d: { type: string; id: string }) => `${d.type} ${d.id}`,
      ),
    );
    document.included = state.included
      .map(({ resource, via, item, iri }) =>
        resourceObject(
          api,
          resource,
          item,
          urlStyle(via, api.settings, state)(iri),
          fieldsOf(resource.shortName, shownProperties(via, api.settings)),
          hidingMembers(relationOutput(api, resource, state), state.hiddenMembers),
        ),
      )
      .filter((o) => !primary.has(`${o.type} ${o.id}`));
  }
  state.body = document;
}

/**
 * An unpaginated collection as a stream of JSON text, so that memory stays flat whatever its
 * size: members are written as the store yields them, and `totalItems` (their count) after
 * them. Key order carries no meaning in JSON-LD.
 */
function streamedCollection(
  state: OperationState,
  items: AsyncIterable<unknown>,
  normalize: (item: Item) => Record<string, unknown>,
): Readable {
  const jsonld = state.output.name === 'jsonld';
  const keys = operationHydraKeys(state.operation, state.api.settings);
  const style = urlStyle(state.operation, state.api.settings, state);
  const view = jsonld
    ? styledView(pageView(state.page!, state.path, state.request.query, state.api.settings, keys), style)
    : undefined;
  const head = jsonld
    ? `${JSON.stringify({ '@context': style(contextIri(state.operation)), '@id': style(state.collectionIri), '@type': keys.collectionType }).slice(0, -1)},${JSON.stringify(keys.member)}:[`
    : '[';
  async function* chunks(): AsyncGenerator<string> {
    yield head;
    let count = 0;
    let batch = '';
    for await (const item of items) {
      if (!isItem(item)) continue;
      batch += (count++ === 0 ? '' : ',') + JSON.stringify(normalize(item));
      if (batch.length > 65536) {
        yield batch;
        batch = '';
      }
    }
    yield batch;
    if (!jsonld) yield ']';
    else {
      const search = searchTemplate(state.api, state.operation, state.path, keys);
      const tail = {
        [keys.totalItems]: count,
        ...(view ? { [keys.view]: view } : {}),
        ...(search ? { [keys.search]: search } : {}),
      };
      yield `],${JSON.stringify(tail).slice(1)}`;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
