/**
 * CORS in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core) opens
 * a page served on another port and calls the API with fetch(). From an allowed origin (the
 * default: 127.0.0.1 on any port) the page reads collections, creates items (a preflighted JSON
 * POST), reads exposed headers and error documents; from another origin (a `.test` host name the
 * browser resolves to 127.0.0.1) the browser refuses the answers. The built-in Mercure hub answers under the
 * same CORS settings: a page's EventSource with credentials receives updates from an allowed origin, and is
 * refused from another. Under CI=true a missing Chromium fails the suite; elsewhere it is skipped with one loud
 * line.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, requireOrSkip } from '../support/chromium.js';
import { cuttableRelay } from '../support/cuttable-relay.js';
import { bookstore, request, startServer, tempDir, type RunningServer } from './harness.js';

const FOREIGN_HOST = 'front.test';
const ARGS = [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${FOREIGN_HOST} 127.0.0.1`];

/** What a page's fetch() saw: the status and body it could read, or the error the browser raised. */
interface Seen {
  status?: number;
  body?: string;
  location?: string | null;
  error?: string;
}

/** A page server on its own port: any path answers a blank HTML page. */
async function pageServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>front end</title><p>front end</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function callFrom(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Seen> {
  return page.evaluate(
    async ([u, i]) => {
      try {
        const r = await fetch(u, i);
        return { status: r.status, body: await r.text(), location: r.headers.get('Location') };
      } catch (e) {
        return { error: String(e) };
      }
    },
    [url, init] as const,
  );
}

interface BrowserSetup {
  api: RunningServer;
  pages: { server: Server; port: number };
  browser: Browser;
}

/** Before the suite: the API `start` serves, a page server on another port, and Chromium; all closed after it. */
function useBrowserSetup(start: () => Promise<RunningServer>): () => BrowserSetup {
  const setup: Partial<BrowserSetup> = {};
  before(async function () {
    requireOrSkip(this, existsSync(CHROMIUM), CHROMIUM, 'apt-get install -y chromium');
    setup.api = await start();
    setup.pages = await pageServer();
    setup.browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await setup.browser?.close();
    await setup.api?.stop();
    await new Promise((resolve) => setup.pages?.server.close(resolve));
  });
  return () => setup as BrowserSetup;
}

describe('CORS in a browser: a page on another origin calls the API', function () {
  this.timeout(120_000);
  const s = useBrowserSetup(() => startServer(bookstore()));

  it('from an allowed origin (127.0.0.1, another port): reads, creates with a preflighted POST, reads errors', async () => {
    const page = await s().browser.newPage();
    await page.goto(`http://127.0.0.1:${s().pages.port}/`);
    expect(new URL(page.url()).port).to.not.equal(new URL(s().api.url).port);

    const created = await callFrom(page, `${s().api.url}/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json', Accept: 'application/ld+json' },
      body: JSON.stringify({ title: 'Dune', price: 9.99 }),
    });
    expect(created.error, 'the browser refused the POST').to.equal(undefined);
    expect(created.status).to.equal(201);
    expect(JSON.parse(created.body!)).to.include({ '@id': '/books/1', title: 'Dune' });
    expect(created.location, 'Location is exposed').to.equal('/books/1');

    const list = await callFrom(page, `${s().api.url}/books`);
    expect(list.status).to.equal(200);
    expect(JSON.parse(list.body!).totalItems).to.equal(1);

    const patched = await callFrom(page, `${s().api.url}/books/1`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ price: 12 }),
    });
    expect(patched.status).to.equal(200);
    expect(JSON.parse(patched.body!).price).to.equal(12);

    const invalid = await callFrom(page, `${s().api.url}/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json' },
      body: JSON.stringify({ price: -1 }),
    });
    expect(invalid.status, 'the 422 is readable').to.equal(422);
    expect(
      JSON.parse(invalid.body!).violations.map((v: { propertyPath: string }) => v.propertyPath),
    ).to.include.members(['title', 'price']);

    const missing = await callFrom(page, `${s().api.url}/books/999`);
    expect(missing.status).to.equal(404);
    expect(JSON.parse(missing.body!).status).to.equal(404);

    const docs = await callFrom(page, `${s().api.url}/docs.json`);
    expect(docs.status).to.equal(200);
    await page.close();
  });

  it('from another origin: the browser refuses the answers, and a preflighted write never reaches the store', async () => {
    const page = await s().browser.newPage();
    await page.goto(`http://${FOREIGN_HOST}:${s().pages.port}/`);
    expect(new URL(page.url()).hostname).to.equal(FOREIGN_HOST);

    const list = await callFrom(page, `${s().api.url}/books`);
    expect(list.error).to.match(/TypeError: Failed to fetch/);
    const write = await callFrom(page, `${s().api.url}/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json' },
      body: JSON.stringify({ title: 'Not from here' }),
    });
    expect(write.error).to.match(/TypeError: Failed to fetch/);
    await page.close();

    // The refused preflight stopped the POST: still one book.
    const check = await fetch(`${s().api.url}/books`);
    expect(((await check.json()) as { totalItems: number }).totalItems).to.equal(1);
  });
});

/**
 * Opens an EventSource with credentials in the page (page script: the test's TypeScript has no DOM types).
 * `window.opened` counts the opens, `window.errors` the errors, `window.titles` the titles of the messages;
 * `window.seen` resolves to the first message's data, or to "refused" once the browser closes the source for good
 * (a refused CORS answer; a network error leaves it reconnecting).
 */
const subscribeFrom = (page: Page, url: string): Promise<unknown> =>
  page.evaluate(`
    window.opened = 0;
    window.errors = 0;
    window.titles = [];
    window.seen = new Promise((resolve) => {
      const source = new EventSource(${JSON.stringify(url)}, { withCredentials: true });
      source.onopen = () => window.opened++;
      source.onmessage = (e) => (window.titles.push(JSON.parse(e.data).title), resolve('message ' + e.data));
      source.onerror = () => (window.errors++, source.readyState === EventSource.CLOSED && resolve('refused'));
    });
    undefined; // the value of the script: not the promise, which evaluate would wait for
  `);
const seenIn = (page: Page): Promise<string> => page.evaluate('window.seen') as Promise<string>;

describe('CORS in a browser: a page on another origin subscribes to the built-in Mercure hub', function () {
  this.timeout(120_000);
  const s = useBrowserSetup(() => {
    const dir = tempDir('apidsl-hub-cors-');
    const file = join(dir, 'live.api');
    writeFileSync(
      file,
      `api "Live" { version: "1" }
config {
  cors {
    allow_origin: ["^http://${FOREIGN_HOST.replace('.', '\\\\.')}:[0-9]+$"]
    credentials: true
  }
  mercure { hub: "builtin" }
}
resource Book {
  mercure: true
  properties {
    id: int { identifier: true }
    title: string
  }
}
`,
    );
    return startServer(file, ['--memory']);
  });
  const hub = (): string => `${s().api.url}/.well-known/mercure?topic=${encodeURIComponent('/books/{id}')}`;

  it("answers the preflight and the subscription with the API's CORS headers, credentials included", async () => {
    const origin = `http://${FOREIGN_HOST}:${s().pages.port}`;
    const preflight = await request(s().api.url, 'OPTIONS', '/.well-known/mercure', {
      headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(origin);
    expect(preflight.headers.get('access-control-allow-credentials')).to.equal('true');
    const controller = new AbortController();
    const r = await fetch(hub(), { headers: { Origin: origin }, signal: controller.signal });
    expect(r.headers.get('content-type')).to.equal('text/event-stream');
    expect(r.headers.get('access-control-allow-origin')).to.equal(origin);
    expect(r.headers.get('access-control-allow-credentials')).to.equal('true');
    expect(r.headers.get('vary')).to.include('Origin');
    controller.abort();
  });

  it('from an allowed origin: an EventSource with credentials receives the update of a write', async () => {
    const page = await s().browser.newPage();
    await page.goto(`http://${FOREIGN_HOST}:${s().pages.port}/`);
    await subscribeFrom(page, hub());
    await page.waitForFunction('window.opened === 1');
    expect((await request(s().api.url, 'POST', '/books', { body: { title: 'Live' } })).status).to.equal(201);
    const seen = await seenIn(page);
    expect(seen).to.match(/^message /);
    expect(JSON.parse(seen.slice('message '.length))).to.include({ title: 'Live' });
    await page.close();
  });

  it('from an allowed origin: a cut connection reconnects on its own (Last-Event-ID, no preflight) and misses nothing', async () => {
    const relay = await cuttableRelay(s().api.url);
    try {
      const page = await s().browser.newPage();
      await page.goto(`http://${FOREIGN_HOST}:${s().pages.port}/`);
      await subscribeFrom(page, `${relay.url}/.well-known/mercure?topic=${encodeURIComponent('/books/{id}')}`);
      await page.waitForFunction('window.opened === 1');
      await request(s().api.url, 'POST', '/books', { body: { title: 'Before the cut' } });
      await page.waitForFunction('window.titles.length === 1');
      relay.cut();
      await page.waitForFunction('window.errors >= 1');
      await request(s().api.url, 'POST', '/books', { body: { title: 'During the cut' } });
      await page.waitForFunction('window.opened === 2', undefined, { timeout: 30_000 });
      await page.waitForFunction('window.titles.length === 2', undefined, { timeout: 30_000 });
      expect(await page.evaluate('window.titles')).to.deep.equal(['Before the cut', 'During the cut']);
      await page.close();
    } finally {
      relay.close();
    }
  });

  it('from another origin (127.0.0.1, not allowed here): the browser refuses the subscription', async () => {
    const page = await s().browser.newPage();
    await page.goto(`http://127.0.0.1:${s().pages.port}/`);
    await subscribeFrom(page, hub());
    expect(await seenIn(page)).to.equal('refused');
    await page.close();
  });
});
