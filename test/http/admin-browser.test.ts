/**
 * The admin in headless Chromium (docs/admin.md), on the store the harness selects: the menu, a list at the
 * server's page size with its pagination, sorting on an order filter's column, a search filter, show, create (a
 * reference chosen by its label, an enum choice, a list, a datetime), edit, delete, a 422 shown on its field; on a
 * secured API, the sign-in page taking what `apidsl token` prints, the token kept for the tab's session and sent on
 * every request, a 401 returning to the sign-in page, and nothing the token lacks shown or granted; on an API with
 * row-level scopes (examples/marketplace.api), a seller seeing and changing only what its scopes allow. Every other
 * host is blocked and counted, and the pages may log no error. Under CI=true a missing Chromium or admin build fails
 * the suite.
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
const MARKETPLACE = fromRoot('examples/marketplace.api');

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
  /** `STATUS METHOD path` of each answer of the API, in the order they came. */
  answers: string[];
}

const transferred = async (admin: AdminPage): Promise<number> =>
  (await Promise.all(admin.sizes)).reduce((a, b) => a + b, 0);

async function openAdmin(browser: Browser, base: string, hash: string): Promise<AdminPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const opened: AdminPage = { page, foreign: [], errors: [], requests: [], sizes: [], answers: [] };
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
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.origin === base && !url.pathname.startsWith('/admin'))
      opened.answers.push(`${r.status()} ${r.request().method()} ${url.pathname}`);
  });
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
/**
 * Waits until a form shows the item named `name`; when it does not, fails with what the field holds and what the
 * API answered the page (a form left empty on a busy machine says whether a request failed or never came back).
 */
const nameShown = async ({ page, answers }: AdminPage, name: string): Promise<void> => {
  try {
    await page.waitForFunction(`document.querySelector('input[name="name"]')?.value === ${JSON.stringify(name)}`, {
      timeout: 60_000,
    });
  } catch (e) {
    const shown = await page
      .locator('input[name="name"]')
      .inputValue({ timeout: 1_000 })
      .catch(() => 'no field');
    throw new Error(`the form never showed ${name} (field: ${shown}; the API answered: ${answers.join(', ')}): ${e}`);
  }
};
const decodedRequests = (admin: AdminPage): string[] => admin.requests.map((r) => decodeURIComponent(r.line));
/**
 * Waits until a column of the list reads `values`, row by row: a reference's labels are fetched after the rows, so
 * a column read at once may still show the references' ids or nothing.
 */
const columnReads = async (page: Page, column: string, values: string[]): Promise<void> => {
  const expected = JSON.stringify(values);
  const read = `JSON.stringify([...document.querySelectorAll("tbody .RaDatagrid-row td.column-${column}")].map((td) => td.textContent))`;
  await page
    .waitForFunction(`${read} === ${JSON.stringify(expected)}`, undefined, { timeout: 30_000 })
    .catch(() => undefined);
  expect(await columnOf(page, column)).to.deep.equal(values);
};

/** Signs in on a secured API's sign-in page with a bearer token. */
const signIn = async (admin: AdminPage, token: string): Promise<void> => {
  const field = admin.page.getByLabel('Bearer token');
  await field.waitFor({ timeout: 60_000 });
  await field.fill(token);
  await admin.page.getByRole('button', { name: 'Sign in' }).click();
};

/** What `apidsl token` prints for `file` and `args` in the environment `env` (the signing secret). */
const mint = (file: string, args: string[], env: NodeJS.ProcessEnv): string => {
  const r = runCli(['token', file, ...args], { env });
  expect(r.status, r.stderr).to.equal(0);
  return r.stdout.trim();
};

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
      const releasedAt = '2026-03-01T09:00:00+00:00';
      const body = { name, price: i + 0.5, status: 'draft', tags: ['fruit'], category: '/categories/1', releasedAt };
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
    // A reference's label comes from a second request, after the rows are drawn (columnReads waits for it).
    await columnReads(page, 'category', ['Books', 'Books', 'Books', 'Books', 'Books']);
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
    // Required fields are checked before anything is sent (the Save button waits for a change).
    await page.locator('input[name="price"]').fill('1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.ra-input-name .MuiFormHelperText-root').getByText('Required').waitFor({ timeout: 30_000 });
    expect(admin.requests.filter((r) => r.line.startsWith('POST '))).to.deep.equal([]);
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
    await nameShown(admin, 'Apple');
    await price.fill('42');
    // A nullable datetime cleared is sent and stored as null.
    await page.locator('input[name="releasedAt"]').fill('');
    const patched = page.waitForResponse((r) => r.request().method() === 'PATCH', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Save' }).click();
    const response = await patched;
    expect(response.status()).to.equal(200);
    // Only what a client may write: not the identifier (read-only here), nor the admin's own bookkeeping.
    const sent = response.request().postDataJSON() as Record<string, unknown>;
    expect(sent).to.include({ price: 42, releasedAt: null });
    expect(sent).to.not.have.any.keys('id', 'originId');
    const stored = (await get(server!.url, '/products/2')).json;
    expect(stored).to.include({ name: 'Apple', price: 42 });
    expect(stored.releasedAt ?? null).to.equal(null);

    await page.goto(`${server!.url}/admin#/products/${encodeURIComponent('/products/3')}`);
    await nameShown(admin, 'Mango');
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
  const mintFor = (args: string[], secret = SECRET): string => mint(SECURED, args, { APIDSL_TEST_JWT_SECRET: secret });

  before(async function () {
    requireAdminBuild(this);
    browser = await launchChromium(this);
    tokens.user = mintFor(['--sub', 'alice', '--roles', 'ROLE_USER']);
    tokens.admin = mintFor(['--sub', 'root', '--roles', 'ROLE_ADMIN,ROLE_USER']);
    tokens.forged = mintFor(
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

    // Kept for the browser session: a reload and another page of the admin ask for no token again.
    const before = admin.requests.length;
    await page.reload();
    await rows(page).first().waitFor({ timeout: 60_000 });
    await page.goto(`${server!.url}/admin#/orders/${encodeURIComponent('/orders/1')}/show`);
    await page.locator('.RaShow-main').getByText('A-1').waitFor({ timeout: 60_000 });
    expect(await page.getByLabel('Bearer token').count()).to.equal(0);
    const after = admin.requests.slice(before);
    expect(after.map((r) => r.line)).to.include.members(['GET /orders/1']);
    expect(new Set(after.map((r) => r.authorization))).to.deep.equal(new Set([`Bearer ${tokens.user}`]));
    expectClean(admin);
    await page.close();
  });

  it('grants nothing the token lacks: a user deleting an order is refused (403) and nothing is deleted', async () => {
    const admin = await openAdmin(browser!, server!.url, `/orders/${encodeURIComponent('/orders/1')}`);
    const { page } = admin;
    await signIn(admin, tokens.user!);
    await page.waitForFunction(`document.querySelector('input[name="reference"]')?.value === 'A-1'`, undefined, {
      timeout: 60_000,
    });
    const refused = page.waitForResponse((r) => r.request().method() === 'DELETE', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    expect((await refused).status()).to.equal(403);
    const stored = await request(server!.url, 'GET', '/orders/1', {
      headers: { Authorization: `Bearer ${tokens.admin}` },
    });
    expect(stored.status).to.equal(200);
    // Refused with the server's message, and not signed out: a 403 keeps the token.
    await page.getByText('Access Denied.').waitFor({ timeout: 30_000 });
    expect(await page.evaluate('sessionStorage.length')).to.equal(1);
    expectClean(admin, 403);
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

describe('the admin of an API with row-level scopes in a browser (examples/marketplace.api)', function () {
  this.timeout(180_000);
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let ann = '';
  let bob = '';
  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
  const write = async (token: string, path: string, body: unknown): Promise<void> => {
    const r = await request(server!.url, 'POST', path, { ...as(token), body });
    expect(r.status, r.text).to.equal(201);
  };

  before(async function () {
    requireAdminBuild(this);
    browser = await launchChromium(this);
    // The secret the example reads; the same value as the scopes suite's (scopes.test.ts).
    process.env.APIDSL_JWT_SECRET = SECRET;
    ann = mint(MARKETPLACE, ['--sub', 'ann'], {});
    bob = mint(MARKETPLACE, ['--sub', 'bob'], {});
    server = await startServer(MARKETPLACE);
    await write(ann, '/shops', { name: 'Lamps' }); // shop 1
    await write(bob, '/shops', { name: 'Chairs' }); // shop 2
    await write(ann, '/products', { name: 'Draft lamp', price: 10, shop: '/shops/1' }); // 1, a draft
    await write(ann, '/products', { name: 'Lamp', price: 20, shop: '/shops/1', published: true }); // 2
    await write(bob, '/products', { name: 'Draft chair', price: 30, shop: '/shops/2' }); // 3, Bob's draft
    await write(bob, '/products', { name: 'Chair', price: 40, shop: '/shops/2', published: true }); // 4
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('a seller sees only the products of its read scope, counted as such, and not another seller’s draft', async () => {
    const admin = await openAdmin(browser!, server!.url, '/products');
    const { page } = admin;
    await signIn(admin, ann);
    await rowCount(page, 3);
    await columnReads(page, 'name', ['Draft lamp', 'Lamp', 'Chair']);
    await columnReads(page, 'shop', ['Lamps', 'Lamps', 'Chairs']);
    await page.getByText('1-3 of 3').waitFor();
    // Bob's draft, asked for by its address, is not there for Ann (404, as an unknown item).
    const missing = page.waitForResponse((r) => r.url().endsWith('/products/3'), { timeout: 60_000 });
    await page.goto(`${server!.url}/admin#/products/${encodeURIComponent('/products/3')}/show`);
    expect((await missing).status()).to.equal(404);
    await rows(page).first().waitFor({ timeout: 60_000 });
    expect(await page.getByText('Draft chair').count()).to.equal(0);
    expectClean(admin, 404);
    await page.close();
  });

  it('a seller edits its own product, and is refused (403, nothing stored) on another seller’s', async () => {
    const admin = await openAdmin(browser!, server!.url, `/products/${encodeURIComponent('/products/1')}`);
    const { page } = admin;
    await signIn(admin, ann);
    await nameShown(admin, 'Draft lamp');
    await page.locator('input[name="price"]').fill('12');
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await saved).status()).to.equal(200);
    expect((await request(server!.url, 'GET', '/products/1', as(ann))).json).to.include({ price: 12 });

    // Bob's published chair: Ann reads it (the read scope) but may not change it (the write scope).
    await page.goto(`${server!.url}/admin#/products/${encodeURIComponent('/products/4')}`);
    await nameShown(admin, 'Chair');
    await page.locator('input[name="price"]').fill('1');
    const refused = page.waitForResponse((r) => r.request().method() === 'PATCH', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await refused).status()).to.equal(403);
    await page.getByText("Only the shop's owner changes its products.").waitFor({ timeout: 30_000 });
    expect((await request(server!.url, 'GET', '/products/4', as(bob))).json).to.include({ price: 40 });
    expectClean(admin, 403);
    await page.close();
  });
});
