/**
 * `apidsl serve --watch` (docs/cli.md): a changed file is served without a restart, from the same
 * store; a file with errors is reported and the previous routes stay.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile } from '../support/replace-file.js';
import { request, startServer, type RunningServer } from './harness.js';

const BOOKS =
  'resource Book {\n  properties { id: int, title: string }\n  operations { GetCollection, Post, Get }\n}\n';
const WITH_AUTHORS = `${BOOKS}resource Author {\n  properties { id: int, name: string }\n  operations { GetCollection, Post }\n}\n`;

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('HTTP serve --watch', function () {
  this.timeout(30_000);
  let server: RunningServer;
  let file: string;
  before(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'apidsl-watch-')), 'api.api');
    writeFileSync(file, BOOKS);
    server = await startServer(file, ['--watch']);
    expect((await request(server.url, 'POST', '/books', { body: { title: 'Kept' } })).status).to.equal(201);
  });
  after(async () => {
    await server?.stop();
  });

  it('serves the new routes after the file changes, with the data kept', async () => {
    expect((await request(server.url, 'GET', '/authors')).status).to.equal(404);
    writeFileSync(file, WITH_AUTHORS);
    await eventually(
      async () => (await request(server.url, 'GET', '/authors')).status === 200,
      'GET /authors to answer 200',
    );
    const books = await request(server.url, 'GET', '/books');
    expect(books.json.member.map((b: { title: string }) => b.title)).to.deep.equal(['Kept']);
  });

  it('keeps the previous routes when the new file has errors, and says so', async () => {
    writeFileSync(file, `${WITH_AUTHORS}resource Broken { paginationItemPerPage: 3 }\n`);
    await eventually(async () => server.output().includes('still serving the previous version'), 'the refusal message');
    expect(server.output()).to.include("did you mean 'paginationItemsPerPage'?");
    expect((await request(server.url, 'GET', '/authors')).status).to.equal(200);
    expect((await request(server.url, 'GET', '/brokens')).status).to.equal(404);
  });

  it('reloads a file replaced by a rename (a temporary file saved over it), again and again', async () => {
    for (const resource of ['Pen', 'Cup']) {
      replaceFile(file, `${WITH_AUTHORS}resource ${resource} {\n  properties { id: int, name: string }\n}\n`);
      const path = `/${resource.toLowerCase()}s`;
      await eventually(
        async () => (await request(server.url, 'GET', path)).status === 200,
        `GET ${path} to answer 200`,
      );
    }
  });
});
