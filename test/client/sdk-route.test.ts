/** `GET /sdk.tgz`: absent unless `config { client { serve: true } }`; with it, revalidated by its ETag. */
import { expect } from 'chai';
import { useServer } from '../http/harness.js';
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
});
