/**
 * The request pipeline: one visible chain of stages, each in stages/<stage-name>.ts. Each stage
 * reads and changes the OperationState; any of them may end the request by throwing an
 * HttpError. `read`, `deserialize`, `validate`, `write` and `serialize` are skipped when their
 * option is false (each stage checks its own switch; docs/options.md).
 */
import { acceptsBatch, readBulkBody, runBatch, type ItemStages } from './bulk.js';
import { queryCriteria } from './stages/criteria.js';
import { applyBody, deserialize } from './stages/deserialize.js';
import { loadIncluded } from './stages/include.js';
import { checkParameters } from './stages/parameters.js';
import { preReadSecurity } from './stages/pre-read-security.js';
import { propertyReadSecurity } from './stages/property-security.js';
import { publishUpdates } from './stages/publish.js';
import { read } from './stages/read.js';
import { postDenormalizeSecurity } from './stages/security-post-denormalize.js';
import { postValidationSecurity } from './stages/security-post-validation.js';
import { postReadSecurity } from './stages/security.js';
import { serialize } from './stages/serialize.js';
import { validate } from './stages/validate.js';
import { write } from './stages/write.js';
import type { OperationState } from './state.js';

type Stage = (state: OperationState) => void | Promise<void> | undefined;

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
