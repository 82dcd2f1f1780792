/**
 * Who sent the request, decided before routing so that invalid credentials answer 401 on every route
 * (docs/behaviour.md, "Security"); the principal is then in `ctx.state.principal`.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { ApiMetadata } from '../metadata/types.js';
import { parseQuery } from '../protocol/query.js';
import { HUB_PATH } from '../realtime/index.js';
import { ANONYMOUS, principalOf } from '../security/access.js';
import { authenticate, authenticates } from '../security/authenticate.js';

export function authentication(api: ApiMetadata, logger: Logger) {
  const security = api.security;
  if (!authenticates(security)) {
    return (ctx: Context, next: Next): Promise<void> => {
      ctx.state.principal = ANONYMOUS;
      return next();
    };
  }
  return async (ctx: Context, next: Next): Promise<void> => {
    // The Mercure hub authorizes its subscribers and publishers with its own JWTs (another key).
    if (ctx.path === HUB_PATH) {
      ctx.state.principal = ANONYMOUS;
      return next();
    }
    const request = () => ({
      method: ctx.method,
      url: ctx.url,
      path: ctx.path,
      headers: ctx.headers,
      query: parseQuery(ctx.querystring),
    });
    ctx.state.principal = principalOf(security, await authenticate(security, ctx.headers, request, logger));
    return next();
  };
}
