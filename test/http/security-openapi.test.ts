/**
 * OpenAPI and security over real HTTP: the Bearer JWT scheme, per-operation `security` and the 401/403
 * answers of guarded operations (checked by two OpenAPI validators and against live denials), and
 * what an authenticator-only configuration documents.
 */
import { expect } from 'chai';
import { hyperjump, ResponseChecker, responsePointer, seriousme } from '../openapi/validators.js';
import { get, request, type RunningServer, startServer, useServer } from './harness.js';
import { as, securityFixture, users } from './security-helpers.js';

type Any = any;

describe('security in OpenAPI (fixture security/books.api)', () => {
  const server = useServer(securityFixture('books.api'));
  let doc: Any;
  before(async () => {
    doc = (await get(server.url, '/docs.json')).json;
  });

  it('the document is valid and holds the Bearer JWT scheme', async () => {
    expect((await seriousme(doc)).valid).to.equal(true);
    expect((await hyperjump(doc)).valid).to.equal(true);
    expect(doc.components.securitySchemes).to.deep.equal({
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A JWT in the Authorization header: `Bearer <token>`.',
      },
    });
  });

  it('every operation with a security expression lists the scheme and its 401 and 403 answers', () => {
    const guarded: [string, string][] = [
      ['/books', 'get'],
      ['/books', 'post'],
      ['/books/{id}', 'get'],
      ['/books/{id}', 'put'],
      ['/books/{id}', 'patch'],
      ['/books/{id}', 'delete'],
      ['/books', 'query'],
      ['/books/whoami', 'get'],
      ['/secrets/{id}', 'get'],
      ['/notes/{id}', 'get'],
      ['/articles', 'post'],
    ];
    for (const [path, method] of guarded) {
      const op = doc.paths[path][method];
      expect(op.security, `${method} ${path}`).to.deep.equal([{ bearerAuth: [] }]);
      expect(op.responses, `${method} ${path}`).to.include.keys('401', '403');
    }
  });

  it('operations without one list no 403, and a 401 for credentials that cannot be verified only', () => {
    for (const [path, method] of [
      ['/notes', 'post'],
      ['/notes', 'get'],
      ['/articles/{id}', 'get'],
    ]) {
      const op = doc.paths[path][method];
      expect(op.security, `${method} ${path}`).to.equal(undefined);
      expect(op.responses, `${method} ${path}`).not.to.have.property('403');
      // Invalid credentials answer 401 on every route (http/authentication.ts).
      expect(op.responses['401'].description, `${method} ${path}`).to.equal(
        'The credentials sent cannot be verified (a malformed, expired or badly signed token).',
      );
    }
  });

  it('live 401 and 403 answers match the documented schemas', async () => {
    const u = await users();
    const checker = new ResponseChecker(doc);
    const anonymous = await request(server.url, 'GET', '/secrets/1');
    expect(anonymous.status).to.equal(401);
    expect(
      checker.check(responsePointer('/secrets/{id}', 'get', 401, 'application/problem+json'), anonymous.json),
    ).to.equal(undefined);
    const denied = await as(u.alice, server.url, 'GET', '/secrets/1');
    expect(denied.status).to.equal(403);
    expect(
      checker.check(responsePointer('/secrets/{id}', 'get', 403, 'application/problem+json'), denied.json),
    ).to.equal(undefined);
  });
});

describe('security in OpenAPI with only a custom authenticator (fixture security/keys.api)', () => {
  let server: RunningServer;
  after(async () => {
    await server?.stop();
  });

  it("documents no scheme (the authenticator's credentials are its own), but the 401 and 403 answers", async () => {
    server = await startServer(securityFixture('keys.api'));
    const doc = (await get(server.url, '/docs.json')).json;
    expect((await seriousme(doc)).valid).to.equal(true);
    expect(doc.components.securitySchemes).to.equal(undefined);
    const op = doc.paths['/gadgets'].get;
    expect(op.security).to.equal(undefined);
    expect(op.responses).to.include.keys('401', '403');
  });
});
