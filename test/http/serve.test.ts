/**
 * The `apidsl serve` lifecycle (docs/cli.md): readiness (GET / answers once the URL is printed),
 * SIGTERM → exit 0, and a file with errors refused with exit code 1 and its diagnostics.
 */
import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bookstore, JSONLD, request, serveExpectingExit, startServer, tempDir } from './harness.js';

describe('HTTP serve: lifecycle', function () {
  this.timeout(40_000);

  it('prints its URL, then GET / answers the Hydra entrypoint; SIGTERM exits 0', async () => {
    const server = await startServer(bookstore());
    try {
      expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      const r = await request(server.url, 'GET', '/');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal(JSONLD);
      expect(r.json).to.deep.equal({
        '@context': '/contexts/Entrypoint',
        '@id': '/',
        '@type': 'Entrypoint',
        book: '/books',
        event: '/events',
        place: '/geo/places',
      });
    } finally {
      expect(await server.stop(), server.output()).to.equal(0);
    }
  });

  it('a file with errors: exit code 1, diagnostics printed, no URL', async () => {
    const dir = tempDir();
    const file = join(dir, 'invalid.api');
    writeFileSync(file, 'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int }\n}\n');
    const r = await serveExpectingExit(file);
    rmSync(dir, { recursive: true, force: true });
    expect(r.url, `the server started: ${r.output}`).to.equal(undefined);
    expect(r.code, r.output).to.equal(1);
    expect(r.output).to.include('invalid.api');
    expect(r.output).to.include('paginationItemPerPage');
  });
});
