/**
 * The request pipeline: one visible chain of stages, each in stages/<stage-name>.ts. Each stage
 * reads and changes the OperationState; any of them may end the request by throwing an
 * HttpError. `read`, `deserialize`, `validate`, `write` and `serialize` are skipped when their
 * option is false (each stage checks its own switch; docs/options.md).
 *
 * Which stages can do anything for an operation is decided once per operation, from its metadata alone
 * (`stagesOf`): each stage that can be idle exports the test it applies first (its own early return), and a
 * request runs only the stages that pass it. Skipping is no shortcut: a skipped stage would have returned
 * without looking at the request (test/http/pipeline-stages.test.ts runs every skipped stage to show it).
 */
import { acceptsBatch, readBulkBody, runBatch, type ItemStages } from './bulk.js';
import { perOperation } from '../metadata/options.js';
import type { OperationMetadata, Settings } from '../metadata/types.js';
import { securityReadsObject } from './guards.js';
import { queryCriteria, readsCriteria } from './stages/criteria.js';
import { applyBody, deserialize, deserializes } from './stages/deserialize.js';
import { checksFilterSecurity, filterSecurity } from './stages/filter-security.js';
import { loadIncluded, mayInclude } from './stages/include.js';
import { checkParameters, checksParameters } from './stages/parameters.js';
import { preReadSecurity, securityBeforeRead } from './stages/pre-read-security.js';
import { propertyReadSecurity, readGuarded } from './stages/property-security.js';
import { publishUpdates } from './stages/publish.js';
import { read, reads } from './stages/read.js';
import { postDenormalizeSecurity, securityAfterDenormalize } from './stages/security-post-denormalize.js';
import { postValidationSecurity, securityAfterValidation } from './stages/security-post-validation.js';
import { postReadSecurity } from './stages/security.js';
import { serialize } from './stages/serialize.js';
import { validate, validates } from './stages/validate.js';
import { write, writes } from './stages/write.js';
import type { OperationState } from './state.js';

type Stage = (state: OperationState) => void | Promise<void> | undefined;
/** Whether a stage can do anything for an operation; false only where the stage would return at once. */
type Acts = (op: OperationMetadata, settings: Settings) => boolean;

/** The stages in order: name, stage, and when it acts (absent: for every operation). */
export const PIPELINE: readonly [string, Stage, Acts?][] = [
  ['criteria', queryCriteria, readsCriteria],
  ['parameters', checkParameters, checksParameters],
  ['preReadSecurity', preReadSecurity, securityBeforeRead],
  ['filterSecurity', filterSecurity, checksFilterSecurity],
  ['read', read, reads],
  ['security', postReadSecurity, securityReadsObject],
  ['deserialize', deserialize, deserializes],
  ['securityPostDenormalize', postDenormalizeSecurity, securityAfterDenormalize],
  ['validate', validate, validates],
  ['securityPostValidation', postValidationSecurity, securityAfterValidation],
  ['write', write, writes],
  // Changes come from the write, from custom code's `ctx.persist` and from a batch's items: always run.
  ['publish', publishUpdates],
  ['propertySecurity', propertyReadSecurity, (op, settings) => readGuarded(op, settings).length > 0],
  ['include', loadIncluded, mayInclude],
  ['serialize', serialize],
];

/** The stages that can do anything for an operation, in order (made once per operation). */
export const stagesOf = perOperation((op, settings): readonly [string, Stage][] =>
  PIPELINE.filter(([, , acts]) => acts === undefined || acts(op, settings)).map(([name, stage]) => [name, stage]),
);

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
  for (const [name, stage] of stagesOf(state.operation, state.api.settings)) {
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
