/**
 * GraphiQL (docs/graphql.md, "Transport and limits"): the page at `/graphql/graphiql` and its files under
 * `/graphql/graphiql/`, React's and GraphiQL's as the package ships them (vendored-files.ts), so the page loads
 * nothing from another host. File names carry a hash of their content: a browser keeps them for a year and a new
 * version of a file is a new name. Each file is gzipped once, on its first request that accepts gzip.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../protocol/errors.js';
import { VENDORED_FILES, vendorFolder } from './vendored-files.js';

export const GRAPHIQL_PATH = '/graphql/graphiql';

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** Our own start script (no inline script): GraphiQL over `/graphql` of this origin. */
const INIT_JS = `ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher: GraphiQL.createFetcher({ url: new URL('/graphql', location.href).href }),
    defaultEditorToolsVisibility: true,
  }),
);
`;

interface Asset {
  /** `graphiql.min.<hash>.js`. */
  name: string;
  type: string;
  body: Buffer;
  gzipped?: Promise<Buffer>;
}

function asset(name: string, body: Buffer): Asset {
  const dot = name.lastIndexOf('.');
  const extension = name.slice(dot + 1);
  const fingerprint = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${name.slice(0, dot)}.${fingerprint}.${extension}`, type: TYPES[extension]!, body };
}

let loaded: Asset[] | undefined;

/** The files, in the order the page loads them (React, React DOM, GraphiQL, its CSS, our start script). */
function loadAssets(): Asset[] {
  if (loaded) return loaded;
  const folder = vendorFolder('graphiql');
  const files = VENDORED_FILES.graphiql!.map(({ name }) => {
    try {
      return asset(name, readFileSync(join(folder, name)));
    } catch (e) {
      throw new Error(`GraphiQL's files are missing from ${folder} (npm run build copies them): ${String(e)}`);
    }
  });
  loaded = [...files, asset('init.js', Buffer.from(INIT_JS, 'utf8'))];
  return loaded;
}

function page(title: string, assets: Asset[]): string {
  const escaped = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const url = (a: Asset): string => `${GRAPHIQL_PATH}/${a.name}`;
  const styles = assets.filter((a) => a.name.endsWith('.css')).map((a) => `<link rel="stylesheet" href="${url(a)}">`);
  const scripts = assets.filter((a) => a.name.endsWith('.js')).map((a) => `<script src="${url(a)}"></script>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped} — GraphiQL</title>
${styles.join('\n')}
<style>body { margin: 0; } #graphiql { height: 100vh; }</style>
</head>
<body>
<noscript>GraphiQL needs JavaScript. The GraphQL endpoint is <code>/graphql</code>.</noscript>
<div id="graphiql"></div>
${scripts.join('\n')}
</body>
</html>
`;
}

/** Whether a request to `/graphql` asks for a page rather than a GraphQL result: HTML first, no query. */
export const wantsGraphiql = (ctx: Context): boolean =>
  ctx.method === 'GET' &&
  ctx.query.query === undefined &&
  ctx.accepts('application/graphql-response+json', 'application/json', 'text/html') === 'text/html';

/** Registers the page and its files; returns the page's handler, which `GET /graphql` also uses. */
export function registerGraphiql(router: Router, title: string): (ctx: Context) => void {
  const assets = loadAssets();
  const byName = new Map(assets.map((a) => [a.name, a]));
  const html = page(title, assets);
  const sendPage = (ctx: Context): void => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  };
  router.get(GRAPHIQL_PATH, sendPage);
  router.get(`${GRAPHIQL_PATH}/:file`, async (ctx) => {
    const file = byName.get(ctx.params.file!);
    if (!file) throw notFound(`No GraphiQL file "${ctx.params.file}".`);
    ctx.type = file.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = await (file.gzipped ??= promisify(gzip)(file.body));
    } else ctx.body = file.body;
  });
  return sendPage;
}
