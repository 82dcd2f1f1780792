/** Stage "publish": the Mercure updates of the changes the write committed (it runs after "write"). */
import { publishChange, requestOrigin } from '../writes/mercure-updates.js';
import type { OperationState } from '../state.js';

export function publishUpdates(state: OperationState): void {
  // Checked first: a batch runs this stage for each of its items.
  if (!state.changes?.length || !state.runtime.publisher) return;
  const origin = requestOrigin(state.request.headers);
  for (const change of state.changes) publishChange(state.runtime, state.operation, change, origin);
}
