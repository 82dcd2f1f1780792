/**
 * Stage "security": an operation `security` expression that reads `object` (the item, null for a Post,
 * the page's items for a listing) or `previous_object` (a copy) runs after the read.
 */
import type { Answers } from '../answers.js';
import { DENIALS, enforce, guardsOf, type Guard } from '../guards.js';
import type { OperationState } from '../state.js';

/** The operation's `security` rule refusing the request once it read the item. */
export const securityAnswers: Answers = () => DENIALS;

export function postReadSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).security;
  return guard?.expression.usesObject ? enforceAfterRead(state, guard) : undefined;
}

async function enforceAfterRead(state: OperationState, guard: Guard): Promise<void> {
  let object: unknown = state.data;
  if (state.page) {
    if (state.page.stream) {
      // The expression sees the whole unpaginated collection: read it now (the stream is spent).
      const items: unknown[] = [];
      for await (const item of state.page.stream) items.push(item);
      state.page = { ...state.page, items, stream: undefined, total: items.length };
      state.data = state.page;
    }
    object = state.page.items;
  }
  const copy = object === null || object === undefined ? null : structuredClone(object);
  await enforce(state, guard, object, copy);
}
