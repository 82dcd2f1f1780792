/**
 * The request pipeline: one visible chain whose stages are the seed's switches. Each stage
 * reads and changes the OperationState; any of them may end the request by throwing an
 * HttpError. `read`, `deserialize`, `validate`, `write` and `serialize` are skipped when their
 * option is false (each stage checks its own switch).
 */
import { optionValue } from '../metadata/options.js';
import { contextGroups } from '../metadata/property-access.js';
import { acceptsBatch, readBulkBody, runBatch, type ItemStages } from './bulk.js';
import { applyBody, deserialize, queryCriteria } from './input.js';
import { loadIncluded } from './jsonapi-include.js';
import { checkParameters } from './parameters.js';
import { publishUpdates } from './publish.js';
import { read } from './read.js';
import { postDenormalizeSecurity, postReadSecurity, postValidationSecurity, preReadSecurity, propertyReadSecurity } from './security.js';
import { serialize } from './serialize.js';
import { isItem, type OperationState } from './state.js';
import { validateItem } from './validate.js';
import { validationFailed } from './violations.js';
import { write } from './write.js';

type Stage = (state: OperationState) => void | Promise<void> | undefined;

async function validate(state: OperationState): Promise<void> {
  const op = state.operation;
  if (!['POST', 'PUT', 'PATCH'].includes(op.method) || !isItem(state.data)) return;
  if (optionValue<boolean>(op, state.api.settings, 'validate') === false) return;
  const violations = validateItem(op.resource, state.data, contextGroups(op.options.validationContext) ?? ['Default']);
  if (violations.length) throw validationFailed(violations);
}

export const PIPELINE: readonly [string, Stage][] = [
  ['criteria', queryCriteria],
  ['parameters', checkParameters],
  ['preReadSecurity', preReadSecurity],
  ['read', read],
  ['security', postReadSecurity],
  ['deserialize', deserialize],
  ['securityPostDenormalize', postDenormalizeSecurity],
  ['validate', validate],
  ['securityPostValidation', postValidationSecurity],
  ['write', write],
  ['publish', publishUpdates],
  ['propertySecurity', propertyReadSecurity],
  ['include', loadIncluded],
  ['serialize', serialize],
];

const stagesBetween = (first: string, last: string): Stage[] => {
  const names = PIPELINE.map(([name]) => name);
  return PIPELINE.slice(names.indexOf(first), names.indexOf(last) + 1).map(([, stage]) => stage);
};

/** What a bulk POST runs per item, around the write of the whole batch (bulk.ts). */
const ITEM_STAGES: ItemStages = {
  input: stagesBetween('securityPostDenormalize', 'securityPostValidation'),
  output: stagesBetween('publish', 'serialize'),
};

export async function runPipeline(state: OperationState): Promise<void> {
  for (const [name, stage] of PIPELINE) {
    if (name === 'deserialize' && acceptsBatch(state)) {
      // A `bulk: true` POST: an array body is a batch, anything else the body of a single POST.
      const body = await readBulkBody(state);
      if (Array.isArray(body)) return runBatch(state, body, ITEM_STAGES);
      await applyBody(state, body);
      continue;
    }
    // Stages that finish synchronously cost no trip through the microtask queue.
    const pending = stage(state);
    if (pending) await pending;
  }
}
