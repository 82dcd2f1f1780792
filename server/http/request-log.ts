/** One log line a request, and a request body nobody read drained or cut off (request-body.ts). */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { settleUnreadBody } from './request-body.js';

export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    // Checked first: the line's fields cost something to gather even when pino drops it.
    const logged = logger.isLevelEnabled('info');
    const started = logged ? performance.now() : 0;
    try {
      await next();
    } finally {
      settleUnreadBody(ctx);
      if (logged)
        logger.info(
          {
            method: ctx.method,
            url: ctx.url,
            status: ctx.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
          },
          'request',
        );
    }
  };
}
