/**
 * Stage "preReadSecurity": an operation `security` expression that reads neither `object` nor
 * `previous_object` runs before the read, so a denied request learns nothing about whether the item exists.
 */
import { enforce, guardsOf } from '../guards.js';
import type { OperationState } from '../state.js';

export function preReadSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).security;
  if (!guard || guard.expression.usesObject) return undefined;
  return enforce(state, guard, null, null);
}
