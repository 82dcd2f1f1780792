/**
 * What completion knows about the file around the cursor: the scope (cursor-context.ts), the model of
 * the declarations, and the resource and filter names written in the text even where the parser
 * gave up.
 */
import { parse } from '../../grammar/parse.js';
import { buildModel, type ApiModel } from '../../grammar/model.js';
import { operationsUsingFilter } from '../docs.js';
import type { CompletionContext, Scope } from './cursor-context.js';

export interface Env {
  ctx: CompletionContext;
  model: ApiModel | undefined;
  /** Resource and filter names declared in the text, found by their tokens (for text the parser gave up on). */
  declared: { resources: string[]; filters: string[] };
}

/** `resource Name {` and `filter name:` at the start of a line, wherever they stand. */
export function declaredNames(text: string): Env['declared'] {
  return {
    resources: [...text.matchAll(/^[ \t]*resource[ \t]+([A-Za-z_][A-Za-z0-9_]*)\s*\{/gm)].map((m) => m[1]),
    filters: [...text.matchAll(/^[ \t]*filter[ \t]+([A-Za-z_][A-Za-z0-9_]*)\s*:/gm)].map((m) => m[1]),
  };
}

/**
 * The names the file declares, as complete as broken text allows: the analysis's model,
 * completed by the model of the declaration around the cursor (the whole file at the top
 * level) without the line being typed: a half-written line can make the parser skip what
 * follows it.
 */
export function knownModel(
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

export function resourceNames(env: Env): string[] {
  return [...new Set([...(env.model?.resources.keys() ?? []), ...env.declared.resources])];
}

/** The properties a scope can name: its resource's, or in a filter those of the resources using it (else all). */
export function propertyNames(env: Env, scope: Scope): string[] {
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

/**
 * In a filter's `properties` list: the properties in scope, then the paths through to-one relations the filter may
 * name (`author.name`, `author.country.code`: two relations at most, as the checker accepts), after them.
 */
export function filterPropertyNames(env: Env, scope: Scope): { name: string; path: boolean }[] {
  const own = propertyNames(env, scope).map((name) => ({ name, path: false }));
  const model = env.model;
  if (!model || scope.resource || !scope.filterName) return own;
  const users = operationsUsingFilter(model, scope.filterName).map((o) => o.resource);
  const paths = new Set<string>();
  const follow = (resource: (typeof users)[number], prefix: string, depth: number): void => {
    for (const p of resource.properties.values()) {
      const target = p.type === undefined || p.array ? undefined : model.resources.get(p.type);
      if (!target) continue;
      for (const name of target.properties.keys()) paths.add(`${prefix}${p.name}.${name}`);
      if (depth < 2) follow(target, `${prefix}${p.name}.`, depth + 1);
    }
  };
  for (const r of users) follow(r, '', 1);
  return [...own, ...[...paths].map((name) => ({ name, path: true }))];
}
