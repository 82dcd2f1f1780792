/** Security expressions compiled for enforcement, at load or once per operation. */
import { compileExpression, type CompiledExpression } from './expression.js';

/** An expression compiled for enforcement: one that cannot be compiled denies every request. */
export function compileGuard(source: string, uriVariables?: readonly string[]): CompiledExpression {
  try {
    return compileExpression(source, uriVariables ? { uriVariables } : undefined);
  } catch (e) {
    const error = e as Error;
    return { source, usesObject: false, evaluate: () => Promise.reject(error) };
  }
}
