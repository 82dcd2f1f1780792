/**
 * The admin in headless Chromium (docs/admin.md), on the store the harness selects: the menu, a list at the
 * server's page size with its pagination, sorting on an order filter's column, a search filter, show, create (a
 * reference chosen by its label, an enum choice, a list, a datetime), edit, delete, a 422 shown on its field; on a
 * secured API, the sign-in page taking what `apidsl token` prints, the token sent on every request, a 401 returning
 * to the sign-in page, and nothing the token lacks shown. Every other host is blocked and counted, and the pages
 * may log no error. Under CI=true a missing Chromium or admin build fails the suite.
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';
import { requireAdminBuild, SHOP } from './admin-helpers.js';
import { get, post, request, startServer, type RunningServer } from './harness.js';
import { SECRET } from './security-helpers.js';

const ARTIFACTS = fromRoot('test-artifacts');
const SECURED = fromRoot('test/fixtures/admin/secured.api');

/** A page of the admin that records what the tests check after each step: other hosts, errors, API requests. */
interface AdminPage {
  page: Page;
  /** Requests to other hosts (blocked). */
  foreign: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** `METHOD path?query` of each request to the API (not the admin's own files). */
  requests: { line: string; authorization: string | undefined }[];
  /** Each finished request's bytes on the wire (headers and body as sent). */
  sizes: Promise<number>[];
}

const transferred = async (admin: AdminPage): Promise<number> =>
  (await Promise.all(admin.sizes)).reduce((a, b) => a + b, 0);

async function openAdmin(browser: Browser, base: string, hash: string): Promise<AdminPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const opened: AdminPage = { page, foreign: [], errors: [], requests: [], sizes: [] };
  page.on('requestfinished', (r) =>
    opened.sizes.push(r.sizes().then((s) => s.responseHeadersSize + s.responseBodySize)),
  );
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`) || url.startsWith('data:')) return route.continue();
    opened.foreign.push(url);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') opened.errors.push(m.text());
  });
  page.on('pageerror', (e) => opened.errors.push(String(e)));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin === base && !url.pathname.startsWith('/admin'))
      opened.requests.push({
        line: `${r.method()} ${url.pathname}${url.search}`,
        authorization: r.headers().authorization,
      });
  });
  await page.goto(`${base}/admin#${hash}`);
  return opened;
}

/** No other host asked, no error logged but the given statuses' "Failed to load resource" lines. */
function expectClean(admin: AdminPage, ...expectedStatuses: number[]): void {
  expect(admin.foreign, 'requests to other hosts').to.deep.equal([]);
  const unexpected = admin.errors.filter(
    (e) => !expectedStatuses.some((s) => e.includes(`the server responded with a status of ${s}`)),
  );
  expect(unexpected, 'console errors').to.deep.equal([]);
}

const rows = (page: Page) => page.locator('tbody .RaDatagrid-row');
const columnOf = async (page: Page, column: string): Promise<string[]> =>
  page.locator(`tbody .RaDatagrid-row td.column-${column}`).allTextContents();
/** Waits until the list's first row is `name`. */
const firstName = (page: Page, name: string) =>
  rows(page)
    .first()
    .locator('td.column-name', { hasText: new RegExp(`^${name}$`) })
    .waitFor({ timeout: 30_000 });
/** Waits until the list shows `n` rows. */
const rowCount = (page: Page, n: number) =>
  page.waitForFunction(`document.querySelectorAll("tbody .RaDatagrid-row").length === ${n}`, undefined, {
    timeout: 30_000,
  });
/** Waits until a form shows the item named `name`. */
const nameShown = (page: Page, name: string) =>
  page.waitForFunction(`document.querySelector('input[name="name"]')?.value === ${JSON.stringify(name)}`, undefined, {
    timeout: 60_000,
  });
const decodedRequests = (admin: AdminPage): string[] => admin.requests.map((r) => decodeURIComponent(r.line));

describe('the admin in a browser', function () {
  this.timeout(180_000);
  let server: RunningServer | undefined;
  let browser: Browser | undefined;

  before(async function () {
    requireAdminBuild(this);
    browser = await launchChromium(this);
    server = await startServer(SHOP);
    for (const name of ['Books', 'Games', 'Music'])
      expect((await post(server.url, '/categories', { name })).status).to.equal(201);
    const names = ['Kiwi', 'Apple', 'Mango', 'Banana', 'Cherry', 'Lemon', 'Grape'];
    for (const [i, name] of names.entries()) {
      const body = { name, price: i + 0.5, status: 'draft', tags: ['fruit'], category: '/categories/1' };
      expect((await post(server.url, '/products', body)).status).to.equal(201);
    }
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows a menu entry per resource and a list at the server page size, paginated by the server', async () => {
    const admin = await openAdmin(browser!, server!.url, '/products');
    const { page } = admin;
    await rows(page).first().waitFor({ timeout: 60_000 });
    // The first load, compressed as the browser asked for it, headers included: the page, the admin's files, the
    // documentation and the first list.
    expect(await transferred(admin)).to.be.below(700_000);
    expect(await page.locator('.RaMenuItemLink-root').allTextContents()).to.deep.equal(['Categories', 'Products']);
    expect(await rows(page).count()).to.equal(5);
    // A reference's label comes from a second request, after the rows are drawn.
    await page.waitForFunction(
      `[...document.querySelectorAll("tbody .RaDatagrid-row td.column-category")].every((c) => c.textContent !== "")`,
      undefined,
      { timeout: 30_000 },
    );
    expect(await columnOf(page, 'category')).to.deep.equal(['Books', 'Books', 'Books', 'Books', 'Books']);
    await page.getByText('1-5 of 7').waitFor();
    // The server's own page size: the admin shows no page-size menu where the client may not choose one.
    expect(await page.locator('.MuiTablePagination-selectLabel').count()).to.equal(0);
    await page.getByRole('button', { name: 'Go to page 2' }).click();
    await page.getByText('6-7 of 7').waitFor();
    await rowCount(page, 2);
    expect(await columnOf(page, 'name')).to.deep.equal(['Lemon', 'Grape']);
    expect(decodedRequests(admin).some((r) => r.startsWith('GET /products?') && r.includes('page=2'))).to.equal(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/admin-list.png` });
    expectClean(admin);
    await page.close();
  });

  it('sorts on a column of the order filter, and filters by a search filter', async () => {
    const admin = await openAdmin(browser!, server!.url, '/products');
    const { page } = admin;
    await rows(page).first().waitFor({ timeout: 60_000 });
    await page.locator('th.column-name .MuiTableSortLabel-root').click();
    await firstName(page, 'Apple');
    expect(await columnOf(page, 'name')).to.deep.equal(['Apple', 'Banana', 'Cherry', 'Grape', 'Kiwi']);
    expect(decodedRequests(admin).some((r) => r.includes('order[name]=ASC'))).to.equal(true);
    await page.locator('th.column-name .MuiTableSortLabel-root').click();
    await firstName(page, 'Mango');
    expect(await columnOf(page, 'name')).to.deep.equal(['Mango', 'Lemon', 'Kiwi', 'Grape', 'Cherry']);
    // A column no order filter names does not sort.
    expect(await page.locator('th.column-status .MuiTableSortLabel-root').count()).to.equal(0);

    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('menuitemcheckbox', { name: 'Name' }).click();
    await page.locator('form input[name="name"]').fill('an');
    await rowCount(page, 2);
    expect((await columnOf(page, 'name')).sort()).to.deep.equal(['Banana', 'Mango']);
    expect(decodedRequests(admin).some((r) => r.startsWith('GET /products?') && r.includes('name=an'))).to.equal(true);
    expectClean(admin);
    await page.close();
  });

  it('shows an item, its reference by its label', async () => {
    const admin = await openAdmin(browser!, server!.url, `/products/${encodeURIComponent('/products/1')}/show`);
    const { page } = admin;
    const show = page.locator('.RaShow-main');
    await show.getByText('Kiwi').waitFor({ timeout: 60_000 });
    await show.getByText('Books').waitFor();
    await show.getByText('draft').waitFor();
    await show.getByText('fruit').waitFor();
    expectClean(admin);
    await page.close();
  });

  it('creates an item: a reference chosen by its label, an enum choice, a list item, a datetime', async () => {
    const admin = await openAdmin(browser!, server!.url, '/products/create');
    const { page } = admin;
    await page.locator('input[name="name"]').waitFor({ timeout: 60_000 });
    await page.locator('input[name="name"]').fill('Papaya');
    await page.locator('input[name="price"]').fill('3.25');
    await page.getByRole('combobox', { name: 'Status' }).click();
    expect(await page.getByRole('option').allTextContents()).to.include.members(['draft', 'published', 'archived']);
    await page.getByRole('option', { name: 'published' }).click();
    await page.locator('.ra-input-tags button.button-add').click();
    await page.locator('input[name="tags.0"]').fill('tropical');
    await page.getByRole('combobox', { name: 'Category' }).click();
    expect(await page.getByRole('option').allTextContents()).to.include.members(['Books', 'Games', 'Music']);
    await page.getByRole('option', { name: 'Games' }).click();
    await page.locator('input[name="releasedAt"]').fill('2026-05-01T10:30');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.RaShow-main, .RaEdit-main, .RaList-main').first().waitFor({ timeout: 60_000 });

    const found = (await get(server!.url, '/products?name=Papaya')).json as { member: Record<string, unknown>[] };
    expect(found.member).to.have.length(1);
    expect(found.member[0]).to.include({ name: 'Papaya', price: 3.25, status: 'published', category: '/categories/2' });
    expect(found.member[0]!.tags).to.deep.equal(['tropical']);
    expect(new Date(found.member[0]!.releasedAt as string).getTime()).to.equal(new Date('2026-05-01T10:30').getTime());
    expectClean(admin);
    await page.close();
  });

  it('shows the server 422 on its field, and saves nothing', async () => {
    const admin = await openAdmin(browser!, server!.url, '/products/create');
    const { page } = admin;
    await page.locator('input[name="name"]').waitFor({ timeout: 60_000 });
    await page.locator('input[name="name"]').fill('x'.repeat(50));
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'draft' }).click();
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/products'));
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await answered).status()).to.equal(422);
    const helper = page.locator('.ra-input-name .MuiFormHelperText-root');
    await helper
      .getByText('This value is too long. It should have 40 characters or less.')
      .waitFor({ timeout: 30_000 });
    expect(((await get(server!.url, '/products')).json as { totalItems: number }).totalItems).to.equal(8);
    expectClean(admin, 422);
    await page.close();
  });

  it('edits an item (PATCH) and deletes one', async () => {
    const admin = await openAdmin(browser!, server!.url, `/products/${encodeURIComponent('/products/2')}`);
    const { page } = admin;
    const price = page.locator('input[name="price"]');
    await nameShown(page, 'Apple');
    await price.fill('42');
    const patched = page.waitForResponse((r) => r.request().method() === 'PATCH', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Save' }).click();
    const response = await patched;
    expect(response.status()).to.equal(200);
    // Only what a client may write: not the identifier (read-only here), nor the admin's own bookkeeping.
    const sent = response.request().postDataJSON() as Record<string, unknown>;
    expect(sent).to.include({ price: 42 });
    expect(sent).to.not.have.any.keys('id', 'originId');
    expect((await get(server!.url, '/products/2')).json).to.include({ name: 'Apple', price: 42 });

    await page.goto(`${server!.url}/admin#/products/${encodeURIComponent('/products/3')}`);
    await nameShown(page, 'Mango');
    const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    expect((await deleted).status()).to.equal(204);
    expect((await get(server!.url, '/products/3')).status).to.equal(404);
    expectClean(admin);
    await page.close();
  });
});

describe('the admin of a secured API in a browser', function () {
  this.timeout(180_000);
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const tokens: Record<string, string> = {};
  /** What `apidsl token` prints for the fixture. */
  const mint = (args: string[], secret = SECRET): string => {
    const r = runCli(['token', SECURED, ...args], { env: { APIDSL_TEST_JWT_SECRET: secret } });
    expect(r.status, r.stderr).to.equal(0);
    return r.stdout.trim();
  };

  before(async function () {
    requireAdminBuild(this);
    browser = await launchChromium(this);
    tokens.user = mint(['--sub', 'alice', '--roles', 'ROLE_USER']);
    tokens.admin = mint(['--sub', 'root', '--roles', 'ROLE_ADMIN,ROLE_USER']);
    tokens.forged = mint(
      ['--sub', 'root', '--roles', 'ROLE_ADMIN'],
      'another-secret-another-secret-another-secret-0123',
    );
    server = await startServer(SECURED);
    const created = await request(server.url, 'POST', '/orders', {
      body: { reference: 'A-1', note: 'admins only' },
      headers: { Authorization: `Bearer ${tokens.admin}` },
    });
    expect(created.status, created.text).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signIn = async (admin: AdminPage, token: string): Promise<void> => {
    const field = admin.page.getByLabel('Bearer token');
    await field.waitFor({ timeout: 60_000 });
    await field.fill(token);
    await admin.page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('asks for a bearer token first, then sends it on every request; the token shows only what it may see', async () => {
    const admin = await openAdmin(browser!, server!.url, '/orders');
    const { page } = admin;
    await signIn(admin, tokens.user!);
    await rows(page).first().waitFor({ timeout: 60_000 });
    expect(await columnOf(page, 'reference')).to.deep.equal(['A-1']);
    // The note is for administrators: a user's token does not read it.
    expect(await page.getByText('admins only').count()).to.equal(0);
    const toOrders = admin.requests.filter((r) => r.line.startsWith('GET /orders'));
    expect(toOrders.length).to.be.greaterThan(0);
    expect(new Set(toOrders.map((r) => r.authorization))).to.deep.equal(new Set([`Bearer ${tokens.user}`]));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/admin-secured.png` });
    expectClean(admin);
    await page.close();
  });

  it('an administrator token reads the note', async () => {
    const admin = await openAdmin(browser!, server!.url, '/orders');
    await signIn(admin, tokens.admin!);
    await admin.page.getByText('admins only').waitFor({ timeout: 60_000 });
    expectClean(admin);
    await admin.page.close();
  });

  it('a token the API refuses (401) returns to the sign-in page and is forgotten', async () => {
    const admin = await openAdmin(browser!, server!.url, '/orders');
    const { page } = admin;
    const refused = page.waitForResponse((r) => r.url().includes('/orders') && r.status() === 401, { timeout: 60_000 });
    await signIn(admin, tokens.forged!);
    await refused;
    await page.getByLabel('Bearer token').waitFor({ timeout: 60_000 });
    expect(await page.evaluate('sessionStorage.length')).to.equal(0);
    expect(await rows(page).count()).to.equal(0);
    expectClean(admin, 401);
    await page.close();
  });
});
