/** Stage "propertySecurity": before serialization, the properties each item shows that user. */
import { perOperation } from '../../metadata/options.js';
import type { OperationMetadata, PropertyMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { factsOf, hiddenPropertiesFor } from '../guards.js';
import { asPage } from '../pages/page.js';
import { isItem, type OperationState } from '../state.js';

/** Properties with a read rule, by resource (none: the stage has nothing to do). */
export const readGuarded = perOperation((op: OperationMetadata): PropertyMetadata[] =>
  op.resource.properties.filter((p) => p.security),
);

/**
 * Property `security`: records, for every item the response shows, the properties that user may
 * not see (serialize leaves them out). Rules without `object` are evaluated once per request.
 */
export function propertyReadSecurity(state: OperationState): Promise<void> | undefined {
  const guarded = readGuarded(state.operation, state.api.settings);
  return guarded.length ? recordHiddenProperties(state) : undefined;
}

async function recordHiddenProperties(state: OperationState): Promise<void> {
  const hiddenOf = hiddenPropertiesFor(factsOf(state));
  const hidden = new WeakMap<Item, ReadonlySet<string>>();
  state.hiddenProperties = hidden;
  const record = async (item: Item): Promise<void> =>
    void hidden.set(item, await hiddenOf(state.operation.resource, item));
  if (state.operation.isCollection && !state.page && state.data != null) state.page = asPage(state.data, state);
  const page = state.page;
  if (page?.stream) {
    const source = page.stream;
    page.stream = (async function* () {
      for await (const item of source) {
        if (isItem(item)) await record(item);
        yield item;
      }
    })();
  } else if (page) {
    for (const item of page.items) if (isItem(item)) await record(item);
  } else if (isItem(state.data)) await record(state.data);
}
