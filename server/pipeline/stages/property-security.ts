/** Stage "propertySecurity": before serialization, the properties each item shows that user. */
import { perOperation } from '../../metadata/options.js';
import type { OperationMetadata, PropertyMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { factsOf, hiddenPropertiesFor, readRelationsOfPropertyRules } from '../guards.js';
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

/** Items of a streamed collection whose related items (`object.shop.owner`) are read together. */
const STREAM_BATCH = 100;

async function recordHiddenProperties(state: OperationState): Promise<void> {
  const facts = factsOf(state);
  const resource = state.operation.resource;
  const hiddenOf = hiddenPropertiesFor(facts);
  const hidden = new WeakMap<Item, ReadonlySet<string>>();
  state.hiddenProperties = hidden;
  // The related items the rules read through are read for all the items at once, then each item is judged.
  const record = async (items: readonly unknown[]): Promise<void> => {
    await readRelationsOfPropertyRules(facts, resource, items);
    for (const item of items) if (isItem(item)) hidden.set(item, await hiddenOf(resource, item));
  };
  if (state.operation.isCollection && !state.page && state.data != null) state.page = asPage(state.data, state);
  const page = state.page;
  if (page?.stream) {
    const source = page.stream;
    page.stream = (async function* () {
      let batch: unknown[] = [];
      for await (const item of source) {
        batch.push(item);
        if (batch.length < STREAM_BATCH) continue;
        await record(batch);
        yield* batch;
        batch = [];
      }
      await record(batch);
      yield* batch;
    })();
  } else if (page) await record(page.items);
  else await record([state.data]);
}
