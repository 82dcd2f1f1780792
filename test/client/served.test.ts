/**
 * A TypeScript program using a generated client, compiled under `strict` and run against `apidsl serve` (on the
 * suite's store: APIDSL_TEST_STORE=mongodb runs it on MongoDB): CRUD, the page, partial and cursor modes, a 422
 * read as typed violations, a 401, and a Mercure update. The program's package is the one the server answers at
 * `GET /sdk.tgz`.
 */
import { expect } from 'chai';
import { EventSource } from 'eventsource';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clientPackage } from '../../server/client/package.js';
import { loadApi } from '../../server/load-api.js';
import { useServer } from '../http/harness.js';
import { token } from '../http/security-helpers.js';
import { fromRoot } from '../support/paths.js';
import { compile } from '../support/typescript.js';

const FIXTURE = fromRoot('test/fixtures/client/shop.api');

/** The user's program: each export is one scenario, returning what it saw. */
const PROGRAM = `import { createClient, type ClientOptions, type Iri } from './sdk/index.js';

const client = (baseUrl: string, token?: string, source?: ClientOptions['EventSource']) =>
  createClient({ baseUrl, token: async () => token, EventSource: source });

export async function crud(baseUrl: string, admin: string) {
  const shop = client(baseUrl);
  const category = await shop.categories.create({ name: 'Lamps' });
  if (category.error) throw new Error(category.error.detail);
  const created = await shop.products.create({ name: 'Desk lamp', price: 30, status: 'active', category: category.data['@id'] });
  if (created.error) throw new Error(created.error.detail);
  const id = created.data.id;
  const read = await shop.products.get(id);
  const embedded = typeof read.data?.category === 'object' ? read.data.category.name : undefined;
  const updated = await shop.products.update(id, { price: 25 });
  const found = await shop.products.list({ name: 'Desk', price: { lte: 25 } });
  const anonymous = await shop.products.delete(id);
  const deleted = await client(baseUrl, admin).products.delete(id);
  const gone = await shop.products.get(id);
  return {
    iri: created.data['@id'],
    createdAt: typeof created.data.createdAt,
    embedded,
    price: updated.data?.price,
    found: found.data?.members.map((p) => p.name),
    anonymous: anonymous.error?.status,
    deleted: deleted.error === undefined,
    gone: gone.error?.status,
  };
}

export async function invalid(baseUrl: string) {
  const result = await client(baseUrl).products.create({ name: 'x'.repeat(41), price: -1 });
  if (result.error?.status !== 422) return { status: result.error?.status };
  const paths: ('name' | 'price' | 'status' | 'category' | '')[] = result.error.violations.map((v) => v.propertyPath);
  return { status: 422, paths: paths.sort() };
}

export async function pages(baseUrl: string) {
  const shop = client(baseUrl);
  const products: Iri<'Product'>[] = [];
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    const p = await shop.products.create({ name, price: 1 });
    if (p.data) products.push(p.data['@id']);
    await shop.events.create({ name });
    await shop.reviews.create({ rating: 4, product: products[0] });
  }
  const first = await shop.products.list({ order: { id: 'asc' }, itemsPerPage: 2 });
  const partial = await shop.reviews.list();
  const cursor = await shop.events.list();
  const all = async <T>(items: AsyncIterable<T>) => {
    const seen: T[] = [];
    for await (const item of items) seen.push(item);
    return seen;
  };
  return {
    page: { size: first.data?.members.length, total: first.data?.totalItems, next: first.data?.next !== undefined },
    partial: { size: partial.data?.members.length, total: partial.data && 'totalItems' in partial.data, next: partial.data?.next !== undefined },
    cursor: { size: cursor.data?.members.length, next: cursor.data?.next !== undefined },
    products: (await all(shop.products.iterate({ order: { id: 'asc' }, itemsPerPage: 2 }))).length,
    reviews: (await all(shop.reviews.iterate())).length,
    events: (await all(shop.events.iterate())).map((e) => e.name),
  };
}

export async function update(baseUrl: string, source: ClientOptions['EventSource']) {
  const shop = client(baseUrl, undefined, source);
  let received!: (r: { name?: string; id: string }) => void;
  const update = new Promise<{ name?: string; id: string }>((resolve) => (received = resolve));
  const stop = await shop.products.subscribe('/products/{id}', (data, event) =>
    received({ name: 'name' in data ? data.name : undefined, id: event.id }),
  );
  await shop.products.create({ name: 'Live lamp', price: 1 });
  const seen = await update;
  stop();
  return seen;
}

export async function queryAndBulk(baseUrl: string) {
  const shop = client(baseUrl);
  const made = await shop.products.bulk([{ name: 'q-one', price: 1 }, { name: 'q-two', price: 2 }, { name: 'q-three' }]);
  if (made.error) throw new Error(made.error.detail);
  const first = await shop.products.query({ name: 'q-', itemsPerPage: 2 });
  const all: string[] = [];
  for await (const p of shop.products.query.iterate({ name: 'q-', itemsPerPage: 1 })) all.push(p.name);
  const bad = await shop.products.bulk([{ name: 'fine' }, { name: 'x'.repeat(41) }]);
  const paths: (\`[\${number}]\` | \`[\${number}].\${'name' | 'price' | 'status' | 'category'}\` | '')[] =
    bad.error?.status === 422 ? bad.error.violations.map((v) => v.propertyPath) : [];
  return {
    created: made.data.members.map((p) => p.name),
    page: { size: first.data?.members.length, total: first.data?.totalItems, next: first.data?.next !== undefined },
    all: all.sort(),
    status: bad.error?.status,
    paths,
  };
}

export async function stringToken(baseUrl: string, admin: string) {
  const created = await client(baseUrl).products.create({ name: 'Doomed lamp' });
  if (created.error) throw new Error(created.error.detail);
  const forged = await createClient({ baseUrl, token: 'not-a-jwt' }).products.delete(created.data.id);
  const deleted = await createClient({ baseUrl, token: admin }).products.delete(created.data.id);
  return { forged: forged.error?.status, deleted: deleted.error === undefined };
}

/** The updates of products, from the subscription's start (or after \`lastEventId\`), one at a time. */
function feed(shop: ReturnType<typeof client>, lastEventId?: string) {
  const queue: { name?: string; id: string }[] = [];
  let wake = () => {};
  const started = shop.products.subscribe(
    '/products/{id}',
    (data, event) => {
      queue.push({ name: 'name' in data ? data.name : undefined, id: event.id });
      wake();
    },
    { lastEventId },
  );
  const next = async () => {
    while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return queue.shift()!;
  };
  return { started, next };
}

export async function resume(baseUrl: string, source: ClientOptions['EventSource']) {
  const shop = client(baseUrl, undefined, source);
  const live = feed(shop);
  const stop = await live.started;
  await shop.products.create({ name: 'Seen lamp' });
  const seen = await live.next();
  stop();
  await shop.products.create({ name: 'Missed lamp' });
  const resumed = feed(shop, seen.id);
  const stopResumed = await resumed.started;
  const missed = await resumed.next();
  stopResumed();
  return { seen: seen.name, missed: missed.name };
}
`;

interface Program {
  crud(baseUrl: string, admin: string): Promise<Record<string, unknown>>;
  invalid(baseUrl: string): Promise<Record<string, unknown>>;
  pages(baseUrl: string): Promise<Record<string, unknown>>;
  update(baseUrl: string, source: unknown): Promise<{ name?: string; id: string }>;
  queryAndBulk(baseUrl: string): Promise<Record<string, unknown>>;
  stringToken(baseUrl: string, admin: string): Promise<Record<string, unknown>>;
  resume(baseUrl: string, source: unknown): Promise<Record<string, unknown>>;
}

describe('apidsl client: a TypeScript program against a served API (fixture client/shop.api)', function () {
  this.timeout(300_000);
  const server = useServer(FIXTURE);
  let program: Program;

  before(async () => {
    // The package as `npm install <url>/sdk.tgz` gets it: the tarball the server answers, unpacked by tar.
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-served-'));
    const sdk = await fetch(`${server.url}/sdk.tgz`);
    expect(sdk.status).to.equal(200);
    expect(sdk.headers.get('content-type')).to.equal('application/gzip');
    writeFileSync(join(dir, 'sdk.tgz'), Buffer.from(await sdk.arrayBuffer()));
    execFileSync('tar', ['-xzf', 'sdk.tgz'], { cwd: dir });
    renameSync(join(dir, 'package'), join(dir, 'sdk'));
    const expected = clientPackage(await loadApi(FIXTURE));
    expect(readdirSync(join(dir, 'sdk')).sort()).to.deep.equal(expected.map((f) => f.path).sort());
    for (const { path, text } of expected) expect(readFileSync(join(dir, 'sdk', path), 'utf8')).to.equal(text);
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compile([join(dir, 'program.ts')], dir).all).to.deep.equal([]);
    program = (await import(pathToFileURL(join(dir, 'program.js')).href)) as Program;
  });

  it('creates, reads (a relation embedded), updates, lists by filter and deletes; anonymous delete is a 401', async () => {
    const admin = await token({ sub: 'ada', roles: ['ROLE_ADMIN'] });
    const r = await program.crud(server.url, admin);
    expect(r).to.deep.include({ createdAt: 'string', embedded: 'Lamps', price: 25, found: ['Desk lamp'] });
    expect(r).to.deep.include({ anonymous: 401, deleted: true, gone: 404 });
    expect(r.iri).to.match(/^\/products\/\S+$/);
  });

  it('reads a 422 as violations whose paths are the input keys', async () => {
    expect(await program.invalid(server.url)).to.deep.equal({ status: 422, paths: ['name', 'price'] });
  });

  it('pages in the page, partial and cursor modes, and iterates every item of each', async () => {
    const r = await program.pages(server.url);
    expect(r.page).to.deep.equal({ size: 2, total: 5, next: true });
    expect(r.partial).to.deep.equal({ size: 2, total: false, next: true });
    expect(r.cursor).to.deep.equal({ size: 2, next: true });
    expect(r).to.deep.include({ products: 5, reviews: 5, events: ['e', 'd', 'c', 'b', 'a'] });
  });

  it('receives a Mercure update of a created item through the hub the API announces', async () => {
    const r = await program.update(server.url, EventSource);
    expect(r.name).to.equal('Live lamp');
    expect(r.id).to.be.a('string').and.not.equal('');
  });

  it('creates a list in one bulk POST, reads a QUERY page and iterates every page of it, and reads a bulk 422', async () => {
    const r = await program.queryAndBulk(server.url);
    expect(r.created).to.deep.equal(['q-one', 'q-two', 'q-three']);
    expect(r.page).to.deep.equal({ size: 2, total: 3, next: true });
    expect(r.all).to.deep.equal(['q-one', 'q-three', 'q-two']);
    expect(r).to.deep.include({ status: 422, paths: ['[1].name'] });
  });

  it('sends a token given as a string: a forged one is a 401, an admin deletes', async () => {
    const admin = await token({ sub: 'ada', roles: ['ROLE_ADMIN'] });
    expect(await program.stringToken(server.url, admin)).to.deep.equal({ forged: 401, deleted: true });
  });

  it('resumes a subscription after the last event seen, receiving the update it missed', async () => {
    expect(await program.resume(server.url, EventSource)).to.deep.equal({ seen: 'Seen lamp', missed: 'Missed lamp' });
  });
});
