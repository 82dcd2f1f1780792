/** Stage "securityPostValidation": the operation's rule after validation, so that a 422 wins over it. */
import { enforce, guardsOf } from '../guards.js';
import type { OperationState } from '../state.js';

export function postValidationSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).securityPostValidation;
  return guard ? enforce(state, guard, state.data, state.previousData) : undefined;
}
