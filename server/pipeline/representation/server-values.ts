/**
 * Values the server sets on a write (docs/behaviour.md, "Values the server sets"): `default: now` and
 * `default: { expression: … }` fill a created item that has none, `onUpdate: now` stamps every write that
 * stores the item. An expression that fails, or gives null or a value that does not fit its property, refuses
 * the write as a failing security expression does (401 to an anonymous request, 403 to a user): the item is
 * never stored without the value, an owner say, that the file says the server gives it.
 */
import { accessDenied, computedValue, type RequestFacts } from '../../security/access.js';
import type { CompiledExpression } from '../../expression/evaluate.js';
import type { PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { cloneJson } from './json-clone.js';
import { conformingValue, type IriResolver } from './denormalize.js';

/**
 * `create`: a new item (POST, a PUT that creates, a bulk item); `update`: a stored item replaced or patched;
 * `restore`: an imported record, whose own values are kept (onUpdate included), only absent ones filled.
 */
export type ServerValueMode = 'create' | 'update' | 'restore';

/** Whether the server sets the property's value (it is then read-only unless declared `readOnly: false`). */
export const setByServer = (p: PropertyMetadata): boolean => p.serverDefault !== undefined || p.onUpdate !== undefined;

/**
 * Sets the server's values into `item`, the denormalized body; `facts`: what an expression sees (asked only for
 * one); `now`: the write's time, one for all its items.
 */
export async function setServerValues(
  resource: ResourceMetadata,
  item: Item,
  mode: ServerValueMode,
  facts: () => RequestFacts,
  iri: IriResolver,
  now: Date = new Date(),
): Promise<void> {
  for (const p of resource.properties) {
    const given = Object.hasOwn(item, p.name);
    if (p.onUpdate === 'now' && !(mode === 'restore' && given)) item[p.name] = timeOf(p, now);
    else if (p.serverDefault !== undefined && mode !== 'update' && !given)
      item[p.name] = p.serverDefault === 'now' ? timeOf(p, now) : await computed(p, p.serverDefault, facts(), iri);
  }
}

/** The write's time in the property's stored form: a datetime as bodies' are normalised, a date as UTC's day. */
function timeOf(p: PropertyMetadata, now: Date): string {
  const iso = now.toISOString();
  if (p.type === 'date') return iso.slice(0, 10);
  // `YYYY-MM-DDTHH:mm:ss.sssZ` in the form normalizeDateTime gives (milliseconds only when not zero), unparsed.
  return `${iso.slice(0, iso.endsWith('.000Z') ? 19 : 23)}+00:00`;
}

async function computed(
  p: PropertyMetadata,
  expression: CompiledExpression,
  facts: RequestFacts,
  iri: IriResolver,
): Promise<unknown> {
  const value = await computedValue(expression, facts);
  const stored = value === undefined || value === null ? undefined : conformingValue(p, cloneJson(value), iri);
  if (stored === undefined)
    throw accessDenied(facts.principal, `The server could not set "${p.name}" for this request.`);
  return stored;
}
