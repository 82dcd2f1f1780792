/**
 * The generated client in a real browser (docs/client.md: the package runs in browsers as native modules): headless
 * Chromium opens a page served on another port beside the package's `.js` files, the page imports `index.js` and
 * calls `apidsl serve` on the suite's store across origins (allowed by the default CORS setting: localhost and
 * 127.0.0.1 on any port): a create read as data (201), a read, a list with its totalItems, and a 422 read as typed
 * violations. Under CI=true a missing Chromium fails the suite; elsewhere it is skipped with one loud line.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { clientPackage, type PackageFile } from '../../server/client/package.js';
import { loadApi } from '../../server/load-api.js';
import { useServer } from '../http/harness.js';
import { launchChromium } from '../support/chromium.js';
import { fromRoot } from '../support/paths.js';

const FIXTURE = 'test/fixtures/client/formats.api';

/** The page's program: `window.seen` resolves to what the client answered, as plain JSON. */
const page = (baseUrl: string): string => `<!doctype html><title>client</title>
<script type="module">
window.seen = (async () => {
  const { createClient } = await import('/sdk/index.js');
  const client = createClient({ baseUrl: ${JSON.stringify(baseUrl)} });
  const created = await client.items.create({ name: 'browser lamp', price: 3 });
  if (created.error) return { error: created.error };
  const id = created.data.id;
  const read = await client.items.get(id);
  const list = await client.items.list();
  const invalid = await client.items.create({ name: 'x'.repeat(41) });
  return {
    created: [created.data['@id'] === '/items/' + id, created.data.name, created.data.price],
    read: [read.data?.name, read.data?.price],
    list: [list.data?.totalItems, list.data?.members.length],
    invalid: [invalid.error?.status, invalid.error?.violations?.[0]?.propertyPath],
  };
})();
</script>`;

/** A static server on its own port: `/` is the page, `/sdk/<file>` the package's files. */
async function staticServer(files: PackageFile[], baseUrl: () => string): Promise<Server> {
  const server = createServer((req, res) => {
    const file = files.find((f) => `/sdk/${f.path}` === req.url);
    if (req.url === '/') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(baseUrl()));
    else if (file) res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(file.text);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe(`apidsl client in a browser: a page imports the package and calls the API (fixture ${FIXTURE})`, function () {
  this.timeout(300_000);
  const api = useServer(fromRoot(FIXTURE));
  let pages: Server | undefined;
  let browser: Browser | undefined;

  before(async function () {
    browser = await launchChromium(this);
    pages = await staticServer(clientPackage(await loadApi(fromRoot(FIXTURE))), () => api.url);
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
  });

  it('creates (201 as data), reads, lists with totalItems, and reads a 422 as violations', async () => {
    const tab = await browser!.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    await tab.goto(`http://127.0.0.1:${(pages!.address() as AddressInfo).port}/`);
    expect(new URL(tab.url()).port, 'the page is on another origin').to.not.equal(new URL(api.url).port);
    const seen = await tab.evaluate('window.seen');
    expect(errors).to.deep.equal([]);
    // The store is fresh for each server start, and the refused create stored nothing: one item.
    expect(seen).to.deep.equal({
      created: [true, 'browser lamp', 3],
      read: ['browser lamp', 3],
      list: [1, 1],
      invalid: [422, 'name'],
    });
    await tab.close();
  });
});
