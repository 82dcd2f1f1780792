/**
 * Queries run as compiled functions (graphql-jit): a document is compiled once for the schema, then each request
 * runs the function with its variables, the same resolvers, the same answer as graphql-js's `execute`, at a
 * fraction of its cost per field (docs/graphql.md, "Performance"). Compiled queries are kept per document (the
 * documents themselves are kept by documents.ts).
 */
import { execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

const compiled = new WeakMap<object, Map<string, CompiledQuery | ExecutionResult>>();

export function executeCompiled(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
  // Custom root values or resolvers are not what a compiled query runs with: graphql-js's own execution then.
  if (args.fieldResolver || args.typeResolver) return execute(args);
  let byOperation = compiled.get(args.document);
  if (!byOperation) compiled.set(args.document, (byOperation = new Map()));
  const name = args.operationName ?? '';
  let query = byOperation.get(name);
  if (!query) {
    query = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    byOperation.set(name, query);
  }
  if (!isCompiledQuery(query)) return query;
  return query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) as
    ExecutionResult | Promise<ExecutionResult>;
}
