/**
 * Stage "securityPostDenormalize": after the body is applied (`object`: the changed, unsaved item,
 * `previous_object`: the stored one), the properties' write rules first, then the operation's rule.
 */
import { readsBody } from './deserialize.js';
import { perOperation } from '../../metadata/options.js';
import type { OperationMetadata, PropertyMetadata, Settings } from '../../metadata/types.js';
import { accessDenied, allows } from '../../security/access.js';
import type { Answers } from '../answers.js';
import { DENIALS, enforce, factsOf, guardsOf } from '../guards.js';
import { isItem, type OperationState } from '../state.js';

/** Whether the stage has anything to do: a `securityPostDenormalize` rule on the operation or on a property. */
export const securityAfterDenormalize = (op: OperationMetadata, settings: Settings): boolean =>
  guardsOf(op, settings).securityPostDenormalize !== undefined || writeGuardedOf(op, settings).length > 0;

/** `securityPostDenormalize`, or the write rule of a property a body writes, with `throwOnAccessDenied`, refusing the request. */
export const securityPostDenormalizeAnswers: Answers = (op, api) =>
  guardsOf(op, api.settings).securityPostDenormalize !== undefined ||
  (readsBody(op, api.settings) && writeGuardedOf(op, api.settings).some((p) => p.throwOnAccessDenied))
    ? DENIALS
    : [];

export function postDenormalizeSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).securityPostDenormalize;
  const writeGuarded = writeGuardedOf(state.operation, state.api.settings).length > 0;
  if (!guard && !writeGuarded) return undefined;
  return (async () => {
    if (writeGuarded) await revertDeniedWrites(state);
    if (guard) await enforce(state, guard, state.data, state.previousData);
  })();
}

/** Properties with a write rule, by operation's resource. */
const writeGuardedOf = perOperation((op: OperationMetadata): PropertyMetadata[] =>
  op.resource.properties.filter((p) => p.securityPostDenormalize),
);

/**
 * Property `securityPostDenormalize`: each property the body wrote whose rule denies keeps its
 * stored value (or stays absent on a new item), unless it sets `throwOnAccessDenied` (403).
 */
async function revertDeniedWrites(state: OperationState): Promise<void> {
  const guarded = writeGuardedOf(state.operation, state.api.settings);
  const body = state.request.body;
  if (!isItem(state.data) || !isItem(body)) return;
  const item = state.data;
  const previous = isItem(state.previousData) ? state.previousData : undefined;
  const facts = factsOf(state);
  for (const p of guarded) {
    if (!Object.hasOwn(body, p.name)) continue;
    if (await allows(p.securityPostDenormalize!, facts, item, previous ?? null)) continue;
    if (p.throwOnAccessDenied) throw accessDenied(state.principal, undefined);
    if (previous && Object.hasOwn(previous, p.name)) item[p.name] = structuredClone(previous[p.name]);
    else delete item[p.name];
  }
}
