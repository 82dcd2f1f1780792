/** Security expressions compiled for enforcement, at load or once per operation. */
import { ASSERT_VARIABLES, DEFAULT_VALUE_VARIABLES } from '../../grammar/expression.js';
import { compileExpression, NO_MEMBER_PATHS, type CompileOptions, type CompiledExpression } from './evaluate.js';

/** An expression compiled for enforcement: one that cannot be compiled denies every request. */
export function compileGuard(source: string, uriVariables?: readonly string[]): CompiledExpression {
  return compiledOrFailing(source, uriVariables ? { uriVariables } : undefined);
}

/** A property's `default: { expression: … }`, which sees `user` only; one that cannot be compiled fails every write. */
export function compileDefaultValue(source: string): CompiledExpression {
  return compiledOrFailing(source, { variables: DEFAULT_VALUE_VARIABLES });
}

/** An `assert` constraint's expression; one that cannot be compiled fails (a violation on every write). */
export function compileAssertion(source: string): CompiledExpression {
  return compiledOrFailing(source, { variables: ASSERT_VARIABLES });
}

function compiledOrFailing(source: string, options: CompileOptions | undefined): CompiledExpression {
  try {
    return compileExpression(source, options);
  } catch (e) {
    const error = e as Error;
    return {
      source,
      usesObject: false,
      memberPaths: NO_MEMBER_PATHS,
      evaluate: () => Promise.reject(error),
      value: () => Promise.reject(error),
    };
  }
}
