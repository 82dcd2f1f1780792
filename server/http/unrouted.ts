/**
 * What no route took: 204 with `Allow` to a plain OPTIONS on a known path (a preflight from an allowed origin
 * never gets here), 405 with `Allow` to another method on it, 404 elsewhere.
 */
import type { Context } from 'koa';
import type { OperationMetadata } from '../metadata/types.js';
import { HttpError } from '../protocol/errors.js';
import { originOf } from './operation-route.js';
import { routerPath, type newRouter, type RouteMatcher } from './router.js';

export function unrouted(
  router: ReturnType<typeof newRouter>,
  operations: OperationMetadata[],
  matchers: Map<OperationMetadata, RouteMatcher>,
) {
  const operationPaths = new Set<string | RegExp>(operations.map((o) => routerPath(o.path)));
  return (ctx: Context): void => {
    let allowed = [
      ...new Set(operations.filter((o) => !o.hidden && matchers.get(o)!.matchesRequest(ctx)).map((o) => o.method)),
    ];
    // The other routes (entrypoint, /docs…, contexts: GET and HEAD; /graphql: GET and POST) say what they take.
    // (An operation's own route may match the path and still refuse it: its `requirements`, `host` or `schemes`;
    // that stays a 404.)
    if (allowed.length === 0) {
      const layers = router.match(ctx.path, ctx.method).path.filter((layer) => !operationPaths.has(layer.path));
      allowed = [...new Set(layers.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD')))];
    }
    const target = `${ctx.method} ${originOf(ctx)}${ctx.path}`;
    if (allowed.length === 0) throw new HttpError(404, `No route found for "${target}"`);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', ['OPTIONS', 'HEAD', ...allowed.filter((m) => m !== 'HEAD')].join(', '));
      ctx.status = 204;
      return;
    }
    throw new HttpError(405, `No route found for "${target}": Method Not Allowed (Allow: ${allowed.join(', ')})`, {
      headers: { Allow: allowed.join(', ') },
    });
  };
}
