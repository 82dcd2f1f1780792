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
import { acceptsBatch, batchAnswers, readBulkBody, runBatch, type ItemStages } from './bulk.js';
import { perOperation } from '../metadata/options.js';
import type { OperationMetadata, Settings } from '../metadata/types.js';
import { securityReadsObject } from './guards.js';
import { criteriaAnswers, queryCriteria, readsCriteria } from './stages/criteria.js';
import { applyBody, deserialize, deserializeAnswers, deserializes } from './stages/deserialize.js';
import { checksFilterSecurity, filterSecurity, filterSecurityAnswers } from './stages/filter-security.js';
import { includeAnswers, loadIncluded, mayInclude } from './stages/include.js';
import { checkParameters, checksParameters, parametersAnswers } from './stages/parameters.js';
import { preReadSecurity, preReadSecurityAnswers, securityBeforeRead } from './stages/pre-read-security.js';
import { propertyReadSecurity, readGuarded } from './stages/property-security.js';
import { publishUpdates } from './stages/publish.js';
import { read, readAnswers, reads } from './stages/read.js';
import {
  postDenormalizeSecurity,
  securityAfterDenormalize,
  securityPostDenormalizeAnswers,
} from './stages/security-post-denormalize.js';
import {
  postValidationSecurity,
  securityAfterValidation,
  securityPostValidationAnswers,
} from './stages/security-post-validation.js';
import { postReadSecurity, securityAnswers } from './stages/security.js';
import { serialize } from './stages/serialize.js';
import { validate, validateAnswers, validates } from './stages/validate.js';
import { write, writeAnswers, writes } from './stages/write.js';
import type { OperationState } from './state.js';
import type { Answers } from './answers.js';

type Stage = (state: OperationState) => void | Promise<void> | undefined;
/** Whether a stage can do anything for an operation; false only where the stage would return at once. */
type Acts = (op: OperationMetadata, settings: Settings) => boolean;

export interface PipelineStage {
  name: string;
  run: Stage;
  /** When it acts (absent: for every operation). */
  acts?: Acts;
  /** What it can answer instead of the success (absent: nothing), for the documentation (openapi/responses.ts). */
  answers?: Answers;
  /** It decides who may do what (a security rule): the administrator's import does not run it (import.ts). */
  checksAccess?: true;
}

/** The stages in order. */
export const PIPELINE: readonly PipelineStage[] = [
  { name: 'criteria', run: queryCriteria, acts: readsCriteria, answers: criteriaAnswers },
  { name: 'parameters', run: checkParameters, acts: checksParameters, answers: parametersAnswers },
  {
    name: 'preReadSecurity',
    run: preReadSecurity,
    acts: securityBeforeRead,
    answers: preReadSecurityAnswers,
    checksAccess: true,
  },
  {
    name: 'filterSecurity',
    run: filterSecurity,
    acts: checksFilterSecurity,
    answers: filterSecurityAnswers,
    checksAccess: true,
  },
  { name: 'read', run: read, acts: reads, answers: readAnswers },
  { name: 'security', run: postReadSecurity, acts: securityReadsObject, answers: securityAnswers, checksAccess: true },
  {
    name: 'deserialize',
    run: deserialize,
    acts: deserializes,
    // A bulk POST reads its batch in this stage's place (runPipeline).
    answers: (op, api) => [...deserializeAnswers(op, api), ...batchAnswers(op, api)],
  },
  {
    name: 'securityPostDenormalize',
    run: postDenormalizeSecurity,
    acts: securityAfterDenormalize,
    answers: securityPostDenormalizeAnswers,
    checksAccess: true,
  },
  { name: 'validate', run: validate, acts: validates, answers: validateAnswers },
  {
    name: 'securityPostValidation',
    run: postValidationSecurity,
    acts: securityAfterValidation,
    answers: securityPostValidationAnswers,
    checksAccess: true,
  },
  { name: 'write', run: write, acts: writes, answers: writeAnswers },
  // Changes come from the write, from custom code's `ctx.persist` and from a batch's items: always run.
  { name: 'publish', run: publishUpdates },
  {
    name: 'propertySecurity',
    run: propertyReadSecurity,
    acts: (op, settings) => readGuarded(op, settings).length > 0,
    checksAccess: true,
  },
  { name: 'include', run: loadIncluded, acts: mayInclude, answers: includeAnswers },
  { name: 'serialize', run: serialize },
];

/** The stages that can do anything for an operation, in order (made once per operation). */
export const stagesOf = perOperation((op, settings): readonly PipelineStage[] =>
  PIPELINE.filter(({ acts }) => acts === undefined || acts(op, settings)),
);

const stagesBetween = (first: string, last: string): Stage[] => {
  const names = PIPELINE.map(({ name }) => name);
  return PIPELINE.slice(names.indexOf(first), names.indexOf(last) + 1).map(({ run }) => run);
};

/** What a bulk POST runs per item, around the write of the whole batch (bulk.ts). */
const ITEM_STAGES: ItemStages = {
  input: stagesBetween('securityPostDenormalize', 'securityPostValidation'),
  output: stagesBetween('publish', 'serialize'),
};

/**
 * What `apidsl import` runs per record (import.ts), once the deserialize stage's `applyBody` made its item: the
 * stages between the body and the write that act for the operation, but for those that check access (the
 * administrator's command). A stage added there is an import's rule too unless it says it checks access.
 */
export const importStages = perOperation((op, settings): readonly Stage[] => {
  const names = PIPELINE.map(({ name }) => name);
  return PIPELINE.slice(names.indexOf('deserialize') + 1, names.indexOf('write'))
    .filter(({ acts, checksAccess }) => !checksAccess && (acts === undefined || acts(op, settings)))
    .map(({ run }) => run);
});

export async function runPipeline(state: OperationState): Promise<void> {
  for (const { name, run } of stagesOf(state.operation, state.api.settings)) {
    if (name === 'deserialize' && acceptsBatch(state)) {
      // A `bulk: true` POST: an array body is a batch, anything else the body of a single POST.
      const body = await readBulkBody(state);
      if (Array.isArray(body)) return runBatch(state, body, ITEM_STAGES);
      await applyBody(state, body);
      continue;
    }
    // Stages that finish synchronously cost no trip through the microtask queue.
    const pending = run(state);
    if (pending) await pending;
  }
}
