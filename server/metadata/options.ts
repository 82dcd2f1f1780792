/**
 * Reading an operation's options, typed by the catalogue (grammar/catalogue/options.ts): the value type of
 * each option comes from its catalogue type, so a caller names the option and gets its type. The precedence
 * operation → resource → `config { defaults }` → catalogue default lives here only (resource-level values are
 * merged under the operation's own at load, metadata/load.ts); nothing outside metadata/ reads
 * `options.<name>` itself (test/architecture.test.ts).
 */
import {
  optionByName,
  type EffectiveOptionValue,
  type GlobalOptionName,
  type OptionName,
  type OptionValue,
} from '../../grammar/catalogue/index.js';
import type { OperationMetadata, ResourceMetadata, Settings } from './types.js';

/**
 * `compute` made once per operation and remembered: metadata does not change once loaded (a reload
 * under --watch builds new operation objects). The context (its settings, or its API) belongs to the
 * operation, so the operation alone is the key. A computation that needs nothing else declares `_: void`
 * and is called with the operation alone.
 */
export function perOperation<T, Context = Settings>(
  compute: (op: OperationMetadata, context: Context) => T,
): (op: OperationMetadata, context: Context) => T {
  const made = new WeakMap<OperationMetadata, { value: T }>();
  return (op, context) => {
    let entry = made.get(op);
    if (!entry) made.set(op, (entry = { value: compute(op, context) }));
    return entry.value;
  };
}

/**
 * Option `name`'s effective value: the operation's (or its resource's), else `config { defaults }`, else the
 * catalogue's. The settings may be left out for an option that `config { defaults }` cannot set.
 */
export function optionValue<N extends OptionName>(
  op: OperationMetadata,
  settings: Settings,
  name: N,
): EffectiveOptionValue<N>;
export function optionValue<N extends Exclude<OptionName, GlobalOptionName>>(
  op: OperationMetadata,
  name: N,
): EffectiveOptionValue<N>;
export function optionValue(op: OperationMetadata, settingsOrName: Settings | OptionName, name?: OptionName): unknown {
  const key = typeof settingsOrName === 'string' ? settingsOrName : name!;
  const written = writtenOption(op, key);
  if (written !== undefined) return written;
  if (typeof settingsOrName !== 'string') {
    const global = (settingsOrName.defaults as Readonly<Record<string, unknown>>)[key];
    if (global !== undefined) return global;
  }
  return optionByName(key)?.default;
}

/**
 * Option `name` as written on the operation or its resource (after mutators), defaults left out:
 * for the options whose meaning depends on whether they were written at all (`throwOnNotFound`, `status`).
 */
export function writtenOption<N extends OptionName>(op: OperationMetadata, name: N): OptionValue<N> | undefined {
  const value = op.options[name];
  return value === null ? undefined : (value as OptionValue<N> | undefined);
}

/** Option `name` as written on the resource itself (resource-level documentation: `deprecationReason`). */
export function resourceOption<N extends OptionName>(resource: ResourceMetadata, name: N): OptionValue<N> | undefined {
  const value = resource.options[name];
  return value === null ? undefined : (value as OptionValue<N> | undefined);
}
