/**
 * Routes: every operation on @koa/router, with an optional format extension
 * (`/books/1.jsonld`). What the router cannot express is checked here, and a request that
 * fails it goes on to the next route, as if this one did not match: `requirements` on path
 * variables, `host` (placeholders allowed) and `schemes`.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { OperationMetadata } from '../metadata/types.js';
import { optionValue } from '../metadata/options.js';

const ROUTER_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'OPTIONS'];

/** `/books/{id}` → `/books/:id{.:_format}` (path-to-regexp syntax). */
export function routerPath(template: string): string {
  return `${template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1')}{.:_format}`;
}

export interface RouteMatcher {
  /** Whether the request satisfies the operation's requirements, host and schemes. */
  accepts(ctx: Context, params: Record<string, string>): boolean;
  /** Whether the request, whatever its method, is for this operation: its path, host and scheme. */
  matchesRequest(ctx: Context): boolean;
}

function hostPattern(host: string): RegExp {
  const escaped = host.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^{}]+\}/g, '[^.]+');
  return new RegExp(`^${escaped}$`, 'i');
}

export function routeMatcher(op: OperationMetadata): RouteMatcher {
  const requirements = Object.entries(optionValue(op, 'requirements') ?? {}).map(
    ([name, pattern]) => [name, new RegExp(`^(?:${String(pattern)})$`, 'u')] as const,
  );
  const hostOption = optionValue(op, 'host');
  const host = typeof hostOption === 'string' ? hostPattern(hostOption) : undefined;
  const schemesOption = optionValue(op, 'schemes');
  const schemes = Array.isArray(schemesOption) ? schemesOption.map((s) => String(s).toLowerCase()) : undefined;
  const pathRegex = new RegExp(
    `^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^{}]+)\}/g, '(?<$1>[^/]+?)')}(?:\\.[^/.]+)?$`,
  );
  const satisfies = (params: Record<string, string>): boolean =>
    requirements.every(([name, re]) => params[name] === undefined || re.test(params[name]));
  const hostAndScheme = (ctx: Context): boolean =>
    (!host || host.test(ctx.hostname)) && (!schemes || schemes.includes(ctx.protocol));
  return {
    accepts: (ctx, params) => satisfies(params) && hostAndScheme(ctx),
    matchesRequest: (ctx) => {
      const m = pathRegex.exec(ctx.path);
      if (!m) return false;
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = safeDecode(v);
      return satisfies(params) && hostAndScheme(ctx);
    },
  };
}

const safeDecode = (v: string): string => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
};

/**
 * Registration order: a higher `priority` first (Symfony routing), then fewer placeholders, so that
 * `/books/by-cursor` wins over `/books/{id}`; hidden routes last.
 */
export function routeOrder(ops: OperationMetadata[]): OperationMetadata[] {
  const rank = (o: OperationMetadata): number => (o.hidden ? 1000 : 0) + o.uriVariables.length;
  const priority = (o: OperationMetadata): number => {
    const written = optionValue(o, 'priority');
    return o.hidden || typeof written !== 'number' ? 0 : written;
  };
  return ops
    .map((o, i) => [o, i] as const)
    .sort(([a, i], [b, j]) => priority(b) - priority(a) || rank(a) - rank(b) || i - j)
    .map(([o]) => o);
}

/**
 * The route templates an operation answers on: its path, and without its trailing placeholders
 * while route `defaults` give them values (`/books/{page}` with `defaults: { page: 1 }` also answers `/books`).
 */
export function routeTemplates(op: OperationMetadata): string[] {
  const defaults = optionValue(op, 'defaults') ?? {};
  const out = [op.path];
  let path = op.path;
  for (let m = /\/\{([^{}]+)\}$/.exec(path); m && Object.hasOwn(defaults, m[1]); m = /\/\{([^{}]+)\}$/.exec(path)) {
    path = path.slice(0, m.index);
    out.push(path === '' ? '/' : path);
  }
  return out;
}

export function newRouter(): Router {
  return new Router({ methods: ROUTER_METHODS });
}

/**
 * The table of app.ts's direct routes: each route template without placeholders that a GET operation answers
 * on, with that operation's handler, where the router would run that handler first for the path. A path whose
 * first route is another's (one with placeholders and a higher `priority`, a documentation route) is left out.
 */
function staticGetRoutes(router: Router, handlers: Map<Middleware, OperationMetadata>): Map<string, Middleware> {
  const table = new Map<string, Middleware>();
  for (const [handler, op] of handlers) {
    if (op.method !== 'GET') continue;
    for (const template of routeTemplates(op)) {
      if (template.includes('{') || table.has(template)) continue;
      if (routedFirst(router, template, 'GET', handler)) table.set(template, handler);
    }
  }
  return table;
}

/** A route that is no operation's and may be answered directly (the GraphQL endpoint). */
export interface Endpoint {
  path: string;
  methods: readonly string[];
  handler: Middleware;
}

/**
 * The routes the direct-route shortcut (get-shortcuts.ts) hands requests to, by method and path: the operations'
 * static GET routes, and `endpoints` for the methods where the router would run them first.
 */
export function directTable(
  router: Router,
  handlers: Map<Middleware, OperationMetadata>,
  endpoints: readonly Endpoint[],
): Map<string, Map<string, Middleware>> {
  const table = new Map([['GET', staticGetRoutes(router, handlers)]]);
  for (const { path, methods, handler } of endpoints)
    for (const method of methods) {
      if (!routedFirst(router, path, method, handler)) continue;
      if (!table.has(method)) table.set(method, new Map());
      const routes = table.get(method)!;
      if (!routes.has(path)) routes.set(path, handler);
    }
  return table;
}

/** Whether the router runs `handler` first for a request of `method` to `path`. */
export const routedFirst = (router: Router, path: string, method: string, handler: Middleware): boolean =>
  router.match(path, method).pathAndMethod[0]?.stack.includes(handler) ?? false;
