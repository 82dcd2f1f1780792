/**
 * An operation's effective option value: the operation's own (resource-level values already
 * merged in at load), else the global default from `config { defaults }`, else the
 * catalogue's default. The precedence global → resource → operation lives here only.
 */
import { optionByName } from '../../grammar/catalogue/index.js';
import type { OperationMetadata, Settings } from './types.js';

/**
 * `compute` made once per operation and remembered: metadata does not change once loaded (a reload
 * under --watch builds new operation objects).
 */
export function perOperation<T>(
  compute: (op: OperationMetadata, settings: Settings) => T,
): (op: OperationMetadata, settings: Settings) => T {
  const made = new WeakMap<OperationMetadata, { value: T }>();
  return (op, settings) => {
    let entry = made.get(op);
    if (!entry) made.set(op, (entry = { value: compute(op, settings) }));
    return entry.value;
  };
}

export function optionValue<T>(op: OperationMetadata, settings: Settings, name: string): T | undefined {
  const own = op.options[name];
  if (own !== undefined && own !== null) return own as T;
  const global = settings.defaults[name];
  if (global !== undefined) return global as T;
  return optionByName(name)?.default as T | undefined;
}
