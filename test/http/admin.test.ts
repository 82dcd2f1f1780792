/**
 * The admin over HTTP (docs/admin.md): the page at `config admin.path` (what it tells the admin, the built files it
 * loads), each built file in the encoding the client accepts with immutable caching, the switches (`enabled`,
 * `path`, `title`), the banner; and a copy whose admin is not built (`APIDSL_ADMIN_DIR` naming an empty folder),
 * which answers a page saying how to build it. The suites that need the build fail under CI=true without it, and
 * are skipped elsewhere (`npm run build:admin` builds it).
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { adminFolder, builtAdmin } from '../../server/http/admin-page.js';
import { fromRoot } from '../support/paths.js';
import { requireAdminBuild, SHOP } from './admin-helpers.js';
import { get, startServer, tempDir, useServer } from './harness.js';

/** A GET whose body is read as the bytes sent (fetch would decode them). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

/** The data the page hands the admin. */
const configOf = (html: string): Record<string, unknown> => {
  const attribute = /<div id="admin" data-config="([^"]*)"/.exec(html)?.[1];
  expect(attribute, html).to.be.a('string');
  return JSON.parse(attribute!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))) as Record<
    string,
    unknown
  >;
};

/** A copy of the shop with `admin { … }` in its config. */
function shopWith(admin: string): string {
  const file = join(tempDir('apidsl-admin-'), 'shop.api');
  writeFileSync(file, readFileSync(SHOP, 'utf8').replace('config {', `config {\n  admin { ${admin} }`));
  return file;
}

describe('the admin over HTTP', function () {
  before(function () {
    requireAdminBuild(this);
  });
  const server = useServer(SHOP);

  it('GET /admin is the page: the title, the built script, and what the admin is told (no sign-in, each page size)', async () => {
    const manifest = builtAdmin()!;
    const r = await get(server.url, '/admin', { Accept: 'text/html' });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(r.text).to.contain('<title>Admin shop</title>');
    expect(r.text).to.contain(`<script type="module" src="/admin/${manifest.script}"></script>`);
    expect(r.text, 'no inline script').to.not.match(/<script>/);
    expect(configOf(r.text)).to.deep.equal({
      title: 'Admin shop',
      signIn: false,
      paging: {
        '/categories': { itemsPerPage: 5, clientItemsPerPage: false },
        '/products': { itemsPerPage: 5, clientItemsPerPage: false },
      },
    });
    expect((await get(server.url, '/admin/')).text).to.equal(r.text);
    expect(server.output()).to.contain(`  Admin: ${server.url}/admin\n`);
  });

  it('serves each built file as brotli, gzip or as it is, as the client accepts, cached for a year as immutable', async () => {
    const manifest = builtAdmin()!;
    expect(manifest.script).to.match(/^main\.[A-Z0-9]{8}\.js$/);
    const original = readFileSync(join(adminFolder(), manifest.script));
    const url = `${server.url}/admin/${manifest.script}`;
    const cases: [accept: string, encoding: string | undefined, decode: (b: Buffer) => Buffer][] = [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['identity', undefined, (b) => b],
    ];
    for (const [accept, encoding, decode] of cases) {
      const r = await rawGet(url, { 'Accept-Encoding': accept });
      expect(r.status, accept).to.equal(200);
      expect(r.headers['content-encoding'], accept).to.equal(encoding);
      expect(r.headers['content-type']).to.equal('text/javascript; charset=utf-8');
      expect(r.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(r.headers.vary).to.contain('Accept-Encoding');
      expect(decode(r.body).equals(original), accept).to.equal(true);
    }
    expect((await get(server.url, '/admin/main.00000000.js')).status).to.equal(404);
    expect((await get(server.url, '/admin/manifest.json')).status).to.equal(404);
  });
});

describe('the admin switches', function () {
  this.timeout(120_000);
  before(function () {
    requireAdminBuild(this);
  });

  it('admin { enabled: false }: /admin answers 404 and the banner does not name it', async () => {
    const s = await startServer(shopWith('enabled: false'));
    try {
      expect((await get(s.url, '/admin')).status).to.equal(404);
      expect(s.output()).to.not.contain('Admin:');
    } finally {
      await s.stop();
    }
  });

  it('admin { path, title }: the admin answers at the path, under the title, and /admin is no route', async () => {
    const s = await startServer(shopWith('path: "/back-office", title: "Back office"'));
    try {
      const r = await get(s.url, '/back-office');
      expect(r.status).to.equal(200);
      expect(r.text).to.contain('<title>Back office</title>');
      expect(r.text).to.contain(`src="/back-office/${builtAdmin()!.script}"`);
      expect(configOf(r.text).title).to.equal('Back office');
      expect((await get(s.url, `/back-office/${builtAdmin()!.script}`)).status).to.equal(200);
      expect((await get(s.url, '/admin')).status).to.equal(404);
      expect(s.output()).to.contain(`  Admin: ${s.url}/back-office\n`);
    } finally {
      await s.stop();
    }
  });

  it('a secured API: the page tells the admin to ask for a bearer token first', async () => {
    const s = await startServer(fromRoot('test/fixtures/admin/secured.api'));
    try {
      expect(configOf((await get(s.url, '/admin')).text)).to.include({ title: 'Secured shop', signIn: true });
    } finally {
      await s.stop();
    }
  });
});

describe('a copy whose admin is not built', function () {
  this.timeout(120_000);
  const saved = process.env.APIDSL_ADMIN_DIR;
  before(() => {
    process.env.APIDSL_ADMIN_DIR = tempDir('apidsl-no-admin-');
  });
  const server = useServer(SHOP);
  after(() => {
    if (saved === undefined) delete process.env.APIDSL_ADMIN_DIR;
    else process.env.APIDSL_ADMIN_DIR = saved;
  });

  it('starts, and /admin answers a page saying how to build it and how much that downloads', async () => {
    const r = await get(server.url, '/admin');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(r.text).to.contain('The admin is not built');
    expect(r.text).to.contain('<code>npm run build:admin</code>');
    expect(r.text).to.match(/about \d+ MB/);
    expect(r.text).to.not.contain('<script');
    expect((await get(server.url, '/admin/main.js')).status).to.equal(404);
  });

  it('the banner says so', () => {
    expect(server.output()).to.match(
      / {2}Admin: not built \(npm run build:admin installs its build tools, about \d+ MB, and builds it\)\n/,
    );
  });
});
