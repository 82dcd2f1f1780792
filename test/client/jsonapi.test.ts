/**
 * A TypeScript program using generated clients in JSON:API, compiled under `strict` and run against `apidsl serve`
 * (on the suite's store): an API serving JSON:API only (client/jsonapi.api) and one serving JSON-LD, plain JSON
 * and JSON:API (client/formats.api) whose client is told `format: 'jsonapi'`. Each runs CRUD (a relation and a
 * to-many relation as IRIs, PATCH in JSON:API), a 422 read as typed violations and a page walk with `iterate()`;
 * the second API is also read in its default JSON-LD and in plain JSON.
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

/** A JSON:API client: of the API serving only JSON:API (its default), or of the other one, told so. */
const jsonApi = (api: 'catalog' | 'formats', baseUrl: string): ApiClient =>
  api === 'catalog' ? catalog({ baseUrl, fetch: recording }) : formats({ baseUrl, format: 'jsonapi', fetch: recording });

export async function crud(api: 'catalog' | 'formats', baseUrl: string) {
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
}

let program: Program;

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

    if (api === 'formats')
      it('speaks JSON-LD unless told, and plain JSON when told (pages walked by number)', async () => {
        const r = await program.otherFormats(server.url);
        expect(r).to.deep.equal({ ld: true, json: true, plainPage: 2, walked: 7, total: 7 });
      });
  });
}
