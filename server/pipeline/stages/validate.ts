/**
 * Stage "validate": the resource's constraints on the item a POST, PUT or PATCH made (422 with the
 * violations), in the operation's `validationContext` groups.
 */
import { optionValue } from '../../metadata/options.js';
import { contextGroups } from '../../metadata/property-access.js';
import { isItem, type OperationState } from '../state.js';
import { validateItem } from '../validate.js';
import { validationFailed } from '../violations.js';

export async function validate(state: OperationState): Promise<void> {
  const op = state.operation;
  if (!['POST', 'PUT', 'PATCH'].includes(op.method) || !isItem(state.data)) return;
  if (optionValue(op, state.api.settings, 'validate') === false) return;
  const violations = validateItem(
    op.resource,
    state.data,
    contextGroups(optionValue(op, 'validationContext')) ?? ['Default'],
  );
  if (violations.length) throw validationFailed(violations);
}
