/**
 * The admin (docs/admin.md): API Platform Admin over this API's Hydra documentation at `config admin.path`, from the
 * files `npm run build:admin` writes into `dist/admin/` (admin/build.mjs: a bundle and a stylesheet with a hash of
 * their content in their names, each beside its gzip and brotli variants, and manifest.json naming them). The page
 * is made here: the title, whether the API authenticates (then the admin asks for a bearer token first) and each
 * collection's page size go into it as data, so it carries no script of its own. A copy of apidsl whose admin is
 * not built (a clone before `npm run build:admin`) answers a page saying how to build it; nothing is downloaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { ApiMetadata } from '../metadata/types.js';
import { defaultPageSize } from '../pipeline/pages/pagination.js';
import { packageFile } from '../package-folder.js';
import { notFound } from '../protocol/errors.js';
import { authenticates } from '../security/authenticate.js';
import { entrypointCollection } from './documents.js';
import type { newRouter } from './router.js';

/** What `npm run build:admin` downloads into admin/node_modules (measured with `du -sh admin/node_modules`). */
export const ADMIN_INSTALL_SIZE = 'about 350 MB';

/** The built admin's folder: APIDSL_ADMIN_DIR, else `dist/admin/` of this package. */
export const adminFolder = (env: NodeJS.ProcessEnv = process.env): string =>
  env.APIDSL_ADMIN_DIR || packageFile('dist', 'admin');

interface Manifest {
  script: string;
  styles: string[];
  files: string[];
}

/** The build's manifest, or undefined when the admin is not built. */
export function builtAdmin(folder = adminFolder()): Manifest | undefined {
  const path = join(folder, 'manifest.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Manifest) : undefined;
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};
/** Each encoding the build wrote a variant in, smallest first, with the extension of its file. */
const ENCODINGS: [encoding: string, extension: string][] = [
  ['br', '.br'],
  ['gzip', '.gz'],
];

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the admin is told about the API: its title, whether to sign in, each collection's page size by path. */
function adminConfig(api: ApiMetadata): Record<string, unknown> {
  const paging: Record<string, ReturnType<typeof defaultPageSize>> = {};
  for (const resource of api.resources) {
    const op = entrypointCollection(resource);
    if (op) paging[op.path] = defaultPageSize(op, api.settings);
  }
  return { title: api.settings.admin.title ?? api.title, signIn: authenticates(api.security), paging };
}

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
${head}</head>
<body>
${body}
</body>
</html>
`;
}

function adminPage(api: ApiMetadata, manifest: Manifest): string {
  const base = api.settings.admin.path;
  const config = adminConfig(api);
  const head = [
    ...manifest.styles.map((name) => `<link rel="stylesheet" href="${base}/${name}">`),
    `<script type="module" src="${base}/${manifest.script}"></script>`,
  ];
  return page(
    String(config.title),
    `${head.join('\n')}\n<style>body { margin: 0; }</style>\n`,
    `<noscript>The admin needs JavaScript. The API itself is at <a href="/">/</a>.</noscript>
<div id="admin" data-config="${escapeHtml(JSON.stringify(config))}"></div>`,
  );
}

/** The page of a copy whose admin is not built. */
export function notBuiltPage(api: ApiMetadata): string {
  return page(
    `${api.settings.admin.title ?? api.title} — admin not built`,
    '<style>body { font-family: sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5; }</style>\n',
    `<h1>The admin is not built</h1>
<p>This copy of apidsl has no admin yet. In the apidsl folder, run</p>
<pre><code>npm run build:admin</code></pre>
<p>It installs the admin's build tools into <code>admin/node_modules</code> (${ADMIN_INSTALL_SIZE}) and builds
the admin into <code>dist/admin/</code>; then restart <code>apidsl serve</code>. The npm package of apidsl comes with
the admin built.</p>
<p>The API itself is at <a href="/">/</a>, its reference at <a href="/docs">/docs</a>.</p>`,
  );
}

/** Registers `config admin.path` (and its files) when `admin.enabled`; otherwise the path stays unrouted (404). */
export function mountAdmin(router: ReturnType<typeof newRouter>, api: ApiMetadata): void {
  const { enabled, path } = api.settings.admin;
  if (!enabled) return;
  const folder = adminFolder();
  const manifest = builtAdmin(folder);
  const html = manifest ? adminPage(api, manifest) : notBuiltPage(api);
  const sendPage = (ctx: Context): void => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = html;
  };
  router.get(path, sendPage);
  router.get(`${path}/`, sendPage);
  if (!manifest) return;
  const files = new Set(manifest.files);
  const read = new Map<string, Buffer>();
  const load = (name: string): Buffer => {
    let body = read.get(name);
    if (!body) read.set(name, (body = readFileSync(join(folder, name))));
    return body;
  };
  router.get(`${path}/:file`, (ctx) => {
    const name = ctx.params.file!;
    if (!files.has(name)) throw notFound(`No admin file "${name}".`);
    // The name changes with the content: a browser may keep the file for a year.
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.vary('Accept-Encoding');
    // Our preference, not the client's order (browsers list gzip first): the smallest variant it accepts.
    const variant = ENCODINGS.find(([encoding]) => ctx.acceptsEncodings(encoding) === encoding);
    if (variant) ctx.set('Content-Encoding', variant[0]);
    ctx.body = load(variant ? name + variant[1] : name);
    ctx.type = TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
  });
}
