/**
 * Stage "validate": the resource's constraints on the item a POST, PUT or PATCH made (422 with the
 * violations), in the operation's `validationContext` groups.
 */
import { optionValue } from '../../metadata/options.js';
import { contextGroups } from '../../metadata/property-access.js';
import type { OperationMetadata, Settings } from '../../metadata/types.js';
import { isItem, type OperationState } from '../state.js';
import { validateItem } from '../validation/constraints.js';
import { validationFailed } from '../validation/violations.js';

export async function validate(state: OperationState): Promise<void> {
  const op = state.operation;
  if (!['POST', 'PUT', 'PATCH'].includes(op.method) || !isItem(state.data)) return;
  const groups = validationGroups(op, state.api.settings);
  if (!groups) return;
  const violations = validateItem(op.resource, state.data, groups);
  if (violations.length) throw validationFailed(violations);
}

/** The constraint groups an operation's writes are checked in (default `Default`); undefined with `validate: false`. */
export function validationGroups(op: OperationMetadata, settings: Settings): string[] | undefined {
  if (optionValue(op, settings, 'validate') === false) return undefined;
  return contextGroups(optionValue(op, 'validationContext')) ?? ['Default'];
}
