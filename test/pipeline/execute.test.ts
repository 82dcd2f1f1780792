/**
 * The adapter-neutral entry into the pipeline (server/pipeline/execute.ts), driven without Koa or any HTTP
 * server, as a GraphQL resolver or an MCP tool will drive it: plain request descriptions in, plain results out
 * (status, headers, the document; errors as their documents), the whole pipeline run (validation, security,
 * the write, the Mercure update of the committed change), on the embedded store in memory.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ApiMetadata, OperationMetadata } from '../../server/metadata/types.js';
import { executeOperation } from '../../server/pipeline/execute.js';
import { jsonText } from '../../server/pipeline/representation/json-text.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import type { Runtime } from '../../server/pipeline/runtime.js';
import type { Publisher, Update } from '../../server/realtime/index.js';
import type { Principal } from '../../server/security/access.js';
import { loadApi } from '../../server/load-api.js';
import { openStore } from '../../server/storage.js';
import type { Store } from '../../server/store/types.js';
import { operationRequest } from '../support/operation-request.js';

const API = `api "Entry" { version: "1" }
config {
  patch_formats: ["application/merge-patch+json"]
  mercure { hub: "https://hub.example/.well-known/mercure" }
}
resource Book {
  mercure: true
  properties {
    id: int { identifier: true }
    title: string { required: true, maxLength: 20 }
    note: string { security: "is_granted('ROLE_ADMIN')" }
  }
  operations {
    GetCollection
    Post
    Get
    Patch
    Delete { security: "is_granted('ROLE_ADMIN')" }
  }
}
`;

/** Keeps what it is given: the runtime's publisher, as the real ones take updates. */
class KeptUpdates implements Publisher {
  readonly updates: Update[] = [];
  publish(update: Update): void {
    this.updates.push(update);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const ADMIN: Principal = { user: { identifier: 'ada', roles: ['ROLE_ADMIN'], claims: {} }, roles: ['ROLE_ADMIN'] };

describe('pipeline: the neutral entry (executeOperation)', () => {
  let dir: string;
  let api: ApiMetadata;
  let store: Store;
  let runtime: Runtime;
  let publisher: KeptUpdates;
  const op = (method: string, collection = false): OperationMetadata =>
    api
      .resource('Book')!
      .operations.find((o) => o.method === method && (method !== 'GET' || o.isCollection === collection))!;
  const request = operationRequest;

  /** An anonymous JSON-LD POST of `body` to /books. */
  const post = (body: Record<string, unknown>) =>
    executeOperation(
      runtime,
      op('POST'),
      request({
        method: 'POST',
        headers: { accept: 'application/ld+json', 'content-type': 'application/ld+json' },
        body: JSON.stringify(body),
      }),
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-entry-'));
    writeFileSync(join(dir, 'entry.api'), API);
    api = await loadApi(join(dir, 'entry.api'));
    store = await openStore({ kind: 'memory' });
    publisher = new KeptUpdates();
    runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }), publisher });
  });
  after(async () => {
    await runtime.bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates an item from a body given as text: 201, Location, its JSON-LD document, its Mercure update', async () => {
    const result = await post({ title: 'Dune', note: 'first' });
    expect(result.error).to.equal(undefined);
    expect(result.status).to.equal(201);
    expect(result.headers.Location).to.equal('/books/1');
    expect(result.headers['Content-Type']).to.equal('application/ld+json; charset=utf-8');
    expect(result.body).to.deep.include({ '@context': '/contexts/Book', '@id': '/books/1', title: 'Dune' });
    // The writer is anonymous: the guarded property is not shown to it, nor published to anyone.
    expect(result.body).to.not.have.property('note');
    expect(publisher.updates).to.have.length(1);
    expect(publisher.updates[0].topics).to.include('/books/1');
    expect(JSON.parse(publisher.updates[0].data)).to.deep.include({ '@id': '/books/1', title: 'Dune' });
    expect(JSON.parse(publisher.updates[0].data)).to.not.have.property('note');
  });

  it('reads a page with its query string, and shows guarded properties to a user who may see them', async () => {
    const anonymous = await executeOperation(runtime, op('GET', true), request({}));
    expect(anonymous.status).to.equal(200);
    // A page's body may be its encoded text (members written as text): read as the response would send it.
    const members = (JSON.parse(jsonText(anonymous.body)) as { member: Record<string, unknown>[] }).member;
    expect(members.map((m) => m.title)).to.deep.equal(['Dune']);
    expect(members[0]).to.not.have.property('note');
    const admin = await executeOperation(
      runtime,
      op('GET'),
      request({ path: '/books/1', uriVariables: { id: '1' }, principal: ADMIN }),
    );
    expect(admin.body).to.deep.include({ title: 'Dune', note: 'first' });
  });

  it('answers errors with their documents in the flavour Accept asks for, never by throwing', async () => {
    const missing = await executeOperation(
      runtime,
      op('GET'),
      request({ path: '/books/99', uriVariables: { id: '99' }, headers: { accept: 'application/json' } }),
    );
    expect(missing.status).to.equal(404);
    expect(missing.error?.status).to.equal(404);
    expect(missing.headers['Content-Type']).to.equal('application/problem+json; charset=utf-8');
    expect(missing.body).to.deep.include({ status: 404 });

    const invalid = await post({ title: 'x'.repeat(21) });
    expect(invalid.status).to.equal(422);
    expect(invalid.body).to.have.property('@type', 'ConstraintViolation');
    expect((invalid.body as { violations: { propertyPath: string }[] }).violations[0].propertyPath).to.equal('title');

    const unacceptable = await executeOperation(runtime, op('GET', true), request({ headers: { accept: 'text/csv' } }));
    expect(unacceptable.status).to.equal(406);
  });

  it('runs the security stages: an anonymous delete is refused and changes nothing; an admin delete is done', async () => {
    const del = op('DELETE');
    const refused = await executeOperation(
      runtime,
      del,
      request({ method: 'DELETE', path: '/books/1', uriVariables: { id: '1' } }),
    );
    expect(refused.status).to.equal(401);
    expect(await runtime.collectionOf(api.resource('Book')!).get(1)).to.not.equal(null);
    const done = await executeOperation(
      runtime,
      del,
      request({ method: 'DELETE', path: '/books/1', uriVariables: { id: '1' }, principal: ADMIN }),
    );
    expect(done.status).to.equal(204);
    expect(done.body).to.equal(undefined);
    expect(await runtime.collectionOf(api.resource('Book')!).get(1)).to.equal(null);
  });
});
