/** Stage "publish": the Mercure updates of the changes the write committed (it runs after "write"). */
import { publishChange, requestOrigin } from '../publish.js';
import type { OperationState } from '../state.js';

export function publishUpdates(state: OperationState): void {
  if (!state.changes?.length) return;
  const origin = requestOrigin(state.request.headers);
  for (const change of state.changes) publishChange(state.api, state.operation, change, origin);
}
