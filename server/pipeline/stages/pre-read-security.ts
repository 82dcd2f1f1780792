/**
 * Stage "preReadSecurity": an operation `security` expression that reads neither `object` nor
 * `previous_object` runs before the read, so a denied request learns nothing about whether the item exists.
 */
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import type { Answers } from '../answers.js';
import { DENIALS, enforce, guardsOf } from '../guards.js';
import type { OperationState } from '../state.js';

/** Whether the stage has anything to do: a `security` expression that does not read the item. */
export const securityBeforeRead = (op: OperationMetadata, settings: Settings): boolean => {
  const guard = guardsOf(op, settings).security;
  return guard !== undefined && !guard.expression.usesObject;
};

/** The operation's `security` rule refusing the request. */
export const preReadSecurityAnswers: Answers = () => DENIALS;

export function preReadSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).security;
  if (!guard || guard.expression.usesObject) return undefined;
  return enforce(state, guard, null, null);
}
