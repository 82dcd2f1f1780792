/**
 * `GET /sdk.tgz` with `config { client { serve: true } }`: the typed client package of the served file
 * (server/client/, docs/client.md), built once per loaded file, so a reload of a changed file serves the new one.
 * Its ETag answers a matching `If-None-Match` with 304.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { clientPackage } from '../client/package.js';
import { tarball } from '../client/tarball.js';
import type { ApiMetadata } from '../metadata/types.js';
import type { newRouter } from './router.js';

export const SDK_PATH = '/sdk.tgz';

export function mountSdk(router: ReturnType<typeof newRouter>, api: ApiMetadata): void {
  let built: { body: Buffer; etag: string } | undefined;
  router.get(SDK_PATH, (ctx: Context) => {
    if (!built) {
      const body = tarball(clientPackage(api));
      built = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }
    ctx.set('ETag', built.etag);
    ctx.set('Cache-Control', 'no-cache');
    if (ctx.get('if-none-match') === built.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/gzip';
    ctx.body = built.body;
  });
}
