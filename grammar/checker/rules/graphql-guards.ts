/**
 * GraphQL operations against their REST twins (docs/graphql.md, "Secure by default"): a GraphQL operation with no
 * security expression of its own runs its twin's, so only one that writes its own can be less guarded. It is when,
 * at a stage (`security`, `securityPostDenormalize`, `securityPostValidation`) where the twin has a guard, it has
 * none: the expression absent there (neither its own nor the resource's) or the constant `true`/`"true"`. Two
 * different expressions are not compared.
 */
import type * as A from '../../ast.js';
import { GUARD_EXPRESSIONS, graphQlTwinKinds, type GraphQlKindName } from '../../catalogue/index.js';
import { configEntry, type ModelGraphQlOperation, type ModelOperation, type ModelResource } from '../../model.js';
import type { CheckContext } from '../check-context.js';

/** The REST operation a GraphQL operation mirrors: the first of its twin kinds the resource has. */
export function modelTwin(
  resource: ModelResource,
  kind: GraphQlKindName,
  name: string | undefined,
  creates: boolean,
): ModelOperation | undefined {
  for (const k of graphQlTwinKinds(kind, name, creates)) {
    const twin = resource.operations.find((o) => o.kind === k);
    if (twin) return twin;
  }
  return undefined;
}

/** Whether a custom Mutation creates: its `args` have no `id` (server/metadata/graphql-operations.ts). */
function creates(op: ModelGraphQlOperation): boolean {
  const args = op.options.get('args')?.value;
  return args?.kind === 'object' && !args.entries.some((e) => e.key.text === 'id');
}

/** Whether a value guards: an expression other than the constant true. */
function guards(value: A.Value | undefined): boolean {
  if (value === undefined || value.kind === 'null') return false;
  if (value.kind === 'bool') return !value.value;
  return !(value.kind === 'string' && value.value.trim() === 'true');
}

export function checkGraphQlGuards(ctx: CheckContext): void {
  const enabled = configEntry(ctx.model.config, 'graphql.enabled')?.value;
  if (!(enabled?.kind === 'bool' && enabled.value)) return;
  for (const resource of ctx.model.resources.values())
    for (const op of resource.graphql ?? []) if (op.known) checkOperation(ctx, resource, op);
}

function checkOperation(ctx: CheckContext, resource: ModelResource, op: ModelGraphQlOperation): void {
  if (!GUARD_EXPRESSIONS.some((k) => op.options.has(k))) return; // it runs its twin's
  const twin = modelTwin(resource, op.kind as GraphQlKindName, op.name, creates(op));
  if (!twin) return;
  const at = (o: Map<string, A.Entry>, k: string) => (o.get(k) ?? resource.options.get(k))?.value;
  const removed = GUARD_EXPRESSIONS.filter((k) => guards(at(twin.options, k)) && !guards(at(op.options, k)));
  if (!removed.length) return;
  const entry = removed.map((k) => op.options.get(k)).find((e) => e !== undefined);
  const field = op.fieldName ?? op.kind;
  ctx.report(
    'graphql-less-guarded',
    (entry?.key ?? op.decl.name ?? op.decl.opKind).range,
    `the GraphQL operation '${field}' is less guarded than its REST twin ${twin.kind} '${twin.name}': ` +
      `it has no ${removed.join(', ')} where ${twin.kind} has one, so what REST refuses GraphQL allows ` +
      `(remove its security options to take ${twin.kind}'s, or guard it as ${twin.kind} does)`,
  );
}
