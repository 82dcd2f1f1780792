/**
 * The types of a generated client, proved by the TypeScript compiler: a program using the shop's client (and a
 * client of an API under row-level scopes) as intended compiles under `strict`, and each mistake below is a compile
 * error of its own file, with the code TypeScript gives that mistake.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientPackage } from '../../server/client/package.js';
import { loadApi } from '../../server/load-api.js';
import { fromRoot } from '../support/paths.js';
import { compile, type Compiled } from '../support/typescript.js';

const PRELUDE = `import { createClient, type Iri } from './sdk/index.js';
import { createClient as createScoped } from './scoped/index.js';
import { createClient as createPlain } from './plain/index.js';
import { createClient as createCatalog } from './catalog/index.js';
import { createClient as createFormats } from './formats/index.js';
const scoped = createScoped({ baseUrl: 'http://localhost' });
const plain = createPlain({ baseUrl: 'http://localhost' });
const shop = createClient({ baseUrl: 'http://localhost', token: async () => 'a-token' });
declare const productIri: Iri<'Product'>;
declare const categoryIri: Iri<'Category'>;
`;

/** Correct uses: every one of them must compile. */
const VALID = `${PRELUDE}
export async function use(): Promise<void> {
  const page = await shop.products.list({ name: 'lamp', order: { price: 'desc' }, price: { gte: 10 }, page: 2, itemsPerPage: 5 });
  if (page.error) {
    const status: 0 | 400 | 401 | 406 | 500 | 503 = page.error.status;
    void status;
    return;
  }
  const total: number = page.data.totalItems;
  for (const p of page.data.members) void [p.name, p.price, p.status, p.createdAt, p['@id'], total];
  const created = await shop.products.create({ name: 'Lamp', price: 10, status: 'active', category: categoryIri });
  if (created.error?.status === 422)
    for (const v of created.error.violations) {
      const path: 'name' | 'price' | 'status' | 'category' | '' = v.propertyPath;
      void path;
    }
  if (created.data) {
    const category = created.data.category;
    if (typeof category === 'object') void category.name;
  }
  await shop.products.update(1, { price: null });
  await shop.products.update(1, {});
  const queried = await shop.products.query({ name: ['lamp', 'desk'], itemsPerPage: 2 });
  if (queried.data) void queried.data.totalItems;
  const bulk = await shop.products.bulk([{ name: 'a' }, { name: 'b', status: 'draft' }]);
  if (bulk.data) for (const p of bulk.data.members) void p.id;
  if (bulk.error?.status === 422)
    for (const v of bulk.error.violations) {
      const path: \`[\${number}]\` | \`[\${number}].\${'name' | 'price' | 'status' | 'category'}\` | '' = v.propertyPath;
      void path;
    }
  // Row-level scopes: a write outside the write scope is a 403, an item outside the read scope a 404.
  const note = await scoped.notes.create({ title: 'mine' });
  if (note.error?.status === 403) void note.error.detail;
  const read = await scoped.notes.get(1);
  if (read.error?.status === 404) void read.error.detail;
  const patched = await scoped.notes.update(1, { title: 'changed' });
  if (patched.error?.status === 404 || patched.error?.status === 403) void patched.error.detail;
  const notes = await scoped.notes.list();
  if (notes.data) void notes.data.totalItems;
  const removed = await shop.products.delete(1);
  if (removed.error?.status === 401 || removed.error?.status === 403) void removed.error.detail;
  const reviews = await shop.reviews.list({ page: 1 });
  if (reviews.data) void reviews.data.next;
  for await (const e of shop.events.iterate({ order: { id: 'desc' } })) void e.name;
  await shop.reviews.create({ rating: 5, product: productIri });
  const stop = await shop.products.subscribe('/products/{id}', (data) => void data['@id']);
  stop();
  // Formats: JSON:API items as the other formats type them; plain JSON items without \`@id\`, pages without a total.
  const jsonApi = await createFormats({ baseUrl: 'http://localhost', format: 'jsonapi' }).items.list();
  if (jsonApi.data) void [jsonApi.data.totalItems, jsonApi.data.members[0]['@id'], jsonApi.data.members[0].id];
  const catalog = await createCatalog({ baseUrl: 'http://localhost' }).items.get(1);
  if (catalog.data) void [catalog.data['@id'], catalog.data.category];
  // JSON:API reads: \`include\` swaps a relation's IRI for its item (or keeps the IRI), \`fields\` keeps named members.
  const catalogClient = createCatalog({ baseUrl: 'http://localhost' });
  const sparse = await catalogClient.items.get(1, { include: ['category'], fields: { Item: ['name', 'category'], Category: ['name'] } });
  if (sparse.data) {
    const name: string = sparse.data.name;
    const id: number = sparse.data.id;
    const category = sparse.data.category;
    const categoryName: string | undefined = typeof category === 'object' ? category.name : undefined;
    void [name, id, categoryName, sparse.data['@id']];
  }
  const withAlso = await catalogClient.items.query({ name: 'lamp' }, { include: ['also'], signal: undefined });
  if (withAlso.data)
    for (const item of withAlso.data.members) for (const c of item.also ?? []) void (typeof c === 'string' ? c : c.name);
  for await (const item of catalogClient.items.iterate({}, { fields: { Item: ['name'] } })) void item.name;
  const told = await createFormats({ baseUrl: 'http://localhost', format: 'jsonapi' }).items.list({}, { include: ['also'] });
  if (told.data) void told.data.members[0].also;
  const plainItems = await createFormats({ baseUrl: 'http://localhost', format: 'json' }).items.list();
  if (plainItems.data) for (const item of plainItems.data.members) void [item.id, item.name];
}
`;

/** Mistakes: each must be a compile error, with this code. */
const MISTAKES: Record<string, { code: number; source: string }> = {
  'a field the input does not have': { code: 2353, source: `shop.products.create({ name: 'Lamp', colour: 'red' });` },
  'a required input left out': { code: 2345, source: `shop.products.create({ price: 10 });` },
  'a read-only property written': { code: 2353, source: `shop.products.create({ name: 'Lamp', createdAt: 'now' });` },
  'a filter the operation does not declare': { code: 2353, source: `shop.products.list({ status: 'active' });` },
  'a value outside the enum': { code: 2322, source: `shop.products.create({ name: 'Lamp', status: 'sold' });` },
  'an order on a property the filter does not sort': {
    code: 2353,
    source: `shop.products.list({ order: { name: 'asc' } });`,
  },
  'a page number under cursor pagination': { code: 2353, source: `shop.events.list({ page: 2 });` },
  'a page size where the client may not choose it': {
    code: 2353,
    source: `shop.reviews.list({ itemsPerPage: 5 });`,
  },
  'a wrong type for an output field': {
    code: 2322,
    source: `shop.products.get(1).then((r) => { const n: number | undefined = r.data?.name; return n; });`,
  },
  'an IRI of another resource': { code: 2322, source: `shop.reviews.create({ rating: 1, product: categoryIri });` },
  'a field the output does not have': {
    code: 2339,
    source: `shop.products.get(1).then((r) => r.data?.colour);`,
  },
  'a total under partial pagination': {
    code: 2339,
    source: `shop.reviews.list().then((r) => r.data?.totalItems);`,
  },
  'a violation path the input does not have': {
    code: 2367,
    source: `shop.products.create({ name: 'x' }).then((r) => r.error?.status === 422 && r.error.violations[0].propertyPath === 'colour');`,
  },
  'a string where the identifier is a number': { code: 2345, source: `shop.products.get('one');` },
  'a status the operation cannot answer': {
    code: 2367,
    source: `shop.products.get(1).then((r) => r.error?.status === 422);`,
  },
  'a read-only property in a patch': { code: 2353, source: `shop.products.update(1, { createdAt: 'now' });` },
  'a QUERY criterion the operation does not declare': {
    code: 2353,
    source: `shop.products.query({ price: { gte: 1 } });`,
  },
  'a required input left out of a bulk list': {
    code: 2769,
    source: `shop.products.bulk([{ name: 'a' }, { price: 1 }]);`,
  },
  'a total from the page of an API serving plain JSON only': {
    code: 2339,
    source: `plain.books.list().then((r) => r.data?.totalItems);`,
  },
  'a format the API does not serve': {
    code: 2322,
    source: `createCatalog({ baseUrl: 'http://localhost', format: 'jsonld' });`,
  },
  'an @id on an item read in plain JSON': {
    code: 7053,
    source: `createFormats({ baseUrl: 'http://localhost', format: 'json' }).items.get(1).then((r) => r.data?.['@id']);`,
  },
  'a total from a plain JSON page of an API that also serves JSON-LD': {
    code: 2339,
    source: `createFormats({ baseUrl: 'http://localhost', format: 'json' }).items.list().then((r) => r.data?.totalItems);`,
  },
  'an include path that is no relation the operation shows': {
    code: 2322,
    source: `createCatalog({ baseUrl: 'http://localhost' }).items.get(1, { include: ['tags'] });`,
  },
  'a field the type does not show': {
    code: 2322,
    source: `createCatalog({ baseUrl: 'http://localhost' }).items.list({}, { fields: { Item: ['colour'] } });`,
  },
  'a field of a type the read cannot reach': {
    code: 2353,
    source: `createCatalog({ baseUrl: 'http://localhost' }).categories.get(1, { fields: { Item: ['name'] } });`,
  },
  'a member fields left out': {
    code: 2339,
    source: `createCatalog({ baseUrl: 'http://localhost' }).items.get(1, { fields: { Item: ['name'] } }).then((r) => r.data?.price);`,
  },
  'include in a format other than JSON:API': {
    code: 2322,
    source: `createFormats({ baseUrl: 'http://localhost' }).items.get(1, { include: ['category'] });`,
  },
  'a 403 from a read scope alone': {
    code: 2367,
    source: `scoped.notes.get(1).then((r) => r.error?.status === 403);`,
  },
};

describe('apidsl client: the types (fixtures client/shop.api, plain.api, jsonapi.api, formats.api, http/scopes-writes.api)', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-types-'));
  let compiled: Compiled;

  before(async () => {
    const sdk = join(dir, 'sdk');
    mkdirSync(sdk);
    for (const { path, text } of clientPackage(await loadApi(fromRoot('test/fixtures/client/shop.api'))))
      writeFileSync(join(sdk, path), text);
    for (const [name, fixture] of [
      ['scoped', 'http/scopes-writes.api'],
      ['plain', 'client/plain.api'],
      ['catalog', 'client/jsonapi.api'],
      ['formats', 'client/formats.api'],
    ]) {
      mkdirSync(join(dir, name));
      for (const { path, text } of clientPackage(await loadApi(fromRoot(`test/fixtures/${fixture}`))))
        writeFileSync(join(dir, name, path), text);
    }
    writeFileSync(join(dir, 'valid.ts'), VALID);
    const roots = [join(dir, 'valid.ts')];
    Object.values(MISTAKES).forEach(({ source }, i) => {
      roots.push(join(dir, `mistake-${i}.ts`));
      writeFileSync(roots.at(-1)!, `${PRELUDE}${source}\n`);
    });
    compiled = compile(roots);
  });

  it('compiles a program that uses the client as intended', () => {
    expect(compiled.of(join(dir, 'valid.ts'))).to.deep.equal([]);
  });

  Object.entries(MISTAKES).forEach(([mistake, { code }], i) =>
    it(`refuses ${mistake} (TS${code})`, () => {
      const found = compiled.of(join(dir, `mistake-${i}.ts`));
      expect(found.map((d) => d.code)).to.deep.equal([code], JSON.stringify(found));
    }),
  );
});
