/**
 * Bulk POST (`bulk: true`, docs/data.md "Bulk writes"): a JSON array, or `application/x-ndjson` lines, posted to a
 * collection creates every item. Each item goes through the single POST's own stages (chain.ts hands them in:
 * denormalization, the security stages, validation) in a state of its own, item by item; nothing is written
 * unless every item passes (422 violations name the item: `[3].title`). The items are then written together
 * (write.ts `writeBatch`), each published and serialized as its single POST would be, and the response is the
 * collection of the created members.
 */
import { HttpError, badRequest, type Violation } from '../protocol/errors.js';
import { operationHydraKeys } from '../protocol/hydra.js';
import { checkInputType } from '../protocol/negotiation.js';
import { optionValue } from '../metadata/options.js';
import type { OperationMetadata, Settings } from '../metadata/types.js';
import type { Answers } from './answers.js';
import { applyBody } from './stages/deserialize.js';
import { parseJsonBody } from './representation/json-body.js';
import { JSONAPI_FORMAT } from './representation/jsonapi.js';
import { contextIri } from './representation/item-document.js';
import type { OperationState } from './state.js';
import { validationFailed } from './validation/violations.js';
import { writeBatch } from './stages/write.js';

export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

type Stage = (state: OperationState) => void | Promise<void> | undefined;

/** The single POST's stages a batch runs per item: before the write (after `applyBody`) and after it. */
export interface ItemStages {
  input: readonly Stage[];
  output: readonly Stage[];
}

/** Whether the operation takes a batch: a `bulk: true` POST whose body is deserialized. */
export function takesBatch(op: OperationMetadata, settings: Settings): boolean {
  if (op.method !== 'POST' || optionValue(op, 'bulk') !== true || optionValue(op, 'input') === false) return false;
  return optionValue(op, settings, 'deserialize') !== false;
}

/** Whether the request may carry a batch (`takesBatch`). */
export const acceptsBatch = (state: OperationState): boolean => takesBatch(state.operation, state.api.settings);

/** What a batch is refused with before its items run (`checkBatchSize`, `ndjsonItems`). */
export const batchAnswers: Answers = (op, api) =>
  takesBatch(op, api.settings)
    ? [
        {
          status: 413,
          description: `The batch holds more than ${api.settings.bulkMaxItems} items (setting bulk_max_items).`,
        },
        {
          status: 400,
          description:
            'The batch is empty, or a line of an NDJSON batch is empty or not JSON; an item names its index.',
        },
      ]
    : [];

/**
 * The parsed body of a `bulk: true` POST: an array is a batch (NDJSON always is one); anything else is the
 * body of a single POST.
 */
export async function readBulkBody(state: OperationState): Promise<unknown> {
  const settings = state.api.settings;
  const ndjson = state.contentType?.split(';')[0].trim().toLowerCase() === NDJSON_MEDIA_TYPE;
  if (!ndjson) checkInputType(state.contentType, Object.values(settings.formats).flat());
  if (ndjson) return ndjsonItems(await state.readBody(), settings.bulkMaxItems);
  const body = await state.readJsonBody('Syntax error');
  if (Array.isArray(body)) checkBatchSize(body.length, settings.bulkMaxItems);
  return body;
}

/** NDJSON: one JSON value per line, `\n` or `\r\n`, a final newline optional; no empty line. */
function ndjsonItems(text: string, max: number): unknown[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  checkBatchSize(lines.length, max);
  return lines.map((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') throw badRequest(`Line ${i + 1} of the NDJSON body is empty.`);
    try {
      return parseJsonBody(line, 'Syntax error');
    } catch (e) {
      if (e instanceof HttpError) throw badRequest(`Line ${i + 1} of the NDJSON body: ${e.detail}`);
      throw e;
    }
  });
}

function checkBatchSize(count: number, max: number): void {
  if (count === 0) throw badRequest('The batch is empty: send at least one item.');
  if (count > max)
    throw new HttpError(413, `The batch holds ${count} items, more than the limit of ${max} (setting bulk_max_items).`);
}

/** Runs the rest of the pipeline for a batch: each item's stages, the write of them all, the response. */
export async function runBatch(state: OperationState, bodies: readonly unknown[], stages: ItemStages): Promise<void> {
  const items: OperationState[] = [];
  const violations: Violation[] = [];
  for (const [index, body] of bodies.entries()) {
    const item = itemState(state);
    try {
      await applyBody(item, body);
      for (const stage of stages.input) {
        const pending = stage(item);
        if (pending) await pending;
      }
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      if (e.options.violations) {
        // Validated item by item: every invalid item's violations are reported together.
        for (const v of e.options.violations)
          violations.push({
            ...v,
            propertyPath: `[${index}]${v.propertyPath && !v.propertyPath.startsWith('[') ? '.' : ''}${v.propertyPath}`,
          });
        continue;
      }
      if (e.status === 400) throw new HttpError(400, `Item [${index}]: ${e.detail}`, e.options);
      throw e; // a security denial (401/403) refuses the whole batch as it is
    }
    items.push(item);
  }
  if (violations.length > 0) throw validationFailed(violations);
  await writeBatch(state, items);
  for (const item of items) {
    for (const stage of stages.output) {
      const pending = stage(item);
      if (pending) await pending;
    }
  }
  state.body = batchDocument(state, items);
}

/**
 * An item's own state: the request's, with its own body, data and results (also each record of an import:
 * import.ts). Written out field by field: a spread of the request's state costs some 20 µs an item (V8 copies an
 * object of this size slowly).
 */
export const itemState = (state: OperationState): OperationState => ({
  api: state.api,
  operation: state.operation,
  runtime: state.runtime,
  storeCollection: state.storeCollection,
  request: { ...state.request },
  readBody: state.readBody,
  readJsonBody: state.readJsonBody,
  contentType: state.contentType,
  criteria: state.criteria,
  uriVariables: state.uriVariables,
  output: state.output,
  path: state.path,
  origin: state.origin,
  data: null,
  previousData: state.previousData,
  created: false,
  collectionIri: state.collectionIri,
  principal: state.principal,
  jsonApi: state.jsonApi,
  representation: { kind: 'batch-member' },
});

/**
 * The response: the created members, each as its single POST answers it, in a Hydra Collection (JSON-LD), a
 * bare array (JSON) or a JSON:API `data` array. No body when the items have none (`serialize: false`…).
 */
function batchDocument(state: OperationState, items: OperationState[]): unknown {
  if (items.some((item) => item.body === undefined)) return undefined;
  const bodies = items.map((item) => item.body as Record<string, unknown>);
  if (state.output.name === JSONAPI_FORMAT) return { data: bodies.map((body) => body.data) };
  if (state.output.name !== 'jsonld') return bodies;
  const keys = operationHydraKeys(state.operation, state.api.settings);
  return {
    '@context': contextIri(state.operation),
    '@id': state.collectionIri,
    '@type': keys.collectionType,
    [keys.totalItems]: bodies.length,
    [keys.member]: bodies,
  };
}
