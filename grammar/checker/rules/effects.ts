/**
 * Options accepted without a run-time effect say so (the catalogue's `effect`): a hint for those that
 * only mean something to API Platform's PHP stack, a warning for those apidsl does not implement yet.
 */
import type * as A from '../../ast.js';
import type { OptionSpec } from '../../catalogue/index.js';
import type { CheckContext } from '../check-context.js';

export const COMPATIBILITY_HINT = 'accepted for compatibility; no effect in apidsl';
export const UNSUPPORTED_WARNING = 'not supported yet';

export function reportEffect(ctx: CheckContext, spec: OptionSpec, key: A.Name, onOperation: boolean): void {
  const effect = spec.effect;
  if (!effect || (effect.on === 'operation' && !onOperation)) return;
  if (effect.kind === 'compatibility') ctx.report('no-effect', key.range, `'${key.text}' is ${COMPATIBILITY_HINT}`);
  else
    ctx.report(
      'not-supported',
      key.range,
      `'${key.text}'${effect.on === 'operation' ? ' on an operation' : ''} is ${UNSUPPORTED_WARNING}: it has no effect in apidsl`,
    );
}
