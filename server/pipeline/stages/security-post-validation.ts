/** Stage "securityPostValidation": the operation's rule after validation, so that a 422 wins over it. */
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import type { Answers } from '../answers.js';
import { DENIALS, enforce, guardsOf } from '../guards.js';
import type { OperationState } from '../state.js';

/** Whether the stage has anything to do: a `securityPostValidation` rule. */
export const securityAfterValidation = (op: OperationMetadata, settings: Settings): boolean =>
  guardsOf(op, settings).securityPostValidation !== undefined;

/** The operation's `securityPostValidation` rule refusing the request. */
export const securityPostValidationAnswers: Answers = () => DENIALS;

export function postValidationSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).securityPostValidation;
  return guard ? enforce(state, guard, state.data, state.previousData) : undefined;
}
