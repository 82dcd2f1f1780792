/**
 * The API documentation routes: `GET /docs.json` (OpenAPI, 3.2 unless `?spec_version=3.1`),
 * `GET /docs` (by Accept: the HTML API reference for browsers, the OpenAPI document for
 * `application/vnd.openapi+json` or `application/json`, the Hydra documentation for
 * `application/ld+json`), and the HTML reference's static assets under `/docs/assets/`.
 *
 * The HTML reference is Swagger UI (swagger-ui-dist, which renders OpenAPI 3.2 QUERY
 * operations), vendored at build into dist/vendor/ (vendored-files.ts): the files are read once, and the page
 * loads nothing from any other host.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { ApiMetadata } from '../metadata/types.js';
import type { Principal } from '../security/access.js';
import { hasPropertySecurity, hiddenSchemaProperties } from '../security/visibility.js';
import { DEFAULT_SPEC_VERSION, isSpecVersion, openApiCache, type SpecVersion } from '../openapi/index.js';
import { badRequest, notFound } from '../protocol/errors.js';
import { negotiateOutput } from '../protocol/negotiation.js';
import { vendorFolder } from './vendored-files.js';

export const ASSETS_PATH = '/docs/assets';
export const OPENAPI_MEDIA_TYPE = 'application/vnd.openapi+json';

/** What `/docs` can answer, the first one for `*∕*` and no Accept. */
const DOCS_FORMATS: Record<string, string[]> = {
  html: ['text/html'],
  openapi: [OPENAPI_MEDIA_TYPE],
  jsonld: ['application/ld+json'],
  json: ['application/json'],
};

interface Asset {
  type: string;
  body: Buffer;
}

/** Files of swagger-ui-dist the page uses. */
const SWAGGER_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

/** Our own initializer: no inline script, no request to another host (validatorUrl off). */
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/docs.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    supportedSubmitMethods: ['get', 'put', 'post', 'delete', 'patch', 'query'],
  });
});
`;

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(api: ApiMetadata): string {
  const title = escapeHtml(`${api.title} — API reference`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
<link rel="alternate" type="${OPENAPI_MEDIA_TYPE}" href="/docs.json">
<link rel="alternate" type="application/ld+json" href="/docs.jsonld">
</head>
<body>
<noscript>This API reference needs JavaScript. The OpenAPI document is at <a href="/docs.json">/docs.json</a>, the Hydra documentation at <a href="/docs.jsonld">/docs.jsonld</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${ASSETS_PATH}/init.js"></script>
</body>
</html>
`;
}

let swaggerAssets: Map<string, Asset> | undefined;

/** The renderer's files, read from dist/vendor/swagger-ui/ (vendored-files.ts) once per process. */
function loadAssets(): Map<string, Asset> {
  if (swaggerAssets) return swaggerAssets;
  const dir = vendorFolder('swagger-ui');
  const assets = new Map<string, Asset>();
  for (const [file, type] of Object.entries(SWAGGER_FILES))
    assets.set(file, { type, body: readFileSync(join(dir, file)) });
  assets.set('init.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT_JS, 'utf8') });
  swaggerAssets = assets;
  return assets;
}

/** `?spec_version=3.1` (or `3.1.x`); 3.2 when absent. */
function specVersionOf(ctx: Context): SpecVersion {
  const raw = ctx.query.spec_version;
  if (raw === undefined) return DEFAULT_SPEC_VERSION;
  const value = (Array.isArray(raw) ? raw[0] : raw).trim();
  const short = /^3\.[12](\.\d+)?$/.test(value) ? value.slice(0, 3) : value;
  if (!isSpecVersion(short)) throw badRequest(`Unsupported OpenAPI version "${value}": use 3.1 or 3.2.`);
  return short;
}

/**
 * Registers `/docs.json`, `/docs` and `/docs/assets/:file`. `hydra` builds the Hydra API
 * documentation of a request (the one `/docs.jsonld` serves).
 */
export function registerDocumentation(
  router: Router,
  api: ApiMetadata,
  hydra: (ctx: Context) => unknown,
  logger: Logger,
): void {
  const cache = openApiCache(api);
  const perUser = hasPropertySecurity(api);
  // The schemas leave out what this reader may not see (property `security`).
  const openapi = async (ctx: Context, version: SpecVersion): Promise<string> => {
    if (!perUser) return cache(version);
    const facts = {
      security: api.security,
      principal: ctx.state.principal as Principal,
      logger,
      uriVariables: {},
      request: {
        method: ctx.method,
        path: ctx.path,
        query: { ...ctx.query },
        headers: ctx.headers as Record<string, string>,
      },
    };
    return cache(version, await hiddenSchemaProperties(api, facts));
  };
  const assets = loadAssets();
  const html = page(api);

  router.get('/docs.json', async (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = await openapi(ctx, specVersionOf(ctx));
  });
  router.get('/docs', async (ctx) => {
    const format = negotiateOutput(DOCS_FORMATS, ctx.get('accept') || undefined, undefined);
    if (format.name === 'html') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html;
    } else if (format.name === 'jsonld') {
      // The document's relative IRIs (`#Book`) name /docs.jsonld#Book, as its @vocab does: served
      // from /docs, it says so with @base (and Content-Location), or they would resolve to /docs#Book.
      const doc = hydra(ctx) as Record<string, unknown>;
      const context = doc['@context'] === undefined ? [] : [doc['@context']].flat();
      ctx.type = 'application/ld+json; charset=utf-8';
      ctx.set('Content-Location', '/docs.jsonld');
      ctx.body = JSON.stringify({ ...doc, '@context': [...context, { '@base': '/docs.jsonld' }] });
    } else {
      ctx.type = `${format.mediaType}; charset=utf-8`;
      ctx.body = await openapi(ctx, specVersionOf(ctx));
    }
  });
  router.get(`${ASSETS_PATH}/:file`, (ctx) => {
    const asset = assets.get(ctx.params.file);
    if (!asset) throw notFound(`No documentation asset "${ctx.params.file}".`);
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
}
