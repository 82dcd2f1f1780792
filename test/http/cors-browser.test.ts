/**
 * CORS in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core) opens
 * a page served on another port and calls the API with fetch(). From an allowed origin (the
 * default: 127.0.0.1 on any port) the page reads collections, creates items (a preflighted JSON
 * POST), reads exposed headers and error documents; from another origin (a `.test` host name the
 * browser resolves to 127.0.0.1) the browser refuses the answers. Under CI=true a missing Chromium
 * fails the suite; elsewhere it is skipped with one loud line.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { bookstore, startServer, type RunningServer } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const FOREIGN_HOST = 'front.test';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--host-resolver-rules=MAP ${FOREIGN_HOST} 127.0.0.1`,
];

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

describe('CORS in a browser: a page on another origin calls the API', function () {
  this.timeout(120_000);
  let api: RunningServer | undefined;
  let pages: { server: Server; port: number } | undefined;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      if (process.env.CI === 'true')
        throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (see .ci/run)`);
      console.error(`\n*** SKIPPED the browser CORS test: ${CHROMIUM} is missing (apt-get install -y chromium) ***\n`);
      this.skip();
    }
    api = await startServer(bookstore());
    pages = await pageServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await api?.stop();
    await new Promise((resolve) => pages?.server.close(resolve));
  });

  it('from an allowed origin (127.0.0.1, another port): reads, creates with a preflighted POST, reads errors', async () => {
    const page = await browser!.newPage();
    await page.goto(`http://127.0.0.1:${pages!.port}/`);
    expect(new URL(page.url()).port).to.not.equal(new URL(api!.url).port);

    const created = await callFrom(page, `${api!.url}/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json', Accept: 'application/ld+json' },
      body: JSON.stringify({ title: 'Dune', price: 9.99 }),
    });
    expect(created.error, 'the browser refused the POST').to.equal(undefined);
    expect(created.status).to.equal(201);
    expect(JSON.parse(created.body!)).to.include({ '@id': '/books/1', title: 'Dune' });
    expect(created.location, 'Location is exposed').to.equal('/books/1');

    const list = await callFrom(page, `${api!.url}/books`);
    expect(list.status).to.equal(200);
    expect(JSON.parse(list.body!).totalItems).to.equal(1);

    const patched = await callFrom(page, `${api!.url}/books/1`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ price: 12 }),
    });
    expect(patched.status).to.equal(200);
    expect(JSON.parse(patched.body!).price).to.equal(12);

    const invalid = await callFrom(page, `${api!.url}/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json' },
      body: JSON.stringify({ price: -1 }),
    });
    expect(invalid.status, 'the 422 is readable').to.equal(422);
    expect(
      JSON.parse(invalid.body!).violations.map((v: { propertyPath: string }) => v.propertyPath),
    ).to.include.members(['title', 'price']);

    const missing = await callFrom(page, `${api!.url}/books/999`);
    expect(missing.status).to.equal(404);
    expect(JSON.parse(missing.body!).status).to.equal(404);

    const docs = await callFrom(page, `${api!.url}/docs.json`);
    expect(docs.status).to.equal(200);
    await page.close();
  });

  it('from another origin: the browser refuses the answers, and a preflighted write never reaches the store', async () => {
    const page = await browser!.newPage();
    await page.goto(`http://${FOREIGN_HOST}:${pages!.port}/`);
    expect(new URL(page.url()).hostname).to.equal(FOREIGN_HOST);

    const list = await callFrom(page, `${api!.url}/books`);
    expect(list.error).to.match(/TypeError: Failed to fetch/);
    const write = await callFrom(page, `${api!.url}/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json' },
      body: JSON.stringify({ title: 'Not from here' }),
    });
    expect(write.error).to.match(/TypeError: Failed to fetch/);
    await page.close();

    // The refused preflight stopped the POST: still one book.
    const check = await fetch(`${api!.url}/books`);
    expect(((await check.json()) as { totalItems: number }).totalItems).to.equal(1);
  });
});
