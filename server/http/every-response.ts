/**
 * What every response gets, errors included (docs/behaviour.md, "Representations"): API Platform's common
 * headers, the Host check before anything uses the Host header, and any error thrown down the chain answered
 * with its error document (pipeline/error-response.ts; an operation's own errors come back in its result).
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { ApiMetadata } from '../metadata/types.js';
import { failureResponse } from '../pipeline/error-response.js';
import { checkHost, trustedHostPatterns } from '../protocol/host.js';
import { originOf } from './operation-route.js';
import { sendError } from './respond.js';

const DOCS_REL = 'http://www.w3.org/ns/hydra/core#apiDocumentation';

export function everyResponse(api: ApiMetadata, logger: Logger, debug: boolean) {
  const trustedHosts = trustedHostPatterns(api.settings.trustedHosts);
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.set('Vary', 'Accept');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'deny');
    try {
      // The Host header goes into Link, @vocab and the documentation: checked before anything uses it.
      checkHost(ctx.req.headers.host ?? '', trustedHosts);
      ctx.set('Link', `<${originOf(ctx)}/docs.jsonld>; rel="${DOCS_REL}"`);
      await next();
    } catch (e) {
      const failed = failureResponse(
        api,
        e,
        { method: ctx.method, url: ctx.url, accept: ctx.get('accept') || undefined },
        { debug, logger },
      );
      sendError(ctx, failed.status, { ...failed.headers, 'Content-Type': failed.contentType }, failed.document);
    }
  };
}
