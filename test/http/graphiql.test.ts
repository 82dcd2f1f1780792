/**
 * GraphiQL at /graphql/graphiql (docs/graphql.md, "Transport and limits"), opened in headless Chromium (Debian's
 * `chromium`, driven by playwright-core) with no network but the server: every other host is blocked and none may
 * be asked. A query typed into the editor runs against /graphql and its result shows in the response pane.
 * The page's files are served fingerprinted, cached for a year, gzipped for a client that takes gzip. A page of
 * another origin (the default CORS settings allow 127.0.0.1 on any port) posts a query through the preflight.
 * Under CI=true a missing Chromium fails the suite; elsewhere it is skipped with one loud line.
 */
import { existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, requireOrSkip } from '../support/chromium.js';
import { fixture, get, useServer } from './harness.js';

/** The files the page loads, from its HTML. */
const assetPaths = (html: string): string[] =>
  [...html.matchAll(/(?:src|href)="(\/graphql\/graphiql\/[^"]+)"/g)].map((m) => m[1]!);

/** GET with `Accept-Encoding: gzip` (fetch would decode it): status, headers and the raw bytes. */
function rawGet(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('GraphiQL', function () {
  this.timeout(120_000);
  const server = useServer(fixture('graphiql.api'));

  it('serves the page at /graphql/graphiql and for GET /graphql asked for HTML, its files fingerprinted', async () => {
    const page = await get(server.url, '/graphql/graphiql');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const fromEndpoint = await get(server.url, '/graphql', { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(fromEndpoint.text).to.equal(page.text);

    const assets = assetPaths(page.text);
    expect(assets.map((a) => a.replace(/\.[0-9a-f]{12}\./, '.*.'))).to.deep.equal([
      '/graphql/graphiql/graphiql.min.*.css',
      '/graphql/graphiql/react.production.min.*.js',
      '/graphql/graphiql/react-dom.production.min.*.js',
      '/graphql/graphiql/graphiql.min.*.js',
      '/graphql/graphiql/init.*.js',
    ]);
    for (const path of assets) {
      const plain = await get(server.url, path, { 'Accept-Encoding': 'identity' });
      expect(plain.status, path).to.equal(200);
      expect(plain.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      const zipped = await rawGet(server.url + path);
      expect(zipped.headers['content-encoding'], path).to.equal('gzip');
      expect(gunzipSync(zipped.body).toString('utf8')).to.equal(plain.text);
    }
    expect((await get(server.url, '/graphql/graphiql/graphiql.min.js')).status).to.equal(404);
  });

  describe('in a browser', () => {
    let browser: Browser | undefined;
    before(async function () {
      requireOrSkip(this, existsSync(CHROMIUM), CHROMIUM, 'apt-get install -y chromium');
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    });
    after(async () => {
      await browser?.close();
    });

    it('runs a query typed into the editor, loading nothing from any other host', async () => {
      const base = server.url;
      const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
      const foreign: string[] = [];
      const errors: string[] = [];
      const queries: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${base}/`) || url.startsWith('data:')) return route.continue();
        foreign.push(url);
        return route.abort();
      });
      const answers: Promise<string>[] = [];
      page.on('request', (r) => {
        if (r.url() === `${base}/graphql` && r.method() === 'POST') queries.push(r.postData() ?? '');
      });
      page.on('response', (r) => {
        if (r.url() === `${base}/graphql`) answers.push(r.text());
      });
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));

      await page.goto(`${base}/graphql/graphiql`);
      const editor = page.locator('.graphiql-query-editor .CodeMirror').first();
      await editor.waitFor({ timeout: 60_000 });
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      // The editor closes brackets and quotes as they are typed: the cursor steps over `")` it added.
      await page.keyboard.type('{ node(id: "/notes/1');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.type(' { id } __typename');
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response .CodeMirror');
      await expect_eventually(async () => (await response.textContent()) ?? '', /"__typename": "Query"/);
      const text = (await response.textContent()) ?? '';
      expect(text).to.match(/"node": null/);
      expect(queries.map((q) => (JSON.parse(q) as { query: string }).query)).to.include(
        '{ node(id: "/notes/1") { id } __typename}',
      );
      // GraphiQL's own introspection query (the schema it completes from) passed the default limits.
      const introspected = (await Promise.all(answers)).map((a) => JSON.parse(a) as { errors?: unknown });
      expect(introspected.filter((a) => a.errors !== undefined)).to.deep.equal([]);

      expect(foreign, 'requests to other hosts').to.deep.equal([]);
      expect(errors, 'console errors').to.deep.equal([]);
      await page.close();
    });

    it('answers a page of another origin (127.0.0.1, another port) through the browser’s CORS preflight', async () => {
      const front = createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>front end</title>');
      });
      await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
      const page = await browser!.newPage();
      try {
        await page.goto(`http://127.0.0.1:${(front.address() as AddressInfo).port}/`);
        // A JSON POST is not a simple request: the browser sends it only once the preflight allowed it.
        const seen = await page.evaluate(async (url) => {
          try {
            const r = await fetch(url, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ query: '{ __typename }' }),
            });
            return { status: r.status, body: await r.text() };
          } catch (e) {
            return { error: String(e) };
          }
        }, `${server.url}/graphql`);
        expect(seen).to.deep.equal({ status: 200, body: '{"data":{"__typename":"Query"}}' });
      } finally {
        await page.close();
        await new Promise((resolve) => front.close(resolve));
      }
    });
  });
});

/** Polls `read` until its value matches `pattern` (30 s). */
async function expect_eventually(read: () => Promise<string>, pattern: RegExp): Promise<void> {
  const until = Date.now() + 30_000;
  let last = '';
  while (Date.now() < until) {
    last = await read();
    if (pattern.test(last)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(last).to.match(pattern);
}
