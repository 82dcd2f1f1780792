/**
 * GraphQL operations (a resource's `graphql { … }` block): their kinds, names and options, the types of their
 * arguments, the root fields of the whole file (declared and default), and a block that would have no effect.
 */
import type * as A from '../../ast.js';
import {
  DEFAULT_GRAPHQL_OPERATIONS,
  GRAPHQL_KIND_SPECS,
  GRAPHQL_KINDS,
  GRAPHQL_SCALARS,
  OPTIONS,
  graphQlNamedType,
  optionByName,
  type GraphQlKindName,
} from '../../catalogue/index.js';
import { configEntry, type ModelGraphQlOperation, type ModelResource } from '../../model.js';
import { graphQlFieldName } from '../../naming.js';
import type { CheckContext } from '../check-context.js';
import { checkValue } from '../value-types.js';
import { reportEffect } from './effects.js';
import { modelTwin } from './graphql-guards.js';

export function checkGraphQl(ctx: CheckContext): void {
  const enabled = configEntry(ctx.model.config, 'graphql.enabled')?.value;
  const on = enabled?.kind === 'bool' && enabled.value;
  for (const resource of ctx.model.resources.values()) {
    for (const block of resource.decl.graphqlBlocks.slice(0, 1))
      if (!on)
        ctx.report(
          'graphql-disabled',
          { start: block.range.start, end: block.range.start + 'graphql'.length },
          `this graphql block has no effect: config graphql.enabled is not true, so '${resource.name}' has no GraphQL operations (add graphql { enabled: true } to config)`,
        );
    for (const op of resource.graphql ?? []) checkOperation(ctx, resource, op);
    if (!on) reportInertResourceOptions(ctx, resource);
  }
  checkFields(ctx, on === true);
  if (on) checkTypeNames(ctx);
}

/** Type names every schema has. */
const SCHEMA_TYPES = [
  'Query',
  'Mutation',
  'Subscription',
  'Node',
  'Iterable',
  'String',
  'Int',
  'Float',
  'Boolean',
  'ID',
];
/** Type names made for each resource (server/graphql/): its connections and per-group types. */
const MADE_FOR_EACH = [
  'Edge',
  'PageInfo',
  'CursorConnection',
  'PageConnection',
  'PaginationInfo',
  'Item',
  'Collection',
];

/** A resource's type may not take a name the schema already gives another type. */
function checkTypeNames(ctx: CheckContext): void {
  const resources = [...ctx.model.resources.values()];
  for (const resource of resources) {
    const name = resource.shortName;
    const range = resource.decl.name?.range;
    if (!range) continue;
    const owner = resources.find(
      (other) =>
        other !== resource &&
        (MADE_FOR_EACH.some((suffix) => `${other.shortName}${suffix}` === name) ||
          name.startsWith(`${other.shortName}Filter_`)),
    );
    if (SCHEMA_TYPES.includes(name) || name.startsWith('__'))
      ctx.report(
        'graphql-type-clash',
        range,
        `'${name}' is a type every GraphQL schema has: give the resource another shortName`,
      );
    else if (owner)
      ctx.report(
        'graphql-type-clash',
        range,
        `'${name}' is a GraphQL type made for '${owner.shortName}': give the resource another shortName`,
      );
  }
}

/** A resource option that only GraphQL operations read (`paginationType`) while GraphQL is off. */
function reportInertResourceOptions(ctx: CheckContext, resource: ModelResource): void {
  for (const e of resource.decl.options) {
    const placement = optionByName(e.key.text)?.placement;
    if (placement?.resource && placement.graphql && placement.operations.length === 0)
      ctx.report(
        'option-ineffective',
        e.key.range,
        `'${e.key.text}' has no effect: only GraphQL operations read it, and config graphql.enabled is not true`,
      );
  }
}

function checkOperation(ctx: CheckContext, resource: ModelResource, op: ModelGraphQlOperation): void {
  const decl = op.decl;
  if (!op.known) {
    ctx.unknownKind(decl.opKind, 'GraphQL operation kind', GRAPHQL_KINDS);
    return;
  }
  const kind = op.kind as GraphQlKindName;
  const spec = GRAPHQL_KIND_SPECS.find((k) => k.name === kind)!;
  if (spec.naming === 'required' && op.name === undefined)
    ctx.report(
      'graphql-name-missing',
      decl.opKind.range,
      `a ${kind} needs a name, which makes its field: ${kind} ${kind === 'DeleteMutation' ? 'delete' : 'create'} is ${graphQlFieldName(kind, kind === 'DeleteMutation' ? 'delete' : 'create', resource.shortName)}`,
    );
  if ((kind === 'Query' || kind === 'QueryCollection') && op.name !== undefined && !op.options.has('resolver'))
    ctx.report(
      'graphql-resolver-missing',
      decl.name?.range ?? decl.opKind.range,
      `a named ${kind} is a custom query and needs a resolver (resolver: "./file.mjs#export") that gives its result`,
    );
  if (kind === 'Subscription' && !mercureOn(op.options.get('mercure') ?? resource.options.get('mercure')))
    ctx.report(
      'graphql-subscription-inert',
      decl.opKind.range,
      `this Subscription has no effect: '${resource.name}' does not publish to Mercure (set mercure: true on the resource)`,
    );
  checkOptions(ctx, kind, decl.body?.entries ?? []);
}

function checkOptions(ctx: CheckContext, kind: GraphQlKindName, entries: A.Entry[]): void {
  ctx.duplicateKeys(entries, 'option');
  for (const e of entries) {
    const spec = optionByName(e.key.text);
    if (!spec) {
      const allowed = OPTIONS.filter((o) => o.placement.graphql?.includes(kind)).map((o) => o.name);
      ctx.unknown('unknown-option', e.key, `option for a GraphQL ${kind}`, allowed);
      continue;
    }
    const kinds = spec.placement.graphql ?? [];
    if (!kinds.includes(kind)) {
      if (spec.group !== 'operation')
        ctx.report(
          'graphql-routing-option',
          e.key.range,
          `'${e.key.text}' concerns routes: a GraphQL operation has none (it is reached through /graphql)`,
        );
      else
        ctx.report(
          'option-not-allowed',
          e.key.range,
          kinds.length
            ? `'${e.key.text}' is only allowed on GraphQL ${kinds.join(' and ')}, not on ${kind}`
            : `'${e.key.text}' is not an option of GraphQL operations (only of REST ones)`,
        );
      continue;
    }
    reportEffect(ctx, spec, e.key, true);
    checkValue(ctx, e.value, spec.type, `'${e.key.text}'`);
    if (e.key.text === 'args' || e.key.text === 'extraArgs') checkArgumentTypes(ctx, e.value);
  }
}

/** Each argument's named type is one the schema gives arguments: a scalar or `Iterable` (GRAPHQL_SCALARS). */
function checkArgumentTypes(ctx: CheckContext, args: A.Value | undefined): void {
  if (args?.kind !== 'object') return;
  for (const arg of args.entries) {
    const type = arg.value?.kind === 'object' ? arg.value.entries.find((f) => f.key.text === 'type')?.value : undefined;
    if (type?.kind !== 'string') continue;
    const named = graphQlNamedType(type.value);
    if (named === undefined || (GRAPHQL_SCALARS as readonly string[]).includes(named)) continue;
    ctx.unknown(
      'unknown-graphql-type',
      { text: named, range: type.range },
      'GraphQL argument type',
      GRAPHQL_SCALARS,
      `; an argument is a ${GRAPHQL_SCALARS.join(', ')}, in lists and non-null as needed ([ID!]!)`,
    );
  }
}

interface RootField {
  field: string;
  kind: string;
  resource: ModelResource;
  op: ModelGraphQlOperation | undefined;
}

/** Every root field of the file: the declared operations', and the defaults of resources without a block. */
function rootFields(ctx: CheckContext, enabled: boolean): RootField[] {
  const out: RootField[] = [];
  for (const resource of ctx.model.resources.values()) {
    if (resource.graphql) {
      for (const op of resource.graphql) {
        const nested = op.options.get('nested')?.value;
        if (op.fieldName !== undefined && !(nested?.kind === 'bool' && nested.value))
          out.push({ field: op.fieldName, kind: op.kind, resource, op });
      }
    } else if (enabled) {
      const mercure = mercureOn(resource.options.get('mercure'));
      for (const d of DEFAULT_GRAPHQL_OPERATIONS) {
        if ((d.mercureOnly && !mercure) || !modelTwin(resource, d.kind, d.name, false)) continue;
        const field = graphQlFieldName(d.kind, d.name, resource.shortName)!;
        out.push({ field, kind: d.kind, resource, op: undefined });
      }
    }
  }
  return out;
}

function checkFields(ctx: CheckContext, enabled: boolean): void {
  const seen = new Map<string, RootField>();
  for (const f of rootFields(ctx, enabled)) {
    const first = seen.get(f.field);
    if (!first) {
      seen.set(f.field, f);
      continue;
    }
    const range = f.op ? (f.op.decl.name ?? f.op.decl.opKind).range : f.resource.decl.name?.range;
    if (!range) continue;
    const which = first.op ? `${first.kind}${first.op.name ? ` ${first.op.name}` : ''}` : `the default ${first.kind}`;
    ctx.report(
      'duplicate-graphql-field',
      range,
      `the GraphQL field '${f.field}' is already ${which} of '${first.resource.name}': ` +
        (f.op ? 'rename one of them' : 'give one of the resources a graphql block or another shortName'),
    );
  }
}

/** Whether a `mercure` value publishes (`true`, or its object form). */
function mercureOn(entry: A.Entry | undefined): boolean {
  const v = entry?.value;
  return v !== undefined && v.kind !== 'null' && !(v.kind === 'bool' && !v.value);
}
