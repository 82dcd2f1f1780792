/**
 * Value completions: what a key's catalogue type admits (words of an enum, declared filters and
 * resources, routes, code references, snippets for lists and records), the property names a slot
 * takes, and the items of a list being written. The key's default comes first.
 */
import { CompletionItemKind } from 'vscode-languageserver';
import {
  describeType,
  formatDefault,
  optionByName,
  settingByPath,
  type ValueType,
} from '../../grammar/catalogue/index.js';
import { keyType, type Scope } from './cursor-context.js';
import { filterPropertyNames, propertyNames, resourceNames, type Env } from './env.js';
import { quote, type Item } from './item.js';
import { esc, recordSnippet } from './snippets.js';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'HEAD', 'OPTIONS'];
/** The directions of `order` (its keys are property names). */
export const ORDER_DIRECTIONS: ValueType = { kind: 'enum', values: ['ASC', 'DESC'] };

type TypeOf<K extends ValueType['kind']> = Extract<ValueType, { kind: K }>;

/** Does a type have value completions worth asking for right after the key? */
export function suggestsValues(type: ValueType | undefined): boolean {
  if (!type) return false;
  if (type.kind === 'list') return suggestsValues(type.of) || type.of.kind === 'record';
  if (type.kind === 'oneOf') return type.of.some(suggestsValues);
  return ['filterRef', 'resourceRef', 'codeRef', 'httpMethod', 'uriTemplate'].includes(type.kind);
}

/** Values for `key:` in a scope (by the key's catalogue type, or a property-name slot). */
export function valuesForKey(scope: Scope, key: string, env: Env): Item[] {
  if (scope.kind === 'object') {
    const path = scope.path.join('.');
    if ((path === 'paginationViaCursor.[]' && key === 'field') || (path === 'parameters.*' && key === 'property'))
      return propertyItems(env, scope);
    if (scope.path[0] === 'order' && scope.path.length === 1) return valueItems(ORDER_DIRECTIONS, env, scope);
  }
  if (scope.kind === 'constraints' && key === 'default') return serverDefaultItems(scope.propertyType);
  const typed = keyType(scope, key);
  if (!typed) return [];
  if (scope.kind === 'filter' && key === 'properties' && scope.filterKind)
    return [filterPropertiesItem(typed.type, env, scope)];
  return valueItems(typed.type, env, scope, defaultOf(scope, key, typed.path));
}

/**
 * The values the server computes for `default:` (docs/behaviour.md, "Values the server sets"): `now` on a
 * datetime or date, and the expression form on any type. A literal default is the file's own to write.
 */
function serverDefaultItems(propertyType: string | undefined): Item[] {
  const items: Item[] = [
    {
      label: '{ expression: … }',
      text: '{ expression: "${1:user.identifier}" }',
      snippet: true,
      kind: CompletionItemKind.Snippet,
      detail: 'computed by the server (sees user)',
    },
  ];
  if (propertyType === 'datetime' || propertyType === 'date')
    items.unshift({ label: 'now', text: 'now', kind: CompletionItemKind.Keyword, detail: 'the time of the create' });
  return items;
}

/** Items of a list being written (`filters: [|`, `paginationViaCursor: [|`). */
export function arrayItems(scope: Extract<Scope, { kind: 'array' }>, env: Env): Item[] {
  const path = scope.path.join('.');
  if (scope.filterKind && path === 'properties')
    return filterPropertyNames(env, scope)
      .filter((p) => !env.ctx.present.has(p.name))
      .map((p) => ({
        label: p.name,
        text: quote(p.name),
        kind: CompletionItemKind.Field,
        detail: p.path ? 'property of a related item' : 'property',
        sort: p.path ? '2' : '1',
      }));
  if (path === 'order') return propertyItems(env, scope).filter((i) => !env.ctx.present.has(i.label));
  const items = valueItems(scope.type, env, scope);
  if (scope.type.kind === 'filterRef' || scope.type.kind === 'resourceRef')
    return items.filter((i) => !env.ctx.present.has(i.label));
  return items;
}

/** The catalogue default of an option or a setting (other keys have none to offer). */
function defaultOf(scope: Scope, key: string, path: string[]): unknown {
  if (scope.kind === 'resource' || scope.kind === 'operation') return optionByName(key)?.default;
  if (scope.kind === 'config') return settingByPath(path[0])?.default;
  return undefined;
}

function propertyItems(env: Env, scope: Scope): Item[] {
  return propertyNames(env, scope).map((p) => ({
    label: p,
    text: quote(p),
    kind: CompletionItemKind.Field,
    detail: 'property',
  }));
}

/** `properties: [` with a choice of the properties in scope (or an empty list to fill). */
function filterPropertiesItem(type: ValueType, env: Env, scope: Scope): Item {
  const names = propertyNames(env, scope);
  return {
    label: '[ … ]',
    text: names.length ? `[\${1|${names.map((n) => esc(quote(n))).join(',')}|}]` : '[$1]',
    snippet: true,
    kind: CompletionItemKind.Snippet,
    detail: describeType(type),
    retrigger: !names.length,
  };
}

function valueItems(type: ValueType, env: Env, scope: Scope, defaultValue?: unknown): Item[] {
  const items = itemsOfType(type, env, scope);
  if (defaultValue !== undefined && defaultValue !== null && typeof defaultValue !== 'object')
    markDefault(items, formatDefault(defaultValue));
  return items;
}

/** The default first: the item that writes it, else an item of its own. */
function markDefault(items: Item[], text: string): void {
  const existing = items.find((i) => i.text === text);
  if (!existing) {
    items.unshift({ label: text, text, kind: CompletionItemKind.Value, detail: 'default', sort: '0' });
    return;
  }
  existing.sort = '0';
  existing.detail = `${existing.detail ? `${existing.detail} · ` : ''}default`;
}

function itemsOfType(type: ValueType, env: Env, scope: Scope): Item[] {
  switch (type.kind) {
    case 'bool':
      return [keyword('true'), keyword('false')];
    case 'false':
      return [keyword('false')];
    case 'enum':
      return type.values.map((v) => ({
        label: v,
        text: quote(v),
        kind: CompletionItemKind.EnumMember,
        detail: describeType(type),
      }));
    case 'oneOf':
      return type.of.flatMap((t) => itemsOfType(t, env, scope));
    case 'filterRef':
      return filterItems(env);
    case 'resourceRef':
      return resourceNames(env).map((name) => ({
        label: name,
        text: quote(name),
        kind: CompletionItemKind.Class,
        detail: 'resource',
      }));
    case 'codeRef':
      return codeRefItems(type);
    case 'httpMethod':
      return HTTP_METHODS.map((m) => ({
        label: m,
        text: quote(m),
        kind: CompletionItemKind.Value,
        detail: 'HTTP method',
      }));
    case 'uriTemplate':
      return routeItems(env, scope);
    case 'expression':
      return [
        {
          label: `"is_granted('ROLE_USER')"`,
          text: `"is_granted('\${1:ROLE_USER}')"`,
          snippet: true,
          kind: CompletionItemKind.Snippet,
          detail: 'security expression',
        },
      ];
    case 'list':
      return [listItem(type, env, scope)];
    case 'record':
      return [objectItem(type, recordSnippet(type, env, scope))];
    case 'map':
    case 'phpArray':
      return [objectItem(type, '{ $1 }')];
    default:
      return [];
  }
}

const keyword = (word: string): Item => ({ label: word, text: word, kind: CompletionItemKind.Keyword });

/** The filters of the model, with their kind, then those only the text declares. */
function filterItems(env: Env): Item[] {
  const model = env.model;
  const items: Item[] = [];
  for (const [name, f] of model?.filters ?? [])
    items.push({
      label: name,
      text: quote(name),
      kind: CompletionItemKind.Reference,
      detail: `filter: ${f.kind ?? '?'}`,
    });
  for (const name of env.declared.filters)
    if (!model?.filters.has(name))
      items.push({ label: name, text: quote(name), kind: CompletionItemKind.Reference, detail: 'filter' });
  return items;
}

function codeRefItems(type: TypeOf<'codeRef'>): Item[] {
  return [
    ...(type.builtins ?? []).map((b) => ({
      label: b,
      text: quote(b),
      kind: CompletionItemKind.Value,
      detail: 'built-in',
    })),
    {
      label: '"./module.mjs#export"',
      text: '"./${1:module}.mjs#${2:export}"',
      snippet: true,
      kind: CompletionItemKind.Snippet,
      detail: 'code reference',
    },
  ];
}

/** The resource's routes; on GetCollection and Post (an `itemUriTemplate`) first its item routes. */
function routeItems(env: Env, scope: Scope): Item[] {
  const resource = scope.resource ? env.model?.resources.get(scope.resource) : undefined;
  const paths = new Set<string>();
  if (resource) {
    if (scope.kind === 'operation' && scope.opKind && ['GetCollection', 'Post'].includes(scope.opKind)) {
      for (const o of resource.operations)
        if (!o.collectionRoute && o.method === 'GET') paths.add(o.uriTemplate ?? o.path);
    }
    paths.add(resource.collectionPath);
    if (resource.itemPath) paths.add(resource.itemPath);
  }
  return [...paths].map((p) => ({ label: quote(p), text: quote(p), kind: CompletionItemKind.Value, detail: 'route' }));
}

function listItem(type: TypeOf<'list'>, env: Env, scope: Scope): Item {
  if (type.of.kind === 'record')
    return {
      label: '[{ … }]',
      text: `[${recordSnippet(type.of, env, scope)}]`,
      snippet: true,
      kind: CompletionItemKind.Snippet,
      detail: describeType(type),
    };
  return {
    label: '[ … ]',
    text: '[$1]',
    snippet: true,
    kind: CompletionItemKind.Snippet,
    detail: describeType(type),
    retrigger: suggestsValues(type.of),
  };
}

const objectItem = (type: ValueType, text: string): Item => ({
  label: '{ … }',
  text,
  snippet: true,
  kind: CompletionItemKind.Snippet,
  detail: describeType(type),
});
