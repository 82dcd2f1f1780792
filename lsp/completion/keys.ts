/**
 * Key completions: the keys a block allows and does not hold yet, with their type, default and
 * doc. Each scope has its own source: the option catalogue (resources, operations), constraints
 * by property type, a filter kind's fields, the settings tree (config), a record's fields, and the
 * properties in scope (order and filter maps, parameters).
 */
import { CompletionItemKind } from 'vscode-languageserver';
import {
  CONSTRAINTS,
  GRAPHQL_KINDS,
  OPERATION_KINDS,
  OPTIONS,
  constraintApplies,
  describeType,
  filterKind,
  settingByPath,
  settingChildren,
  type FieldSpec,
  type OperationKind,
  type ValueType,
} from '../../grammar/catalogue/index.js';
import { constraintMarkdown, fieldMarkdown, optionMarkdown, settingMarkdown } from '../docs.js';
import type { Scope } from './cursor-context.js';
import { propertyNames, resourceNames, type Env } from './env.js';
import type { Item } from './item.js';
import { blockItem, esc, snippetFor } from './snippets.js';
import { ORDER_DIRECTIONS, suggestsValues } from './values.js';

type ScopeOf<K extends Scope['kind']> = Extract<Scope, { kind: K }>;

export function keyItems(scope: Scope, env: Env): Item[] {
  switch (scope.kind) {
    case 'resource':
      return resourceKeys(env);
    case 'operation':
      return operationKeys(scope, env);
    case 'constraints':
      return constraintKeys(scope, env);
    case 'filter': {
      const spec = scope.filterKind ? filterKind(scope.filterKind) : undefined;
      return fieldKeys(spec?.fields ?? {}, env, () => '1');
    }
    case 'config':
      return settingKeys(scope, env);
    case 'api':
      return apiKeys(env);
    case 'object':
      return objectKeys(scope, env);
    default:
      return [];
  }
}

/** `name: ` and a placeholder for the value (just the name when a colon follows). */
function keyItem(
  env: Env,
  name: string,
  type: ValueType | undefined,
  kind: CompletionItemKind,
  doc: string,
  detail: string,
  sort = '1',
): Item {
  const text = env.ctx.colonAfter ? name : `${name}: ${snippetFor(type)}`;
  return {
    label: name,
    text,
    kind,
    snippet: !env.ctx.colonAfter,
    detail,
    doc,
    sort,
    retrigger: !env.ctx.colonAfter && suggestsValues(type),
  };
}

/** What the block does not hold yet. */
const fresh = <T extends { name: string }>(env: Env, xs: readonly T[]): T[] =>
  xs.filter((x) => !env.ctx.present.has(x.name));

/** The resource options, and the `properties` and `operations` blocks. */
function resourceKeys(env: Env): Item[] {
  const present = env.ctx.present;
  const items = fresh(
    env,
    OPTIONS.filter((o) => o.placement.resource),
  ).map((o) => keyItem(env, o.name, o.type, CompletionItemKind.Property, optionMarkdown(o), describeType(o.type)));
  if (!present.has('properties'))
    items.push(
      blockItem(
        'properties',
        'The properties of the resource: `name: type { constraint: value }`.',
        '${1:id}: ${2:int} { identifier: true }',
      ),
    );
  if (!present.has('operations'))
    items.push(
      blockItem(
        'operations',
        'The operations of the resource (without this block: GetCollection, Post, Get, Patch, Delete).',
        '${1|GetCollection,Post,Get,Put,Patch,Delete,Query,HttpOperation|}',
      ),
    );
  if (!present.has('graphql'))
    items.push(
      blockItem(
        'graphql',
        'The GraphQL operations of the resource (without this block, while `config graphql.enabled`: Query, ' +
          'QueryCollection, Mutation create, Mutation update, DeleteMutation delete, and Subscription with `mercure`).',
        `\${1|${GRAPHQL_KINDS.join(',')}|}`,
      ),
    );
  return items;
}

/** The options allowed on the operation's kind (every operation option when the kind is unknown); ineffective ones last. */
function operationKeys(scope: ScopeOf<'operation'>, env: Env): Item[] {
  if (scope.graphql) return graphQlOperationKeys(scope, env);
  const kind = scope.opKind as OperationKind | undefined;
  const known = kind !== undefined && (OPERATION_KINDS as readonly string[]).includes(kind);
  const allowed = OPTIONS.filter((o) =>
    known ? o.placement.operations.includes(kind) : o.placement.operations.length > 0,
  );
  return fresh(env, allowed).map((o) => {
    const ineffective = known && o.placement.ineffectiveOn?.includes(kind);
    return keyItem(
      env,
      o.name,
      o.type,
      CompletionItemKind.Property,
      optionMarkdown(o, kind),
      `${describeType(o.type)}${ineffective ? ` (no effect on ${kind})` : ''}`,
      ineffective ? '2' : '1',
    );
  });
}

/** In a `graphql` block: the options of the GraphQL kind (of any GraphQL kind when the kind is unknown). */
function graphQlOperationKeys(scope: ScopeOf<'operation'>, env: Env): Item[] {
  const kind = GRAPHQL_KINDS.find((k) => k === scope.opKind);
  const allowed = OPTIONS.filter((o) => (kind ? o.placement.graphql?.includes(kind) : o.placement.graphql));
  return fresh(env, allowed).map((o) =>
    keyItem(env, o.name, o.type, CompletionItemKind.Property, optionMarkdown(o), describeType(o.type)),
  );
}

/** The constraints that apply to the property's type (a resource name is a relation). */
function constraintKeys(scope: ScopeOf<'constraints'>, env: Env): Item[] {
  const t = scope.propertyType;
  const applicable = CONSTRAINTS.filter((c) =>
    constraintApplies(c, t, t !== undefined && resourceNames(env).includes(t), scope.propertyArray),
  );
  return fresh(env, applicable).map((c) =>
    keyItem(env, c.name, c.type, CompletionItemKind.Field, constraintMarkdown(c), describeType(c.type)),
  );
}

/** The fields of a filter kind or a record, sorted by `sort`. */
function fieldKeys(fields: Record<string, FieldSpec>, env: Env, sort: (f: FieldSpec) => string): Item[] {
  return Object.entries(fields)
    .filter(([name]) => !env.ctx.present.has(name))
    .map(([name, f]) =>
      keyItem(env, name, f.type, CompletionItemKind.Field, fieldMarkdown(name, f), describeType(f.type), sort(f)),
    );
}

/** The settings under the block's path: a leaf with its value, a group as a block. */
function settingKeys(scope: ScopeOf<'config'>, env: Env): Item[] {
  return settingChildren(scope.prefix)
    .filter((name) => !env.ctx.present.has(name))
    .map((name) => {
      const path = scope.prefix ? `${scope.prefix}.${name}` : name;
      const leaf = settingByPath(path);
      const doc = settingMarkdown(path) ?? '';
      return leaf
        ? keyItem(env, name, leaf.type, CompletionItemKind.Property, doc, describeType(leaf.type))
        : { ...blockItem(name, doc), kind: CompletionItemKind.Module };
    });
}

function apiKeys(env: Env): Item[] {
  return ['version', 'description', 'title']
    .filter((n) => !env.ctx.present.has(n))
    .map((n) =>
      keyItem(env, n, { kind: 'string' }, CompletionItemKind.Property, `**${n}** of the API documentation`, 'string'),
    );
}

/** Inside a typed value: a record's fields (required first), or property names where a map is keyed by them. */
function objectKeys(scope: ScopeOf<'object'>, env: Env): Item[] {
  const t = scope.type;
  const path = scope.path.join('.');
  if (t.kind === 'record') return fieldKeys(t.fields, env, (f) => (f.required ? '0' : '1'));
  const props = propertyNames(env, scope).filter((p) => !env.ctx.present.has(p));
  if (path === 'order' || (scope.filterKind && path === 'properties')) {
    const setting = scope.filterKind ? filterKind(scope.filterKind)?.perProperty?.type : ORDER_DIRECTIONS;
    return props.map((p) => keyItem(env, p, setting, CompletionItemKind.Field, `Property \`${p}\``, 'property'));
  }
  if (path === 'parameters') {
    return props.map((p) => ({
      label: p,
      text: env.ctx.colonAfter ? p : `${p}: { filter: "$1", property: "${esc(p)}" }`,
      kind: CompletionItemKind.Field,
      snippet: !env.ctx.colonAfter,
      detail: 'parameter on the property',
      retrigger: !env.ctx.colonAfter,
    }));
  }
  return [];
}
