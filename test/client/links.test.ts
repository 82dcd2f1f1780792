/**
 * `iterate()` follows `view.next` however the API writes its links (urlGenerationStrategy, fixture http/urls.api):
 * absolute URLs, network paths (`//host/books?page=2`) and paths relative to the page (`topics?page=2`), on the
 * suite's store. A TypeScript program using the generated client, compiled under `strict`, walks each collection
 * one item per page.
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

const FIXTURE = fromRoot('test/fixtures/http/urls.api');

const PROGRAM = `import { createClient } from './sdk/index.js';

export async function walk(baseUrl: string) {
  const api = createClient({ baseUrl });
  for (const name of ['a', 'b', 'c']) {
    await api.authors.create({ name });
    await api.books.create({ title: name });
    await api.topics.create({ name });
  }
  const seen = async (items: AsyncIterable<{ name?: string; title?: string }>) => {
    const names: (string | undefined)[] = [];
    for await (const item of items) names.push(item.name ?? item.title);
    return names.sort();
  };
  return { authors: await seen(api.authors.iterate()), books: await seen(api.books.iterate()), topics: await seen(api.topics.iterate()) };
}
`;

describe('apidsl client: iterate() follows next links in every URL style (fixture http/urls.api)', function () {
  this.timeout(300_000);
  const server = useServer(FIXTURE);

  it('walks absolute URLs, network paths and relative paths to every item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-links-'));
    mkdirSync(join(dir, 'sdk'));
    for (const { path, text } of clientPackage(await loadApi(FIXTURE))) writeFileSync(join(dir, 'sdk', path), text);
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compile([join(dir, 'program.ts')], dir).all).to.deep.equal([]);
    const program = (await import(pathToFileURL(join(dir, 'program.js')).href)) as {
      walk(baseUrl: string): Promise<Record<string, string[]>>;
    };
    const all = ['a', 'b', 'c'];
    expect(await program.walk(server.url)).to.deep.equal({ authors: all, books: all, topics: all });
  });
});
