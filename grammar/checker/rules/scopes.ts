/**
 * Row-level scopes (docs/scopes.md): each `scope` expression must compile to a store query (grammar/scope-plan.ts
 * says which parts do), and each path it reads must go through to-one relations to a property the store can
 * compare. Also the warnings: a scope a custom provider ignores, public Mercure updates of a scoped resource, and
 * the classic leak (a Get guarded on the item while the collection lists every item).
 */
import * as A from '../../ast.js';
import { parseExpression } from '../../expression.js';
import type { ModelOperation, ModelProperty, ModelResource } from '../../model.js';
import { planScope, readsItem, scopePaths, type ScopePath, type ScopePlan } from '../../scope-plan.js';
import { StringOffsets } from '../../string-offsets.js';
import type { CheckContext } from '../check-context.js';
import {
  checkExpression,
  checkObjectMembers,
  operationUriVariables,
  resourceUriVariables,
  memberTarget,
} from './security.js';

export function checkScopes(ctx: CheckContext): void {
  for (const resource of ctx.model.resources.values()) {
    checkScopeValue(ctx, resource, resource.options.get('scope')?.value, resourceUriVariables(resource));
    for (const op of resource.operations) {
      checkScopeValue(ctx, resource, op.options.get('scope')?.value, operationUriVariables(op));
      warnIgnoredScope(ctx, resource, op);
    }
    warnPublicUpdates(ctx, resource);
    warnListingLeak(ctx, resource);
  }
}

/** The expressions of a `scope` value: the string, or the `read` and `write` of its object form. */
function scopeExpressions(value: A.Value | undefined): { value: A.StringValue; where: string }[] {
  if (value?.kind === 'string') return [{ value, where: 'scope' }];
  if (value?.kind !== 'object') return [];
  return value.entries.flatMap((e) =>
    e.value?.kind === 'string' && (e.key.text === 'read' || e.key.text === 'write')
      ? [{ value: e.value, where: `scope ${e.key.text}` }]
      : [],
  );
}

function checkScopeValue(
  ctx: CheckContext,
  resource: ModelResource,
  scope: A.Value | undefined,
  uriVariables: readonly string[],
): void {
  for (const { value, where } of scopeExpressions(scope)) {
    if (!ctx.expressions.has(value)) continue;
    ctx.expressions.delete(value);
    const ast = checkExpression(ctx, value, where, { uriVariables });
    if (!ast) continue;
    const offsets = new StringOffsets(ctx.text, value.range);
    checkObjectMembers(ctx, value, 0, ast, resource, where);
    const planned = planScope(ast);
    if (!planned.ok) {
      ctx.report(
        'invalid-scope',
        offsets.rangeInText(planned.start, planned.end),
        `${where}: ${planned.message}: '${value.value.slice(planned.start, planned.end)}'`,
      );
      continue;
    }
    checkPaths(ctx, resource, planned.plan, offsets, where);
  }
}

/** Each path: to-one relations, then a property the store compares (a list only with `value in object.list`). */
function checkPaths(
  ctx: CheckContext,
  resource: ModelResource,
  plan: ScopePlan,
  offsets: StringOffsets,
  where: string,
): void {
  const element = new Set(elementPaths(plan));
  for (const path of scopePaths(plan)) {
    const problem = pathProblem(ctx, resource, path.names, element.has(path));
    if (problem)
      ctx.report('invalid-scope', offsets.rangeInText(path.start, path.end), `${where}: ${problem} (docs/scopes.md)`);
  }
}

/** The paths of `value in object.list` tests. */
function elementPaths(plan: ScopePlan): ScopePath[] {
  switch (plan.kind) {
    case 'and':
    case 'or':
      return plan.parts.flatMap(elementPaths);
    case 'not':
      return elementPaths(plan.part);
    case 'compare':
      return plan.element ? [plan.path] : [];
    default:
      return [];
  }
}

/** Why the store cannot read this path; undefined when it can (unknown names are reported elsewhere). */
function pathProblem(
  ctx: CheckContext,
  resource: ModelResource,
  names: readonly string[],
  element: boolean,
): string | undefined {
  const relations = names.slice(0, -1);
  const reached = memberTarget(ctx.model, resource, relations);
  if (!reached) return `'object.${names.join('.')}' goes through a property that is not a to-one relation`;
  if ('unknown' in reached) return undefined;
  const property: ModelProperty | undefined = reached.resource.properties.get(names.at(-1)!);
  if (!property) return undefined;
  if (property.type === 'json' || property.type === 'object')
    return `'object.${names.join('.')}' holds JSON, which a store query cannot compare`;
  if (element && !property.array)
    return `'in object.${names.join('.')}' needs a list property on its right; '${names.at(-1)}' holds one value`;
  if (!element && property.array)
    return `'object.${names.join('.')}' holds a list: test one of its elements with \`value in object.${names.join('.')}\``;
  return undefined;
}

/** The scope that applies to an operation: its own, else the resource's. */
function scopeOf(resource: ModelResource, op: ModelOperation): A.Value | undefined {
  return op.options.get('scope')?.value ?? resource.options.get('scope')?.value;
}

function warnIgnoredScope(ctx: CheckContext, resource: ModelResource, op: ModelOperation): void {
  const provider = op.options.get('provider') ?? resource.options.get('provider');
  const scope = scopeOf(resource, op);
  if (!provider || !scope) return;
  ctx.report(
    'scope-without-effect',
    scope.range,
    `the scope has no effect on ${op.name}: its \`provider\` is custom code, which decides what it reads`,
  );
}

/** A scoped resource's updates are private whatever `mercure` says: `private: false` is overruled. */
function warnPublicUpdates(ctx: CheckContext, resource: ModelResource): void {
  if (!resource.options.get('scope') && !resource.operations.some((op) => op.options.get('scope'))) return;
  const mercure = resource.options.get('mercure')?.value;
  const privacy = mercure?.kind === 'object' ? A.entryOf(mercure, 'private') : undefined;
  if (privacy?.value?.kind !== 'bool' || privacy.value.value) return;
  ctx.report(
    'scope-without-effect',
    privacy.range,
    'a scoped resource publishes private updates only (subscribers authorized for the item): `private: false` has no effect',
  );
}

/** The `security` expression an operation runs: its own, else the resource's. */
function securityOf(resource: ModelResource, op: ModelOperation): A.Value | undefined {
  return op.options.get('security')?.value ?? resource.options.get('security')?.value;
}

function warnListingLeak(ctx: CheckContext, resource: ModelResource): void {
  const get = resource.operations.find((o) => o.kind === 'Get');
  const list = resource.operations.find((o) => o.kind === 'GetCollection');
  if (!get || !list || scopeOf(resource, list) || securityOf(resource, list)) return;
  const ownScope = get.options.get('scope')?.value;
  if (ownScope) {
    ctx.report(
      'scope-leak',
      ownScope.range,
      `${resource.name}'s Get has a scope of its own, but its GetCollection has no scope and no security: the ` +
        'collection lists items that Get hides: give it the scope too, or write the scope on the resource (docs/scopes.md)',
    );
    return;
  }
  const security = securityOf(resource, get);
  if (security?.kind !== 'string' || !readsObject(security.value)) return;
  ctx.report(
    'scope-leak',
    security.range,
    `${resource.name}'s Get security reads the item, but its GetCollection has no scope and no security: the ` +
      'collection lists items that Get refuses: add a scope (docs/scopes.md)',
  );
}

function readsObject(source: string): boolean {
  const parsed = parseExpression(source);
  return parsed.ok && readsItem(parsed.ast);
}
