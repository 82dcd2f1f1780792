/**
 * Cross-origin requests from browsers (`config { cors { … } }`, docs/behaviour.md "CORS"), on
 * @koa/cors. A preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
 * answered 204 here, whatever the path; other requests from an allowed origin get the CORS headers
 * before anything runs, so error documents carry them too. A request from any other origin gets no
 * CORS header at all, and the browser keeps the answer from the page.
 */
import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';
import type { CorsSettings } from '../metadata/types.js';

/** Every method a route may take; a preflight lists them all (the route itself still answers 405). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'OPTIONS'];

/**
 * Whether an `Origin` is allowed: an entry starting with `^` is a regular expression, `*` is any
 * origin, anything else an exact origin (scheme, host and port, compared case-insensitively).
 */
export function originMatcher(allowOrigin: readonly string[]): (origin: string) => boolean {
  const exact = new Set(allowOrigin.filter((o) => !o.startsWith('^')).map((o) => o.toLowerCase()));
  const patterns = allowOrigin.filter((o) => o.startsWith('^')).map((o) => new RegExp(o));
  return (origin) => exact.has('*') || exact.has(origin.toLowerCase()) || patterns.some((p) => p.test(origin));
}

/**
 * The CORS middleware of an API; undefined when `allow_origin` is empty (CORS off). `alsoExposed`: headers the
 * service sends that pages must be able to read besides `expose_headers` (the rate limits').
 */
export function corsMiddleware(settings: CorsSettings, alsoExposed: readonly string[] = []): Middleware | undefined {
  if (settings.allowOrigin.length === 0) return undefined;
  const allowed = originMatcher(settings.allowOrigin);
  const anyOrigin = settings.allowOrigin.includes('*') && !settings.credentials;
  return cors({
    // An empty answer leaves the request without CORS headers.
    origin: (ctx: Context) => {
      const origin = ctx.get('Origin');
      if (!origin || !allowed(origin)) return '';
      return anyOrigin ? '*' : origin;
    },
    allowMethods: METHODS,
    allowHeaders: settings.allowHeaders,
    exposeHeaders: [...new Set([...settings.exposeHeaders, ...alsoExposed])],
    maxAge: settings.maxAge,
    credentials: settings.credentials,
  });
}
