/**
 * `GET /sdk.tgz`: absent unless `config { client { serve: true } }`; with it, revalidated by its ETag, and built
 * anew when `serve --watch` reloads a changed file.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startServer, useServer, type RunningServer } from '../http/harness.js';
import { fromRoot } from '../support/paths.js';

describe('GET /sdk.tgz', function () {
  this.timeout(120_000);

  describe('without client.serve (examples/bookstore.api)', () => {
    const server = useServer(fromRoot('examples/bookstore.api'));
    it('answers 404', async () => {
      expect((await fetch(`${server.url}/sdk.tgz`)).status).to.equal(404);
    });
  });

  describe('with client.serve (fixture client/shop.api)', () => {
    const server = useServer(fromRoot('test/fixtures/client/shop.api'));
    it('answers the same bytes with an ETag, and 304 to a request that has them', async () => {
      const first = await fetch(`${server.url}/sdk.tgz`);
      const etag = first.headers.get('etag')!;
      expect(etag).to.match(/^"[\w-]+"$/);
      const again = await fetch(`${server.url}/sdk.tgz`);
      expect(Buffer.from(await again.arrayBuffer())).to.deep.equal(Buffer.from(await first.arrayBuffer()));
      const revalidated = await fetch(`${server.url}/sdk.tgz`, { headers: { 'If-None-Match': etag } });
      expect(revalidated.status).to.equal(304);
    });
  });

  describe('under serve --watch', () => {
    const api = (resources: string) =>
      `config { client: { serve: true } }\n${resources
        .split(' ')
        .map((r) => `resource ${r} {\n  properties { id: int, name: string }\n  operations { GetCollection, Get }\n}\n`)
        .join('')}`;
    let server: RunningServer;
    let file: string;
    before(async () => {
      file = join(mkdtempSync(join(tmpdir(), 'apidsl-sdk-watch-')), 'api.api');
      writeFileSync(file, api('Book'));
      server = await startServer(file, ['--watch']);
    });
    after(async () => {
      await server?.stop();
    });

    /** The ETag and the unpacked text (tar headers and all) of the package served now. */
    const sdk = async (headers: Record<string, string> = {}) => {
      const r = await fetch(`${server.url}/sdk.tgz`, { headers });
      const text = r.status === 200 ? gunzipSync(Buffer.from(await r.arrayBuffer())).toString('utf8') : '';
      return { status: r.status, etag: r.headers.get('etag'), text };
    };

    it('serves the package of the changed file once it is reloaded; the old ETag no longer matches', async () => {
      const before = await sdk();
      expect(before.text).to.include('"books"').and.not.include('"authors"');
      writeFileSync(file, api('Book Author'));
      // Polled until the reload (the test's own timeout bounds the wait).
      let after = await sdk();
      while (!after.text.includes('"authors"')) {
        await new Promise((r) => setTimeout(r, 200));
        after = await sdk();
      }
      expect(after.etag).to.not.equal(before.etag);
      const revalidated = await sdk({ 'If-None-Match': before.etag! });
      expect(revalidated.status).to.equal(200);
    });
  });
});
