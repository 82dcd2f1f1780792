/**
 * The write of an operation with `messenger` on: the validated item (or, for `"input"`, the request body as
 * received) dispatched to the message bus. A broker that cannot take it answers 503; a sync handler's
 * failure is the request's.
 */
import { HttpError } from '../../protocol/errors.js';
import { newEnvelope, TransportUnavailableError } from '../../messenger/index.js';
import { requestOrigin } from './mercure-updates.js';
import type { OperationState } from '../state.js';

export async function dispatchData(state: OperationState, input: boolean): Promise<void> {
  const op = state.operation;
  const bus = state.runtime.bus;
  let message = op.method === 'DELETE' ? (state.previousData ?? state.data) : state.data;
  if (input) message = state.request.body;
  const envelope = newEnvelope(op.resource.shortName, message, {
    operation: op.name,
    method: op.method,
    origin: requestOrigin(state.request.headers),
    // Its handler writes as this user (docs/scopes.md, "Messages").
    user: state.principal.user,
    uriVariables: state.uriVariables,
  });
  try {
    await bus.dispatch(envelope);
  } catch (e) {
    if (e instanceof TransportUnavailableError)
      throw new HttpError(503, 'The message broker cannot be reached; retry later.', {
        headers: { 'Retry-After': '5' },
      });
    throw e;
  }
}
