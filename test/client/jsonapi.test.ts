/**
 * A TypeScript program using generated clients in JSON:API, compiled under `strict` and run against `apidsl serve`
 * (on the suite's store): an API serving JSON:API only (client/jsonapi.api) and one serving JSON-LD, plain JSON
 * and JSON:API (client/formats.api) whose client is told `format: 'jsonapi'`. Each runs CRUD (a relation and a
 * to-many relation as IRIs, PATCH in JSON:API), a 422 read as typed violations and a page walk with `iterate()`;
 * the second API is also read in its default JSON-LD and in plain JSON. The first also takes a bulk list (as
 * JSON:API documents), a QUERY (its criteria as JSON) and reads with `include` and `fields`.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clientPackage } from '../../server/client/package.js';
import { loadApi } from '../../server/load-api.js';
import { useServer } from '../http/harness.js';
import { fromRoot } from '../support/paths.js';
import { compile } from '../support/typescript.js';

const FIXTURES = { catalog: 'test/fixtures/client/jsonapi.api', formats: 'test/fixtures/client/formats.api' };

/** The user's program: each export is one scenario, returning what it saw. */
const PROGRAM = `import { createClient as catalog, type ApiClient } from './catalog/index.js';
import { createClient as formats } from './formats/index.js';

/** The media types of every request body sent and response read, as "sent > read". */
export const seen = new Set<string>();
const recording: typeof fetch = async (url, init) => {
  const response = await fetch(url, init);
  const headers = new Headers(init?.headers);
  seen.add(\`\${headers.get('content-type') ?? '-'} > \${response.headers.get('content-type')}\`);
  return response;
};

/**
 * A JSON:API client: of the API serving only JSON:API (its default), or of the other one, told so. The catalog's
 * calls are a superset of the others', but each package declares its own generic reads: the scenarios below use the
 * calls both have, typed as the catalog's.
 */
const jsonApi = (api: 'catalog' | 'formats', baseUrl: string): ApiClient =>
  api === 'catalog'
    ? catalog({ baseUrl, fetch: recording })
    : (formats({ baseUrl, format: 'jsonapi', fetch: recording }) as unknown as ApiClient);

export async function crud(api: 'catalog' | 'formats', baseUrl: string) {
  seen.clear();
  const shop = jsonApi(api, baseUrl);
  const category = await shop.categories.create({ name: 'Lamps' });
  if (category.error) throw new Error(category.error.detail);
  const iri = category.data['@id'];
  const input = { name: 'Desk lamp', price: 30, status: 'active', category: iri, also: [iri], tags: ['a'] } as const;
  const created = await shop.items.create({ ...input, tags: [...input.tags], also: [iri] });
  if (created.error) throw new Error(created.error.detail);
  const id: number = created.data.id;
  const read = await shop.items.get(id);
  const updated = await shop.items.update(id, { price: 25, tags: ['b', 'c'], category: null });
  const deleted = await shop.items.delete(id);
  const gone = await shop.items.get(id);
  return {
    iri: created.data['@id'],
    type: created.data['@type'],
    id: read.data?.id === id && created.data['@id'] === \`/items/\${id}\`,
    name: read.data?.name,
    category: read.data?.category === iri,
    also: read.data?.also?.[0] === iri,
    tags: read.data?.tags,
    updated: [updated.data?.price, updated.data?.tags, updated.data?.category],
    deleted: deleted.error === undefined,
    gone: gone.error?.status,
  };
}

export async function invalid(api: 'catalog' | 'formats', baseUrl: string) {
  const result = await jsonApi(api, baseUrl).items.create({ name: 'x'.repeat(41), price: -1, tags: ['a', 'b', 'c'] });
  if (result.error?.status !== 422) return { status: result.error?.status };
  const paths: ('name' | 'price' | 'status' | 'category' | 'also' | 'tags' | \`tags[\${number}]\` | \`also[\${number}]\` | '')[] =
    result.error.violations.map((v) => v.propertyPath);
  return { status: 422, paths: paths.sort(), detail: typeof result.error.detail };
}

export async function pages(api: 'catalog' | 'formats', baseUrl: string) {
  const shop = jsonApi(api, baseUrl);
  for (const name of ['a', 'b', 'c', 'd', 'e']) await shop.items.create({ name });
  const first = await shop.items.list({ order: { id: 'desc' } });
  const names: string[] = [];
  for await (const item of shop.items.iterate({ order: { id: 'asc' } })) names.push(item.name);
  return {
    size: first.data?.members.length,
    total: first.data?.totalItems,
    first: first.data?.members[0].name,
    next: first.data?.next !== undefined,
    names,
  };
}

/** The API serving JSON:API only: a bulk list, a QUERY, and reads with \`include\` and \`fields\`. */
export async function reads(baseUrl: string) {
  const shop = catalog({ baseUrl, fetch: recording });
  const category = await shop.categories.create({ name: 'Lamps' });
  if (category.error) throw new Error(category.error.detail);
  const iri = category.data['@id'];
  const bulk = await shop.items.bulk([{ name: 'b1', price: 3, category: iri, also: [iri] }, { name: 'b2', price: 4 }]);
  if (bulk.error) throw new Error(JSON.stringify(bulk.error));
  const refused = await shop.items.bulk([{ name: 'ok' }, { name: 'x'.repeat(41) }]);
  const violations = refused.error?.status === 422 ? refused.error.violations.map((v) => v.propertyPath) : [];
  const queried = await shop.items.query({ name: 'b1' });
  const id = bulk.data.members[0].id;
  const got = await shop.items.get(id, { include: ['category'], fields: { Item: ['name', 'category'], Category: ['name'] } });
  if (got.error) throw new Error(got.error.detail);
  const included = got.data.category;
  const listed = await shop.items.list({ order: { id: 'desc' } }, { include: ['also'], fields: { Category: ['name'] } });
  const also = listed.data?.members.map((m) => m.also?.map((c) => (typeof c === 'string' ? c : c.name)) ?? []);
  const byQuery = await shop.items.query({ name: 'b1' }, { include: ['category'] });
  const viaQuery = byQuery.data?.members.map((m) => (typeof m.category === 'object' ? m.category.name : m.category));
  const walked: string[] = [];
  for await (const item of shop.items.iterate({ order: { id: 'asc' } }, { fields: { Item: ['name'] } }))
    if (/^b\\d/.test(item.name)) walked.push(\`\${item.name} \${Object.keys(item).sort().join(',')}\`);
  return {
    created: bulk.data.members.map((m) => [m.name, m.price, m.category === iri]),
    violations,
    queried: queried.data?.members.map((m) => m.name),
    got: Object.keys(got.data).sort(),
    included: typeof included === 'object' ? [included['@id'] === iri, Object.keys(included).sort()] : included,
    also,
    viaQuery,
    walked,
  };
}

/** The API serving every format, read in its default JSON-LD and in plain JSON. */
export async function otherFormats(baseUrl: string) {
  const ld = formats({ baseUrl });
  const plain = formats({ baseUrl, format: 'json' });
  const made = await ld.items.create({ name: 'f' });
  const json = await plain.items.create({ name: 'g' });
  const page = await plain.items.list({ order: { id: 'asc' } });
  let walked = 0;
  for await (const item of plain.items.iterate()) walked += item.name === '' ? 0 : 1;
  const counted = await ld.items.list();
  return {
    ld: made.data?.['@id'] !== undefined,
    json: json.data !== undefined && !('@id' in json.data),
    plainPage: page.data?.members.length,
    walked,
    total: counted.data?.totalItems,
  };
}
`;

type Api = 'catalog' | 'formats';
interface Program {
  seen: Set<string>;
  crud(api: Api, baseUrl: string): Promise<Record<string, unknown>>;
  invalid(api: Api, baseUrl: string): Promise<Record<string, unknown>>;
  pages(api: Api, baseUrl: string): Promise<Record<string, unknown>>;
  otherFormats(baseUrl: string): Promise<Record<string, unknown>>;
  reads(baseUrl: string): Promise<Record<string, unknown>>;
}

let program: Program;

describe('apidsl client in JSON:API', function () {
  before(async function () {
    this.timeout(300_000);
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-jsonapi-'));
    for (const [name, fixture] of Object.entries(FIXTURES)) {
      mkdirSync(join(dir, name));
      for (const { path, text } of clientPackage(await loadApi(fromRoot(fixture))))
        writeFileSync(join(dir, name, path), text);
    }
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compile([join(dir, 'program.ts')], dir).all).to.deep.equal([]);
    program = (await import(pathToFileURL(join(dir, 'program.js')).href)) as Program;
  });

  for (const api of ['catalog', 'formats'] as const) {
    describe(`apidsl client in JSON:API: a TypeScript program against a served API (fixture ${FIXTURES[api]})`, function () {
      this.timeout(300_000);
      const server = useServer(fromRoot(FIXTURES[api]));

      it('creates, reads (relations as IRIs, the identifier from the IRI), patches and deletes', async () => {
        const r = await program.crud(api, server.url);
        expect(r).to.deep.include({ type: 'Item', id: true, name: 'Desk lamp', category: true, also: true });
        expect(r).to.deep.include({ tags: ['a'], updated: [25, ['b', 'c'], undefined], deleted: true, gone: 404 });
        expect(r.iri).to.match(/^\/items\/\d+$/);
        // Every body sent and read was JSON:API (a DELETE sends none and reads none).
        expect([...program.seen].sort()).to.deep.equal([
          '- > application/vnd.api+json',
          '- > null',
          'application/vnd.api+json > application/vnd.api+json',
        ]);
      });

      it('reads a JSON:API error document of a 422 as violations whose paths are the input keys', async () => {
        const r = await program.invalid(api, server.url);
        expect(r).to.deep.equal({ status: 422, paths: ['name', 'price', 'tags'], detail: 'string' });
      });

      it('reads a page (its total and next link) and iterates every item of every page', async () => {
        const r = await program.pages(api, server.url);
        expect(r).to.deep.equal({ size: 2, total: 5, first: 'e', next: true, names: ['a', 'b', 'c', 'd', 'e'] });
      });

      if (api === 'catalog')
        it('posts a bulk list as JSON:API documents, a QUERY as JSON, and reads with include and fields', async () => {
          const r = await program.reads(server.url);
          expect(r.created).to.deep.equal([
            ['b1', 3, true],
            ['b2', 4, false],
          ]);
          expect(r.violations).to.deep.equal(['[1].name']);
          expect(r.queried).to.deep.equal(['b1']);
          // fields[Item]=name,category: the other members are left out; the category is its included item.
          expect(r.got).to.deep.equal(['@id', '@type', 'category', 'id', 'name']);
          expect(r.included).to.deep.equal([true, ['@id', '@type', 'id', 'name']]);
          // The newest first: b2 has no `also`, b1's is its included category, with fields[Category]=name.
          expect(r.also).to.deep.equal([[], ['Lamps']]);
          expect(r.viaQuery).to.deep.equal(['Lamps']);
          expect(r.walked).to.deep.equal(['b1 @id,@type,id,name', 'b2 @id,@type,id,name']);
          expect([...program.seen]).to.include.members([
            'application/json > application/vnd.api+json',
            'application/vnd.api+json > application/vnd.api+json',
          ]);
        });

      if (api === 'formats')
        it('speaks JSON-LD unless told, and plain JSON when told (pages walked by number)', async () => {
          const r = await program.otherFormats(server.url);
          expect(r).to.deep.equal({ ld: true, json: true, plainPage: 2, walked: 7, total: 7 });
        });
    });
  }
});
