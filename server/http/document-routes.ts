/**
 * The routes that serve documents about the API rather than its resources: the entrypoint, the Hydra API
 * documentation, OpenAPI and the HTML reference (docs-html.ts), the JSON-LD contexts, and the error resource
 * every error document's `type` names.
 */
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { ApiMetadata } from '../metadata/types.js';
import { notFound } from '../protocol/errors.js';
import { errorFlavour, negotiateOutput } from '../protocol/negotiation.js';
import { errorResource, errorResourcePage } from '../protocol/problem.js';
import { registerDocumentation } from './docs-html.js';
import { contextDocument, entrypoint } from './documents.js';
import { hydraDocumentation } from './hydra-docs.js';
import { originOf } from './operation-route.js';
import type { newRouter } from './router.js';

export function registerDocumentRoutes(router: ReturnType<typeof newRouter>, api: ApiMetadata, logger: Logger): void {
  router.get('/', (ctx) => sendDocument(ctx, entrypoint(api)));
  router.get('/index.:format', (ctx) => sendDocument(ctx, entrypoint(api), ctx.params.format));
  router.get('/docs.jsonld', (ctx) => sendDocument(ctx, hydraDocumentation(api, originOf(ctx)), 'jsonld'));
  // `/docs.json` (OpenAPI), `/docs` (HTML, OpenAPI or Hydra by Accept) and the HTML reference's assets.
  registerDocumentation(router, api, (ctx) => hydraDocumentation(api, originOf(ctx)), logger);
  router.get('/contexts/:name{.:format}', (ctx) => {
    const doc = contextDocument(api, ctx.params.name, originOf(ctx));
    if (!doc) throw notFound();
    sendDocument(ctx, doc, ctx.params.format);
  });
  router.get('/errors/:status{.:format}', (ctx) => sendErrorResource(ctx, api));
}

function sendDocument(ctx: Context, doc: unknown, extension?: string): void {
  const format = negotiateOutput(
    { jsonld: ['application/ld+json'], json: ['application/json'] },
    ctx.get('accept') || undefined,
    extension,
  );
  ctx.type = `${format.mediaType}; charset=utf-8`;
  ctx.body = JSON.stringify(doc);
}

const ERROR_EXTENSIONS = new Set(['jsonld', 'json', 'html']);

/** `GET /errors/{status}`: the error resource every error document's `type` names, served with its own status. */
function sendErrorResource(ctx: Context, api: ApiMetadata): void {
  const status = Number(ctx.params.status);
  if (!/^[45]\d\d$/.test(ctx.params.status)) throw notFound();
  const extension = ctx.params.format as string | undefined;
  if (extension !== undefined && !ERROR_EXTENSIONS.has(extension))
    throw notFound(`Format "${extension}" is not supported`);
  const accept = ctx.get('accept') || undefined;
  ctx.status = status;
  const browser =
    extension === undefined &&
    ctx.accepts('application/ld+json', 'application/problem+json', 'application/json', 'text/html') === 'text/html';
  if (extension === 'html' || browser) {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = errorResourcePage(status);
    return;
  }
  let flavour = errorFlavour(accept);
  if (extension === 'json') flavour = 'problem';
  else if (extension === 'jsonld') flavour = 'hydra';
  ctx.type = 'application/problem+json; charset=utf-8';
  ctx.body = JSON.stringify(errorResource(status, flavour, api.settings.hydraPrefix));
}
