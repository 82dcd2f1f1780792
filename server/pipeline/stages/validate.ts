/**
 * Stage "validate": the resource's constraints and `assert` rules on the item a POST, PUT or PATCH made
 * (422 with the violations), in the operation's `validationContext` groups.
 */
import { optionValue, perOperation } from '../../metadata/options.js';
import { contextGroups } from '../../metadata/property-access.js';
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import { isItem, type OperationState } from '../state.js';
import { validateItem } from '../validation/constraints.js';
import { nestedViolations } from '../relations/nested-writes.js';
import { validationFailed } from '../validation/violations.js';
import { assertionViolations, hasAssertions, inValidationOrder } from '../validation/assertions.js';
import { factsOf } from '../guards.js';
import type { Answers } from '../answers.js';
import { readsBody } from './deserialize.js';

/** Whether the stage has anything to do: a POST, PUT or PATCH whose `validate` is not false. */
export const validates = (op: OperationMetadata, settings: Settings): boolean =>
  ['POST', 'PUT', 'PATCH'].includes(op.method) && validationGroups(op, settings) !== undefined;

/** The item's constraint violations, for an operation that reads a body (deserialize.ts). */
export const validateAnswers: Answers = (op, api) =>
  readsBody(op, api.settings)
    ? [{ status: 422, description: 'Validation failed (constraint violations).', violations: true }]
    : [];

export async function validate(state: OperationState): Promise<void> {
  const op = state.operation;
  if (!['POST', 'PUT', 'PATCH'].includes(op.method) || !isItem(state.data)) return;
  const groups = validationGroups(op, state.api.settings);
  if (!groups) return;
  // The related items of nested documents are checked with it, in one 422 (relations/nested-writes.ts).
  let violations = validateItem(op.resource, state.data, groups);
  if (hasAssertions(op.resource)) {
    const previous = isItem(state.previousData) ? state.previousData : null;
    const asserted = await assertionViolations(op.resource, state.data, previous, groups, factsOf(state));
    violations = inValidationOrder(op.resource, violations, asserted);
  }
  if (state.nestedWrites) violations.push(...nestedViolations(state.nestedWrites, groups));
  if (violations.length) throw validationFailed(violations);
}

/** The constraint groups an operation's writes are checked in (default `Default`); undefined with `validate: false`. */
export const validationGroups = perOperation((op, settings): readonly string[] | undefined => {
  if (optionValue(op, settings, 'validate') === false) return undefined;
  return contextGroups(optionValue(op, 'validationContext')) ?? ['Default'];
});
