/**
 * `iterate()` walks every page however the API writes it, on the suite's store: `view.next` in each
 * urlGenerationStrategy of fixture http/urls.api (absolute URLs, network paths `//host/books?page=2`, paths relative
 * to the page `topics?page=2`), and the bare arrays of an API serving plain JSON only (fixture client/plain.api),
 * by page number. A TypeScript program using the generated clients, compiled under `strict`, walks each collection.
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

const URLS = fromRoot('test/fixtures/http/urls.api');
const PLAIN = fromRoot('test/fixtures/client/plain.api');

const PROGRAM = `import { createClient } from './urls/index.js';
import { createClient as createPlain } from './plain/index.js';

const sorted = async (items: AsyncIterable<{ name?: string; title?: string }>) => {
  const names: (string | undefined)[] = [];
  for await (const item of items) names.push(item.name ?? item.title);
  return names.sort();
};

export async function links(baseUrl: string) {
  const api = createClient({ baseUrl });
  for (const name of ['a', 'b', 'c']) {
    await api.authors.create({ name });
    await api.books.create({ title: name });
    await api.topics.create({ name });
  }
  return { authors: await sorted(api.authors.iterate()), books: await sorted(api.books.iterate()), topics: await sorted(api.topics.iterate()) };
}

export async function plain(baseUrl: string) {
  const api = createPlain({ baseUrl });
  for (const title of ['a', 'b', 'c', 'd', 'e']) await api.books.create({ title });
  const first = await api.books.list();
  return {
    size: first.data?.members.length,
    total: first.data !== undefined && 'totalItems' in first.data,
    all: await sorted(api.books.iterate()),
    fromPage2: await sorted(api.books.iterate({ page: 2 })),
  };
}
`;

interface Program {
  links(baseUrl: string): Promise<Record<string, string[]>>;
  plain(baseUrl: string): Promise<Record<string, unknown>>;
}

describe('apidsl client: iterate() walks every page however the API writes it', function () {
  this.timeout(300_000);
  let program: Program;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-links-'));
    for (const [name, file] of [
      ['urls', URLS],
      ['plain', PLAIN],
    ]) {
      mkdirSync(join(dir, name));
      for (const { path, text } of clientPackage(await loadApi(file))) writeFileSync(join(dir, name, path), text);
    }
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compile([join(dir, 'program.ts')], dir).all).to.deep.equal([]);
    program = (await import(pathToFileURL(join(dir, 'program.js')).href)) as Program;
  });

  describe('links in every URL style (fixture http/urls.api)', () => {
    const server = useServer(URLS);
    it('follows absolute URLs, network paths and relative paths to every item', async () => {
      const all = ['a', 'b', 'c'];
      expect(await program.links(server.url)).to.deep.equal({ authors: all, books: all, topics: all });
    });
  });

  describe('plain JSON pages, which carry no link (fixture client/plain.api)', () => {
    const server = useServer(PLAIN);
    it('reads a page without a total and walks the pages by number to every item', async () => {
      expect(await program.plain(server.url)).to.deep.equal({
        size: 2,
        total: false,
        all: ['a', 'b', 'c', 'd', 'e'],
        fromPage2: ['c', 'd', 'e'],
      });
    });
  });
});
