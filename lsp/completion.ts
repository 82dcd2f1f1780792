/**
 * Completion items, decided from the enclosing block (see completion-context.ts) and the
 * option catalogue: the keys allowed in the block and not yet present (with their type,
 * default and doc), the values a key's type admits, names declared in the file, and
 * snippets for blocks.
 */
import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type Position,
  type TextEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CONSTRAINTS,
  FILTER_KINDS,
  OPERATION_KINDS,
  OPTIONS,
  PROPERTY_TYPES,
  constraintApplies,
  describeType,
  filterKind,
  formatDefault,
  optionByName,
  settingByPath,
  settingChildren,
  type OperationKind,
  type ValueType,
} from '../grammar/catalogue/index.js';
import { parse } from '../grammar/parse.js';
import { allOperations, buildModel, type ApiModel } from '../grammar/model.js';
import type { Analysis } from './analysis.js';
import { completionContext, keyType, type CompletionContext, type Scope, type Tok } from './completion-context.js';
import { expressionCompletions } from './expressions.js';
import {
  constraintMarkdown,
  fieldMarkdown,
  filterKindMarkdown,
  operationsUsingFilter,
  opKindMarkdown,
  optionMarkdown,
  propertyTypeMarkdown,
  settingMarkdown,
} from './docs.js';
import { toOffset, toRange } from './ranges.js';

/** An item before it is placed: what to insert and how to present it. */
interface Item {
  label: string;
  text: string;
  kind: CompletionItemKind;
  snippet?: boolean;
  detail?: string;
  doc?: string;
  sort?: string;
  /** Ask the editor for completions again once inserted (a value follows). */
  retrigger?: boolean;
}

const TRIGGER_SUGGEST = { title: 'Suggest', command: 'editor.action.triggerSuggest' };
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'HEAD', 'OPTIONS'];
const quote = (s: string): string => JSON.stringify(s);
/** Escapes text for a snippet. */
const esc = (s: string): string => s.replace(/[$}\\]/g, (c) => `\\${c}`);

interface Env {
  ctx: CompletionContext;
  model: ApiModel | undefined;
  /** Resource and filter names declared in the text, found by their tokens (for text the parser gave up on). */
  declared: { resources: string[]; filters: string[] };
}

function resourceNames(env: Env): string[] {
  return [...new Set([...(env.model?.resources.keys() ?? []), ...env.declared.resources])];
}

/** `resource Name {` and `filter name:` at the start of a line, wherever they stand. */
function declaredNames(text: string): Env['declared'] {
  return {
    resources: [...text.matchAll(/^[ \t]*resource[ \t]+([A-Za-z_][A-Za-z0-9_]*)\s*\{/gm)].map((m) => m[1]),
    filters: [...text.matchAll(/^[ \t]*filter[ \t]+([A-Za-z_][A-Za-z0-9_]*)\s*:/gm)].map((m) => m[1]),
  };
}

// ---- values ----------------------------------------------------------------------------

function propertyNames(env: Env, scope: Scope): string[] {
  const model = env.model;
  if (!model) return [];
  if (scope.resource) return [...(model.resources.get(scope.resource)?.properties.keys() ?? [])];
  if (scope.filterName) {
    const users = operationsUsingFilter(model, scope.filterName).map((o) => o.resource);
    const resources = users.length ? users : [...model.resources.values()];
    return [...new Set(resources.flatMap((r) => [...r.properties.keys()]))];
  }
  return [];
}

function snippetFor(type: ValueType | undefined, n = 1): string {
  switch (type?.kind) {
    case 'bool':
      return `\${${n}|true,false|}`;
    case 'enum':
      return `\${${n}|${type.values.map((v) => quote(v).replace(/[,|]/g, (c) => `\\${c}`)).join(',')}|}`;
    case 'list':
      return `[$${n}]`;
    case 'oneOf':
      return type.of[0]?.kind === 'list' ? `[$${n}]` : `$${n}`;
    case 'record':
    case 'map':
    case 'phpArray':
      return `{ $${n} }`;
    case 'string':
    case 'uriTemplate':
    case 'codeRef':
    case 'expression':
    case 'httpMethod':
      return `"$${n}"`;
    default:
      return `$${n}`;
  }
}

/** Does a type have value completions worth asking for right after the key? */
function suggestsValues(type: ValueType | undefined): boolean {
  if (!type) return false;
  if (type.kind === 'list') return suggestsValues(type.of) || type.of.kind === 'record';
  if (type.kind === 'oneOf') return type.of.some(suggestsValues);
  return ['filterRef', 'resourceRef', 'codeRef', 'httpMethod', 'uriTemplate'].includes(type.kind);
}

function recordSnippet(type: Extract<ValueType, { kind: 'record' }>, env: Env, scope: Scope): string {
  let n = 0;
  const parts = Object.entries(type.fields)
    .filter(([, f]) => f.required)
    .map(([name, f]) => {
      n++;
      if (name === 'field') {
        const props = propertyNames(env, scope);
        return props.length ? `field: "\${${n}|${props.map(esc).join(',')}|}"` : `field: "\${${n}:id}"`;
      }
      return `${name}: ${snippetFor(f.type, n)}`;
    });
  return parts.length ? `{ ${parts.join(', ')} }` : '{ $1 }';
}

function valueItems(type: ValueType | undefined, env: Env, scope: Scope, defaultValue?: unknown): Item[] {
  if (!type) return [];
  const model = env.model;
  const out: Item[] = [];
  switch (type.kind) {
    case 'bool':
      out.push(
        { label: 'true', text: 'true', kind: CompletionItemKind.Keyword },
        { label: 'false', text: 'false', kind: CompletionItemKind.Keyword },
      );
      break;
    case 'false':
      out.push({ label: 'false', text: 'false', kind: CompletionItemKind.Keyword });
      break;
    case 'enum':
      for (const v of type.values)
        out.push({ label: v, text: quote(v), kind: CompletionItemKind.EnumMember, detail: describeType(type) });
      break;
    case 'oneOf':
      for (const t of type.of) out.push(...valueItems(t, env, scope));
      break;
    case 'filterRef':
      for (const [name, f] of model?.filters ?? [])
        out.push({
          label: name,
          text: quote(name),
          kind: CompletionItemKind.Reference,
          detail: `filter: ${f.kind ?? '?'}`,
        });
      for (const name of env.declared.filters)
        if (!model?.filters.has(name))
          out.push({ label: name, text: quote(name), kind: CompletionItemKind.Reference, detail: 'filter' });
      break;
    case 'resourceRef':
      for (const name of resourceNames(env))
        out.push({ label: name, text: quote(name), kind: CompletionItemKind.Class, detail: 'resource' });
      break;
    case 'codeRef':
      for (const b of type.builtins ?? [])
        out.push({ label: b, text: quote(b), kind: CompletionItemKind.Value, detail: 'built-in' });
      out.push({
        label: '"./module.mjs#export"',
        text: '"./${1:module}.mjs#${2:export}"',
        snippet: true,
        kind: CompletionItemKind.Snippet,
        detail: 'code reference',
      });
      break;
    case 'httpMethod':
      for (const m of HTTP_METHODS)
        out.push({ label: m, text: quote(m), kind: CompletionItemKind.Value, detail: 'HTTP method' });
      break;
    case 'uriTemplate': {
      const resource = scope.resource ? model?.resources.get(scope.resource) : undefined;
      const paths = new Set<string>();
      if (resource) {
        if (scope.kind === 'operation' && scope.opKind && ['GetCollection', 'Post'].includes(scope.opKind)) {
          for (const o of resource.operations)
            if (!o.collectionRoute && o.method === 'GET') paths.add(o.uriTemplate ?? o.path);
        }
        paths.add(resource.collectionPath);
        if (resource.itemPath) paths.add(resource.itemPath);
      }
      for (const p of paths)
        out.push({ label: quote(p), text: quote(p), kind: CompletionItemKind.Value, detail: 'route' });
      break;
    }
    case 'expression':
      out.push({
        label: `"is_granted('ROLE_USER')"`,
        text: `"is_granted('\${1:ROLE_USER}')"`,
        snippet: true,
        kind: CompletionItemKind.Snippet,
        detail: 'security expression',
      });
      break;
    case 'list':
      if (type.of.kind === 'record') {
        out.push({
          label: '[{ … }]',
          text: `[${recordSnippet(type.of, env, scope)}]`,
          snippet: true,
          kind: CompletionItemKind.Snippet,
          detail: describeType(type),
        });
      } else {
        out.push({
          label: '[ … ]',
          text: '[$1]',
          snippet: true,
          kind: CompletionItemKind.Snippet,
          detail: describeType(type),
          retrigger: suggestsValues(type.of),
        });
      }
      break;
    case 'record':
      out.push({
        label: '{ … }',
        text: recordSnippet(type, env, scope),
        snippet: true,
        kind: CompletionItemKind.Snippet,
        detail: describeType(type),
      });
      break;
    case 'map':
    case 'phpArray':
      out.push({
        label: '{ … }',
        text: '{ $1 }',
        snippet: true,
        kind: CompletionItemKind.Snippet,
        detail: describeType(type),
      });
      break;
    default:
      break;
  }
  if (defaultValue !== undefined && defaultValue !== null && typeof defaultValue !== 'object') {
    const text = formatDefault(defaultValue);
    const existing = out.find((i) => i.text === text);
    if (existing) existing.sort = '0';
    else out.unshift({ label: text, text, kind: CompletionItemKind.Value, detail: 'default', sort: '0' });
    if (existing) existing.detail = `${existing.detail ? `${existing.detail} · ` : ''}default`;
  }
  return out;
}

/** Values for `key:` in a scope (by the key's catalogue type, or a property-name slot). */
function valuesForKey(scope: Scope, key: string, env: Env): Item[] {
  const props = (): Item[] =>
    propertyNames(env, scope).map((p) => ({
      label: p,
      text: quote(p),
      kind: CompletionItemKind.Field,
      detail: 'property',
    }));
  if (scope.kind === 'object') {
    const path = scope.path.join('.');
    if ((path === 'paginationViaCursor.[]' && key === 'field') || (path === 'parameters.*' && key === 'property'))
      return props();
    if (scope.path[0] === 'order' && scope.path.length === 1)
      return valueItems({ kind: 'enum', values: ['ASC', 'DESC'] }, env, scope);
  }
  const typed = keyType(scope, key);
  if (!typed) return [];
  let defaultValue: unknown;
  if (scope.kind === 'resource' || scope.kind === 'operation') defaultValue = optionByName(key)?.default;
  if (scope.kind === 'config') defaultValue = settingByPath(typed.path[0])?.default;
  if (scope.kind === 'filter' && key === 'properties' && scope.filterKind) {
    const names = propertyNames(env, scope);
    return [
      {
        label: '[ … ]',
        text: names.length ? `[\${1|${names.map((n) => esc(quote(n))).join(',')}|}]` : '[$1]',
        snippet: true,
        kind: CompletionItemKind.Snippet,
        detail: describeType(typed.type),
        retrigger: !names.length,
      },
    ];
  }
  return valueItems(typed.type, env, scope, defaultValue);
}

/** Items of a list being written (`filters: [|`, `paginationViaCursor: [|`). */
function arrayItems(scope: Extract<Scope, { kind: 'array' }>, env: Env): Item[] {
  const path = scope.path.join('.');
  if ((scope.filterKind && path === 'properties') || path === 'order') {
    return propertyNames(env, scope)
      .filter((p) => !env.ctx.present.has(p))
      .map((p) => ({ label: p, text: quote(p), kind: CompletionItemKind.Field, detail: 'property' }));
  }
  const items = valueItems(scope.type, env, scope);
  if (scope.type.kind === 'filterRef' || scope.type.kind === 'resourceRef')
    return items.filter((i) => !env.ctx.present.has(i.label));
  return items;
}

// ---- keys ------------------------------------------------------------------------------

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

const blockItem = (name: string, doc: string, body = '$0'): Item => ({
  label: name,
  text: `${name} {\n\t${body}\n}`,
  kind: CompletionItemKind.Module,
  snippet: true,
  detail: `${name} { … }`,
  doc,
  sort: '0',
});

function keyItems(scope: Scope, env: Env): Item[] {
  const present = env.ctx.present;
  const fresh = <T extends { name: string }>(xs: readonly T[]): T[] => xs.filter((x) => !present.has(x.name));
  switch (scope.kind) {
    case 'resource': {
      const items = fresh(OPTIONS.filter((o) => o.placement.resource)).map((o) =>
        keyItem(env, o.name, o.type, CompletionItemKind.Property, optionMarkdown(o), describeType(o.type)),
      );
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
      return items;
    }
    case 'operation': {
      const kind = scope.opKind as OperationKind | undefined;
      const known = kind !== undefined && (OPERATION_KINDS as readonly string[]).includes(kind);
      const allowed = OPTIONS.filter((o) =>
        known ? o.placement.operations.includes(kind) : o.placement.operations.length > 0,
      );
      return fresh(allowed).map((o) => {
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
    case 'constraints': {
      const t = scope.propertyType;
      const applicable = CONSTRAINTS.filter((c) =>
        constraintApplies(c, t, t !== undefined && resourceNames(env).includes(t)),
      );
      return fresh(applicable).map((c) =>
        keyItem(env, c.name, c.type, CompletionItemKind.Field, constraintMarkdown(c), describeType(c.type)),
      );
    }
    case 'filter': {
      const spec = scope.filterKind ? filterKind(scope.filterKind) : undefined;
      return Object.entries(spec?.fields ?? {})
        .filter(([name]) => !present.has(name))
        .map(([name, f]) =>
          keyItem(env, name, f.type, CompletionItemKind.Field, fieldMarkdown(name, f), describeType(f.type)),
        );
    }
    case 'config':
      return settingChildren(scope.prefix)
        .filter((name) => !present.has(name))
        .map((name) => {
          const path = scope.prefix ? `${scope.prefix}.${name}` : name;
          const leaf = settingByPath(path);
          const doc = settingMarkdown(path) ?? '';
          return leaf
            ? keyItem(env, name, leaf.type, CompletionItemKind.Property, doc, describeType(leaf.type))
            : { ...blockItem(name, doc), kind: CompletionItemKind.Module };
        });
    case 'api':
      return ['version', 'description', 'title']
        .filter((n) => !present.has(n))
        .map((n) =>
          keyItem(
            env,
            n,
            { kind: 'string' },
            CompletionItemKind.Property,
            `**${n}** of the API documentation`,
            'string',
          ),
        );
    case 'object': {
      const t = scope.type;
      const path = scope.path.join('.');
      if (t.kind === 'record') {
        return Object.entries(t.fields)
          .filter(([name]) => !present.has(name))
          .map(([name, f]) =>
            keyItem(
              env,
              name,
              f.type,
              CompletionItemKind.Field,
              fieldMarkdown(name, f),
              describeType(f.type),
              f.required ? '0' : '1',
            ),
          );
      }
      const props = propertyNames(env, scope).filter((p) => !present.has(p));
      if (path === 'order' || (scope.filterKind && path === 'properties')) {
        const setting = scope.filterKind
          ? filterKind(scope.filterKind)?.perProperty?.type
          : ({ kind: 'enum', values: ['ASC', 'DESC'] } as ValueType);
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
    default:
      return [];
  }
}

// ---- declarations ----------------------------------------------------------------------

function topItems(env: Env): Item[] {
  const model = env.model;
  const items: Item[] = [
    {
      label: 'resource',
      text: 'resource ${1:Name} {\n\tproperties {\n\t\tid: int { identifier: true }\n\t\t$2\n\t}\n\toperations {\n\t\tGetCollection\n\t\tPost\n\t\tGet\n\t\tPatch\n\t\tDelete\n\t}\n}',
      kind: CompletionItemKind.Class,
      snippet: true,
      detail: 'resource Name { properties { … } operations { … } }',
      doc: 'A resource: its properties and operations.',
    },
    {
      label: 'filter',
      text: `filter \${1:name}: \${2|${FILTER_KINDS.map((k) => k.name).join(',')}|} { properties: [\${3}] }`,
      kind: CompletionItemKind.Function,
      snippet: true,
      detail: 'filter name: kind { properties: [ … ] }',
      doc: `A named filter; kinds: ${FILTER_KINDS.map((k) => k.name).join(', ')}.`,
    },
    {
      label: 'mutator',
      text: 'mutator ${1|resource,operation|} ${2:target}: "./${3:mutators}.mjs#${4:export}"',
      kind: CompletionItemKind.Event,
      snippet: true,
      detail: 'mutator resource|operation target: "./file.mjs#export"',
      doc: 'A metadata mutator, run once at load.',
    },
  ];
  const declared = new Set(model?.document.declarations.map((d) => d.kind));
  if (!declared.has('api') || env.ctx.current?.value === 'api') {
    items.unshift({
      label: 'api',
      text: 'api "${1:Title}" { version: "${2:1.0.0}" }',
      kind: CompletionItemKind.Module,
      snippet: true,
      detail: 'api "Title" { version: … }',
      doc: 'The API header (once).',
    });
  }
  if (!declared.has('config') || env.ctx.current?.value === 'config') {
    items.unshift({
      ...blockItem(
        'config',
        'Global settings (snake_case), e.g. `defaults { pagination_items_per_page: 30 }`.',
        'patch_formats: ["application/merge-patch+json"]$0',
      ),
      kind: CompletionItemKind.Module,
    });
  }
  return items;
}

function topMemberItems(member: Tok[], env: Env): { items: Item[]; colonAt?: number } {
  const words = member.map((t) => t.text);
  if (words[0] === 'filter') {
    const kinds = FILTER_KINDS.map((k) => ({
      label: k.name,
      text: k.name,
      kind: CompletionItemKind.TypeParameter,
      detail: 'filter kind',
      doc: filterKindMarkdown(k),
    }));
    if (words.length === 3 && words[2] === ':') return { items: kinds };
    if (words.length === 2 && member[1].kind === 'word') return { items: kinds, colonAt: member[1].end };
  }
  if (words[0] === 'mutator') {
    if (words.length === 1)
      return { items: ['resource', 'operation'].map((w) => ({ label: w, text: w, kind: CompletionItemKind.Keyword })) };
    if (words.length === 2 && words[1] === 'resource') {
      return {
        items: resourceNames(env).map((r) => ({
          label: r,
          text: r,
          kind: CompletionItemKind.Class,
          detail: 'resource',
        })),
      };
    }
    if (words.length === 2 && words[1] === 'operation' && env.model) {
      return {
        items: allOperations(env.model).map((o) => ({
          label: o.name,
          text: quote(o.name),
          kind: CompletionItemKind.Method,
          detail: `${o.method ?? '?'} ${o.path}`,
        })),
      };
    }
  }
  return { items: [] };
}

function propertyTypeItems(env: Env): Item[] {
  const builtins = PROPERTY_TYPES.map((t) => ({
    label: t.name,
    text: t.name,
    kind: CompletionItemKind.TypeParameter,
    detail: 'property type',
    doc: propertyTypeMarkdown(t),
  }));
  const relations = resourceNames(env).map((r) => ({
    label: r,
    text: r,
    kind: CompletionItemKind.Class,
    detail: 'relation (IRI of the resource)',
    sort: '2',
  }));
  return [...builtins, ...relations];
}

function operationKindItems(): Item[] {
  return OPERATION_KINDS.flatMap((k) => {
    const doc = opKindMarkdown(k);
    return [
      { label: k, text: k, kind: CompletionItemKind.Method, detail: 'operation kind', doc, sort: '0' },
      {
        label: `${k} { … }`,
        text: `${k} {\n\t$0\n}`,
        kind: CompletionItemKind.Snippet,
        snippet: true,
        detail: 'operation with options',
        doc,
        sort: '1',
      },
    ];
  });
}

// ---- placing ---------------------------------------------------------------------------

/** The key and whether its colon is written, when the member under the cursor is `key:` or `key`. */
function keyOfMember(member: Tok[]): { key: Tok; colon: boolean } | undefined {
  const [key, second] = member;
  if (!key || (key.kind !== 'word' && key.kind !== 'string')) return undefined;
  if (member.length === 1) return { key, colon: false };
  if (member.length === 2 && second.text === ':') return { key, colon: true };
  return undefined;
}

function itemsAt(env: Env): { items: Item[]; colonAt?: number } {
  const { scope, member } = env.ctx;
  if (scope.kind === 'top') return member.length === 0 ? { items: topItems(env) } : topMemberItems(member, env);
  if (scope.kind === 'array') return member.length === 0 ? { items: arrayItems(scope, env) } : { items: [] };
  if (scope.kind === 'operations') return member.length === 0 ? { items: operationKindItems() } : { items: [] };
  if (member.length === 0) return { items: keyItems(scope, env) };
  const kv = keyOfMember(member);
  if (!kv) return { items: [] };
  const colonAt = kv.colon ? undefined : kv.key.end;
  if (scope.kind === 'properties') return { items: propertyTypeItems(env), colonAt };
  if (scope.kind === 'unknown') return { items: [] };
  return { items: valuesForKey(scope, kv.key.value, env), colonAt };
}

/**
 * The names the file declares, as complete as broken text allows: the analysis's model,
 * completed by the model of the declaration around the cursor (the whole file at the top
 * level) without the line being typed: a half-written line can make the parser skip what
 * follows it.
 */
function knownModel(
  text: string,
  offset: number,
  window: { start: number; end: number },
  primary: ApiModel | undefined,
): ApiModel {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const next = text.slice(offset).search(/[\r\n]/);
  const end = next < 0 ? text.length : offset + next;
  const blanked = text.slice(window.start, start) + text.slice(end, window.end);
  const other = buildModel(parse(blanked).document);
  if (!primary) return other;
  const resources = new Map(primary.resources);
  for (const [name, r] of other.resources) {
    const mine = resources.get(name);
    if (!mine || (mine.properties.size === 0 && r.properties.size > 0)) resources.set(name, r);
  }
  const filters = new Map(primary.filters);
  for (const [name, f] of other.filters) if (!filters.has(name)) filters.set(name, f);
  return { ...primary, resources, filters };
}

export function completions(doc: TextDocument, analysis: Analysis | undefined, position: Position): CompletionItem[] {
  const text = doc.getText();
  const offset = toOffset(doc, position);
  const ctx = completionContext(text, offset);
  if (!ctx) return [];
  const env: Env = {
    ctx,
    model: knownModel(
      text,
      offset,
      ctx.scope.kind === 'top' ? { start: 0, end: text.length } : ctx.window,
      analysis?.result.model,
    ),
    declared: declaredNames(text),
  };
  const inExpression = expressionCompletions(doc, ctx, offset, env.model);
  if (inExpression) return inExpression;
  const { items, colonAt } = itemsAt(env);
  const range = toRange(doc, ctx.replace);
  const inString = ctx.current?.kind === 'string';
  // A missing colon is inserted after the key by a separate edit, or with the value when the
  // value touches the key; `key:value` with no blank keeps one after the colon.
  const separate = colonAt !== undefined && colonAt < ctx.replace.start;
  let lead = ctx.charBefore === ':' ? ' ' : '';
  if (colonAt !== undefined && !separate) lead = ': ';
  const colonEdit: TextEdit[] = separate
    ? [{ range: toRange(doc, { start: colonAt, end: colonAt }), newText: ':' }]
    : [];
  const seen = new Set<string>();
  return items
    .filter((i) => !seen.has(i.label) && seen.add(i.label))
    .map((i) => {
      const newText = lead + i.text;
      const item: CompletionItem = {
        label: i.label,
        kind: i.kind,
        textEdit: { range, newText },
        insertTextFormat: i.snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
      };
      if (i.detail) item.detail = i.detail;
      if (i.doc) item.documentation = { kind: MarkupKind.Markdown, value: i.doc };
      item.sortText = `${i.sort ?? '1'}${i.label}`;
      if (inString || lead) item.filterText = inString ? i.text : i.label;
      if (colonEdit.length) item.additionalTextEdits = colonEdit;
      if (i.retrigger) item.command = TRIGGER_SUGGEST;
      return item;
    });
}
