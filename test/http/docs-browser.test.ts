/**
 * The HTML API reference at /docs, opened in headless Chromium (Debian's `chromium`,
 * driven by playwright-core): every documented operation is listed, QUERY included, hidden routes
 * are not, and the page asks nothing of any other host; schemas are drawn as objects (every request and
 * response of every operation, in each media type, none "any"), with the API's own example IRIs (not the
 * `path/実例.html` Swagger UI makes up), and "Try it out" sends a POST body the API accepts. On a secured API, the Authorize button takes a Bearer token that
 * "Try it out" then sends. Screenshots are kept in test-artifacts/.
 * Under CI=true a missing Chromium fails the suite; elsewhere it is skipped with one loud line.
 * What is drawn comes from the model, not the store: the servers run on an embedded store of their own, and the
 * store runs leave this file out (store-independent.json).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Locator } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, requireOrSkip } from '../support/chromium.js';
import { fromRoot } from '../support/paths.js';
import { bookstore, get, request, startServer, tempDir, type RunningServer } from './harness.js';
import { as, securityFixture, token } from './security-helpers.js';

const ARGS = CHROMIUM_ARGS;
const ARTIFACTS = fromRoot('test-artifacts');

describe('HTML API reference in a browser', function () {
  this.timeout(120_000);
  let server: RunningServer | undefined;
  let browser: Browser | undefined;

  before(async function () {
    requireOrSkip(this, existsSync(CHROMIUM), CHROMIUM, 'apt-get install -y chromium');
    server = await startServer(bookstore(), ['--data', tempDir('apidsl-docs-browser-')]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists every documented operation, QUERY included, loading nothing from another host', async () => {
    const base = server!.url;
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    const foreign: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(`${base}/`) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));

    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary', { timeout: 60_000 });
    const listed: string[] = await page.$$eval('.opblock-summary', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path =
          b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ??
          b.querySelector('.opblock-summary-path')?.textContent?.trim() ??
          '';
        return `${method} ${path}`;
      }),
    );

    const doc = (await get(base, '/docs.json')).json as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented).to.include('QUERY /books');
    expect(listed.sort()).to.deep.equal(documented.sort());
    expect(listed).to.include.members([
      'GET /books',
      'POST /books',
      'QUERY /books',
      'GET /books/{id}',
      'PUT /books/{id}',
      'PATCH /books/{id}',
      'DELETE /books/{id}',
      'GET /events',
      'GET /geo/places/{id}',
    ]);

    // The QUERY operation opens on its request body, in JSON or a form.
    await page.click('.opblock-query .opblock-summary');
    await page.waitForSelector('.opblock-query .opblock-section-request-body', { timeout: 30_000 });
    const bodyTypes = await page.$$eval('.opblock-query .opblock-section-request-body select option', (options) =>
      options.map((o) => o.textContent),
    );
    expect(bodyTypes).to.include.members(['application/json', 'application/x-www-form-urlencoded']);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/docs-html.png`, fullPage: true });
    expect(existsSync(`${ARTIFACTS}/docs-html.png`)).to.equal(true);

    expect(foreign, 'requests to other hosts').to.deep.equal([]);
    expect(failed, 'failed requests').to.deep.equal([]);
    expect(errors, 'console errors').to.deep.equal([]);
    await page.close();
  });

  it('draws every request and response schema of every operation, in each media type, typed and with IRIs of the API', async function () {
    this.timeout(300_000); // some hundred clicks, on a machine that may be busy
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${server!.url}/docs`);
    await page.waitForSelector('.opblock-summary', { timeout: 60_000 });
    const ids = await page.$$eval('.opblock', (blocks) => blocks.map((b) => b.id));
    expect(ids).to.include('operations-Book-api_books_get_collection');
    const problems: string[] = [];
    const examples: string[] = [];
    let models = 0;
    for (const id of ids) {
      const op = page.locator(`#${id}`);
      await op.locator('.opblock-summary').click();
      await op.locator('.responses-wrapper').waitFor({ timeout: 30_000 });
      const look = (part: string) => async (type: string) => {
        const shown = await drawn(op.locator(part));
        for (const model of shown.models) {
          models++;
          // The root's type follows its name and the first expander: `Book.jsonld.collection Collapse all object …`.
          const root = /(?:Collapse|Expand) all\s*(\S+)/.exec(model)?.[1] ?? '';
          if (!/^(object|array|\(object|string|integer)/.test(root) || /\bany\b/.test(model))
            problems.push(`${id} ${type}: ${model.slice(0, 160)}`);
        }
        for (const example of shown.examples) {
          examples.push(example);
          if (MADE_UP_IRI.test(example)) problems.push(`${id} ${type}: a made-up IRI in ${example.slice(0, 300)}`);
        }
      };
      await eachMediaType(op.locator('.opblock-section-request-body select'), look('.opblock-section-request-body'));
      await eachMediaType(op.locator('.responses-inner .response-controls select'), look('.responses-wrapper'));
      // Closed again: Swagger UI re-renders every open block on each click, so the page would slow down with each.
      await op.locator('.opblock-summary').click();
      await op.locator('.responses-wrapper').waitFor({ state: 'detached', timeout: 30_000 });
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect(models).to.be.greaterThan(ids.length);
    // The collection and item responses show the API's own IRIs.
    const all = examples.join('\n');
    for (const iri of ['"/books/1"', '"/books"', '"/books?page=2"', '"/contexts/Book"']) expect(all).to.contain(iri);
    await page.close();
  });

  it('draws every schema as an object, and "Try it out" on POST sends an example the API accepts', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${server!.url}/docs`);
    await page.locator('section.models', { hasText: 'Book.jsonld' }).waitFor({ timeout: 60_000 });
    const schemas = (await page.textContent('section.models')) ?? '';
    expect(schemas, 'a schema drawn as a combination').not.to.match(/\(any|any\)|& any/);
    for (const name of ['Book.jsonld', 'Book.input', 'ConstraintViolation.jsonld'])
      expect(schemas).to.match(new RegExp(`${name.replace('.', '\\.')}Expand all\\s*object`));

    await page.click('#operations-Book-api_books_post .opblock-summary');
    await page.click('#operations-Book-api_books_post .try-out__btn');
    const body = JSON.parse(await page.inputValue('#operations-Book-api_books_post textarea.body-param__text'));
    expect(body).to.include({ title: 'string' });
    await page.click('#operations-Book-api_books_post .execute');
    const row = '#operations-Book-api_books_post .live-responses-table tbody .response-col_status';
    await page.waitForSelector(row, { timeout: 30_000 });
    const status = await page.textContent(row);
    expect(status?.trim()).to.equal('201');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/docs-try-post.png`, fullPage: false });
    await page.close();
  });
});

/** IRIs Swagger UI makes up for `format: iri-reference` (or `uri-reference`) when a schema gives no example. */
const MADE_UP_IRI = /path\/|실례|実例|index\.html/;

/** The drawn schemas (Schema tabs) and the example values of what an operation's block shows now. */
async function drawn(op: Locator): Promise<{ models: string[]; examples: string[] }> {
  const examples = await op.locator('.microlight').allTextContents();
  for (const tab of await op.locator('button.tablinks[data-name="model"]').all()) await tab.click();
  const models = await op.locator('.model-box').allTextContents();
  for (const tab of await op.locator('button.tablinks[data-name="example"]').all()) await tab.click();
  return { models, examples };
}

/** Selects each option of a media type selector in turn (once, without one), calling `look` each time. */
async function eachMediaType(select: Locator, look: (type: string) => Promise<void>): Promise<void> {
  const types = (await select.count()) > 0 ? await select.first().locator('option').allTextContents() : [];
  if (types.length === 0) return look('');
  for (const type of types) {
    await select.first().selectOption(type);
    await look(type);
  }
}

describe('HTML API reference in a browser: Authorize with a Bearer token', function () {
  this.timeout(120_000);
  let server: RunningServer | undefined;
  let browser: Browser | undefined;

  before(async function () {
    requireOrSkip(this, existsSync(CHROMIUM), CHROMIUM, 'apt-get install -y chromium');
    server = await startServer(securityFixture('books.api'), ['--data', tempDir('apidsl-docs-browser-')]);
    const created = await as(await token({ sub: 'root', roles: ['ROLE_ADMIN'] }), server.url, 'POST', '/secrets', {
      body: { text: 'launch codes' },
    });
    expect(created.status, created.text).to.equal(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('a guarded operation answers 401 before Authorize and 200 after, with the token sent as Bearer', async () => {
    const base = server!.url;
    expect((await request(base, 'GET', '/secrets/1')).status).to.equal(401);
    const admin = await token({ sub: 'root', roles: ['ROLE_ADMIN'] });
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    const sent: (string | undefined)[] = [];
    page.on('request', (r) => {
      if (r.url() === `${base}/secrets/1`) sent.push(r.headers().authorization);
    });
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary', { timeout: 60_000 });

    const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/secrets/{id}"]') });
    const tryIt = async (): Promise<string> => {
      await operation.locator('input[placeholder="id"]').fill('1');
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table td.response-col_status:not(.col_header)');
      await status.waitFor({ timeout: 30_000 });
      return (await status.textContent())!.trim();
    };
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    expect(await tryIt()).to.match(/^401/);

    await page.click('.auth-wrapper button.authorize');
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('input').first().fill(admin);
    await dialog.locator('button[type=submit]').click();
    await dialog.locator('button.btn-done').click();
    await operation
      .locator('.btn-clear')
      .click()
      .catch(() => undefined);
    expect(await tryIt()).to.match(/^200/);
    expect(sent).to.deep.equal([undefined, `Bearer ${admin}`]);
    const body = await operation.locator('.live-responses-table .response-col_description pre').first().textContent();
    expect(body).to.contain('launch codes');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/docs-html-authorized.png`, fullPage: true });
    await page.close();
  });
});
