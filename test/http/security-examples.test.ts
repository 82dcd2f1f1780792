/**
 * The examples that mention roles enforce them: examples/catalogue.api (Delete for ROLE_ADMIN) and
 * examples/library-mutators.api (a mutator's ROLE_LIBRARIAN rule), with tokens from `apidsl token`
 * exactly as their comments and docs/security.md show.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { runCli } from '../support/cli.js';
import { request, startServer, type RunningServer } from './harness.js';
import { as } from './security-helpers.js';

const SECRET = 'change-me-to-a-long-random-string';
const CATALOGUE = fromRoot('examples/catalogue.api');
const LIBRARY = fromRoot('examples/library-mutators.api');

function mint(file: string, ...args: string[]): string {
  const r = runCli(['token', file, ...args], { env: { APIDSL_JWT_SECRET: SECRET } });
  expect(r.status, r.stderr).to.equal(0);
  return r.stdout.trim();
}

describe('security in the examples', () => {
  const servers: RunningServer[] = [];
  const previous = process.env.APIDSL_JWT_SECRET;
  const tokens: Record<string, string> = {};
  before(() => {
    // Minted before any server starts: a synchronous CLI run holds the test process meanwhile.
    tokens.admin = mint(CATALOGUE, '--sub', 'ann', '--roles', 'ROLE_ADMIN');
    tokens.editor = mint(CATALOGUE, '--sub', 'ed', '--roles', 'ROLE_EDITOR');
    tokens.librarian = mint(LIBRARY, '--sub', 'lee', '--roles', 'ROLE_LIBRARIAN');
    tokens.reader = mint(LIBRARY, '--sub', 'rea', '--roles', 'ROLE_USER');
    process.env.APIDSL_JWT_SECRET = SECRET;
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    if (previous === undefined) delete process.env.APIDSL_JWT_SECRET;
    else process.env.APIDSL_JWT_SECRET = previous;
  });

  it('catalogue.api: anyone reads and writes products, only ROLE_ADMIN deletes them (401, 403, 204)', async () => {
    const s = await startServer(CATALOGUE);
    servers.push(s);
    const put = await request(s.url, 'PUT', '/products/LAMP-001', {
      body: { name: 'Desk lamp', price: 39.9 },
      headers: { 'Content-Type': 'application/json' },
    });
    expect(put.status, put.text).to.equal(201);
    const anonymous = await request(s.url, 'DELETE', '/products/LAMP-001');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.json.detail).to.equal(
      'Only administrators can delete products; archive them instead (status: archived).',
    );
    expect((await as(tokens.editor, s.url, 'DELETE', '/products/LAMP-001')).status).to.equal(403);
    expect((await request(s.url, 'GET', '/products/LAMP-001')).status).to.equal(200);
    expect((await as(tokens.admin, s.url, 'DELETE', '/products/LAMP-001')).status).to.equal(204);
    expect((await request(s.url, 'GET', '/products/LAMP-001')).status).to.equal(404);
  });

  it('library-mutators.api: the rule a mutator adds is enforced (only ROLE_LIBRARIAN deletes books and creates authors)', async () => {
    const s = await startServer(LIBRARY);
    servers.push(s);
    const book = await request(s.url, 'POST', '/books', { body: { title: 'Dune' } });
    expect(book.status, book.text).to.equal(201);
    expect((await request(s.url, 'DELETE', '/books/1')).status).to.equal(401);
    const reader = await as(tokens.reader, s.url, 'DELETE', '/books/1');
    expect(reader.status).to.equal(403);
    expect(reader.json.detail).to.equal('Only librarians can do this.');
    expect((await request(s.url, 'POST', '/authors', { body: { name: 'Frank Herbert' } })).status).to.equal(401);
    expect(
      (await as(tokens.librarian, s.url, 'POST', '/authors', { body: { name: 'Frank Herbert' } })).status,
    ).to.equal(201);
    expect((await as(tokens.librarian, s.url, 'DELETE', '/books/1')).status).to.equal(204);
  });
});
