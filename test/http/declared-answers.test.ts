/**
 * Every status an operation answers is one its OpenAPI responses list (server/pipeline/answers.ts): each test
 * provokes a status over HTTP (a bulk batch too large or empty, a taken identifier, an `Accept` no format serves,
 * an invalid token or Host header, a write outside the scope, a rate limit), then finds it among the responses
 * `/docs.json` gives that operation. The 503 runs on PostgreSQL behind a relay the test closes (skipped, with a
 * notice, without a PostgreSQL server).
 */
import { expect } from 'chai';
import { cuttableRelay } from '../support/cuttable-relay.js';
import { freshPostgresUrl, postgresOrSkip } from '../support/postgres.js';
import {
  fixture,
  type HttpResponse,
  rawRequest,
  request,
  type RunningServer,
  startServer,
  useServer,
} from './harness.js';
import { bearer, token } from './security-helpers.js';

const FIXTURE = fixture('answers.api');

/** Asserts that the document lists the answer's status for the operation; its description. */
async function expectDeclared(
  server: RunningServer,
  method: string,
  path: string,
  answer: Pick<HttpResponse, 'status' | 'text'>,
): Promise<string> {
  const doc = (await request(server.url, 'GET', '/docs.json')).json;
  const responses = doc.paths[path][method.toLowerCase()].responses as Record<string, { description: string }>;
  expect(responses, `${method} ${path} answered ${answer.status}: ${answer.text}`).to.have.property(
    String(answer.status),
  );
  return responses[String(answer.status)]!.description;
}

const post = (server: RunningServer, body: unknown): Promise<HttpResponse> =>
  request(server.url, 'POST', '/books', { body });

describe('HTTP: every status answered is declared in OpenAPI', () => {
  const server = useServer(FIXTURE);

  it('413: a bulk batch over bulk_max_items', async () => {
    const r = await post(server, [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    expect(r.status, r.text).to.equal(413);
    expect(await expectDeclared(server, 'POST', '/books', r)).to.include('more than 2 items');
  });

  it('400: an empty bulk batch', async () => {
    const r = await post(server, []);
    expect(r.status, r.text).to.equal(400);
    expect(await expectDeclared(server, 'POST', '/books', r)).to.include('The batch is empty');
  });

  it('409: a chosen identifier already held', async () => {
    expect((await post(server, { id: 7, title: 'First' })).status).to.equal(201);
    const r = await post(server, { id: 7, title: 'Again' });
    expect(r.status, r.text).to.equal(409);
    expect(await expectDeclared(server, 'POST', '/books', r)).to.include('identifier is already held');
  });

  it('406: an Accept no format serves, on a read and on a write', async () => {
    const read = await request(server.url, 'GET', '/books', { headers: { Accept: 'text/csv' } });
    expect(read.status, read.text).to.equal(406);
    expect(await expectDeclared(server, 'GET', '/books', read)).to.include('application/ld+json');
    const del = await request(server.url, 'DELETE', '/books/7', { headers: { Accept: 'text/csv' } });
    expect(del.status, del.text).to.equal(406);
    await expectDeclared(server, 'DELETE', '/books/{id}', del);
  });

  it('401: a token that cannot be verified, on an operation without a security rule', async () => {
    const r = await request(server.url, 'GET', '/books/7', { headers: { Authorization: 'Bearer not-a-token' } });
    expect(r.status, r.text).to.equal(401);
    expect(await expectDeclared(server, 'GET', '/books/{id}', r)).to.include('cannot be verified');
  });

  it('400: a Host header that is no host[:port]', async () => {
    const raw = await rawRequest(server.url, 'GET /books/7 HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n');
    expect(raw.status, raw.text).to.equal(400);
    expect(await expectDeclared(server, 'GET', '/books/{id}', { status: 400, text: raw.text })).to.include(
      'Host header',
    );
  });

  it('403: a write outside the write scope', async () => {
    const alice = bearer(await token({ sub: 'alice', roles: ['ROLE_USER'] }));
    const own = await request(server.url, 'POST', '/notes', { body: { owner: 'alice' }, headers: alice });
    expect(own.status, own.text).to.equal(201);
    const r = await request(server.url, 'POST', '/notes', { body: { owner: 'bob' }, headers: alice });
    expect(r.status, r.text).to.equal(403);
    expect(await expectDeclared(server, 'POST', '/notes', r)).to.include('write scope');
  });

  it('429 past a rate limit', async () => {
    expect((await request(server.url, 'GET', '/tags')).status).to.equal(200);
    const r = await request(server.url, 'GET', '/tags');
    expect(r.status, r.text).to.equal(429);
    await expectDeclared(server, 'GET', '/tags', r);
  });
});

describe('HTTP: the 503 of a store out of reach is declared in OpenAPI', function () {
  this.timeout(120_000);
  let relay: Awaited<ReturnType<typeof cuttableRelay>> | undefined;
  let server: RunningServer | undefined;

  before(async function () {
    await postgresOrSkip(this);
    const database = new URL(await freshPostgresUrl('answers'));
    relay = await cuttableRelay(`http://${database.host}`);
    database.host = new URL(relay.url).host;
    server = await startServer(FIXTURE, ['--db', database.href]);
  });
  after(async () => {
    await server?.stop();
    relay?.close();
  });

  it('answers 503 with Retry-After to a read, a write and a delete once the store cannot be reached', async () => {
    expect((await post(server!, { id: 1, title: 'Before' })).status).to.equal(201);
    relay!.close();
    const answers: [string, string, HttpResponse][] = [
      ['GET', '/books/{id}', await request(server!.url, 'GET', '/books/1')],
      ['GET', '/books', await request(server!.url, 'GET', '/books')],
      ['POST', '/books', await post(server!, { id: 2, title: 'During' })],
      ['DELETE', '/books/{id}', await request(server!.url, 'DELETE', '/books/1')],
    ];
    for (const [method, path, r] of answers) {
      expect(r.status, `${method} ${path}: ${r.text}`).to.equal(503);
      expect(r.headers.get('retry-after')).to.match(/^\d+$/);
      expect(await expectDeclared(server!, method, path, r)).to.include('data store');
    }
  });
});
