/**
 * A row-level scope on an operation that reads the search index (docs/scopes.md, docs/elasticsearch.md): the engine
 * is asked the scope's comparisons, `in`, `and`, `or` and relation paths, not what keeps the store's null rules
 * (`!=`, `== null`, `??`, `not`, `not in`). A scope that may hold those sends the operation's reads to the store,
 * and one with a full-text filter fails: the checker says so where the scope is written.
 */
import type * as A from '../../ast.js';
import { parseExpression } from '../../expression.js';
import type { ModelOperation, ModelResource } from '../../model.js';
import { planScope, type ScopeComparison, type ScopePlan } from '../../scope-plan.js';
import type { CheckContext } from '../check-context.js';
import { readsIndex } from './elasticsearch.js';

/** Whether the comparison, under an even number of `not`s (`positive`), is a `!=`. */
const unequal = (op: ScopeComparison, positive: boolean): boolean => (op === 'ne') === positive;

/** Whether the plan may become a condition the engine is not asked (`ne`, `exists`: server/search/query.ts). */
function asksStoreOnly(p: ScopePlan, positive = true): boolean {
  switch (p.kind) {
    case 'and':
    case 'or':
      return p.parts.some((part) => asksStoreOnly(part, positive));
    case 'not':
      return asksStoreOnly(p.part, !positive);
    case 'request':
      return false;
    case 'compare': {
      const literalNull = p.value.kind === 'constant' && p.value.value === null;
      // An order stays an order under `not` (`<` becomes `>=`); equality becomes `!=`.
      const equality = p.op === 'eq' || p.op === 'ne';
      return literalNull || p.fallback !== undefined || (equality && unequal(p.op, positive));
    }
    case 'member':
      return p.negated === positive;
  }
}

/** The read scope an operation runs: its own, else its resource's (the string, or the object form's `read`). */
function readScope(resource: ModelResource, op: ModelOperation): A.StringValue | undefined {
  const value = op.options.get('scope')?.value ?? resource.options.get('scope')?.value;
  if (value?.kind === 'string') return value;
  if (value?.kind !== 'object') return undefined;
  const read = value.entries.find((e) => e.key.text === 'read')?.value;
  return read?.kind === 'string' ? read : undefined;
}

export function checkScopeIndex(ctx: CheckContext): void {
  const reported = new Set<A.StringValue>(); // a resource's scope is shared by its Get and GetCollection
  for (const resource of ctx.model.resources.values())
    for (const op of resource.operations) {
      const scope = readScope(resource, op);
      if (!scope || reported.has(scope) || !readsIndex(resource, op)) continue;
      const parsed = parseExpression(scope.value);
      const planned = parsed.ok ? planScope(parsed.ast) : undefined;
      if (!planned?.ok || !asksStoreOnly(planned.plan)) continue;
      reported.add(scope);
      ctx.report(
        'scope-index-store',
        scope.range,
        `the search index is not asked this scope's \`!=\`, \`== null\`, \`??\` or \`not\` (the store's null rules): ${op.kind} of '${resource.name}' reads the store instead, and fails with a full-text (match) filter`,
      );
    }
}
