/**
 * Identifiers (docs/behaviour.md, "Identifiers"): a store-assigned identifier is never handed out twice (after a
 * delete, a restart, a reset, an import with given identifiers) and is read-only in bodies; an identifier the
 * client chooses obeys the rule the routes read identifiers by, so every stored item is reachable at its IRI.
 * Fixture identifiers.api.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { codePointString } from '../support/code-points.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { fixture, request, startServer, tempDir, useServer, type RunningServer } from './harness.js';
import { lastingStore } from './lasting-store.js';

const FIXTURE = fixture('identifiers.api');
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

const post = (server: RunningServer, path: string, body: unknown) => request(server.url, 'POST', path, { body });

/** Values no int identifier may take: zero, negative, fractional, past 2^53 - 1, not numbers. */
const BAD_INTS: unknown[] = [0, -1, 1.5, 2 ** 53, 1e16 + 1, 1e300, '7', 'abc', true, [1], { n: 1 }];

describe('HTTP identifiers: a store-assigned int identifier', () => {
  const server = useServer(FIXTURE);

  it('ignores an id in a POST body, whatever its value: the item gets the next identifier and is reachable', async () => {
    const ids: string[] = [];
    for (const id of [5, ...BAD_INTS]) {
      const r = await post(server, '/talks', { id, title: `with id ${JSON.stringify(id)}` });
      expect(r.status, r.text).to.equal(201);
      ids.push(r.json['@id'] as string);
      const g = await request(server.url, 'GET', r.json['@id'] as string);
      expect(g.status, `${JSON.stringify(id)}: ${g.text}`).to.equal(200);
      expect(g.json.title).to.equal(`with id ${JSON.stringify(id)}`);
    }
    expect(ids).to.deep.equal(ids.map((_, i) => `/talks/${i + 1}`));
  });

  it('never hands out the identifier of the last item deleted again', async () => {
    const first = await post(server, '/talks', { title: 'to delete' });
    const n = first.json.id as number;
    expect((await request(server.url, 'DELETE', `/talks/${n}`)).status).to.equal(204);
    const next = await post(server, '/talks', { title: 'next' });
    expect(next.json['@id']).to.equal(`/talks/${n + 1}`);
    expect((await request(server.url, 'GET', `/talks/${n}`)).status).to.equal(404);
  });

  it('ignores an id in a PATCH or PUT body: the item keeps its identifier', async () => {
    const created = await post(server, '/talks', { title: 'kept' });
    const iri = created.json['@id'] as string;
    const patched = await request(server.url, 'PATCH', iri, {
      body: { id: 9999, title: 'patched' },
      headers: MERGE_PATCH,
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.json['@id']).to.equal(iri);
    const put = await request(server.url, 'PUT', iri, { body: { id: 9998, title: 'put' } });
    expect(put.status, put.text).to.equal(200);
    expect(put.json['@id']).to.equal(iri);
    for (const gone of ['/talks/9999', '/talks/9998'])
      expect((await request(server.url, 'GET', gone)).status).to.equal(404);
  });

  it('PUT with allowCreate takes the identifier from the URI and moves the sequence past it', async () => {
    const r = await request(server.url, 'PUT', '/talks/500', { body: { id: 7, title: 'upserted' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json['@id']).to.equal('/talks/500');
    expect((await request(server.url, 'GET', '/talks/500')).json.title).to.equal('upserted');
    expect((await request(server.url, 'DELETE', '/talks/500')).status).to.equal(204);
    expect((await post(server, '/talks', { title: 'after' })).json['@id']).to.equal('/talks/501');
  });

  it('answers 404 (and stores nothing) for a PUT, GET, PATCH or DELETE of an identifier no item can have', async () => {
    const before = (await request(server.url, 'GET', '/talks')).json.totalItems as number;
    for (const segment of ['0', '-1', '00', '9007199254740992', '9007199254740993', '99999999999999999999', '1e3']) {
      const put = await request(server.url, 'PUT', `/talks/${segment}`, { body: { title: 'x' } });
      expect(put.status, `PUT /talks/${segment}: ${put.text}`).to.equal(404);
      expect(put.headers.get('content-type')).to.match(/problem\+json|ld\+json/);
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const body = method === 'PATCH' ? { body: {}, headers: MERGE_PATCH } : {};
        const r = await request(server.url, method, `/talks/${segment}`, body);
        expect(r.status, `${method} /talks/${segment}`).to.equal(404);
      }
    }
    expect((await request(server.url, 'GET', '/talks')).json.totalItems).to.equal(before);
  });

  it('refuses a relation IRI naming an identifier no item can have: 400, never 500', async () => {
    for (const iri of ['/talks/0', '/talks/-1', '/talks/9007199254740993', '/talks/99999999999999999999']) {
      const r = await post(server, '/reviews', { talk: iri });
      expect(r.status, `${iri}: ${r.text}`).to.equal(400);
    }
    const talk = await post(server, '/talks', { title: 'reviewed' });
    expect((await post(server, '/reviews', { talk: talk.json['@id'] })).status).to.equal(201);
  });

  it('documents the identifier as read-only (OpenAPI) and not writeable (Hydra)', async () => {
    const openapi = await request(server.url, 'GET', '/docs.json');
    expect(openapi.status).to.equal(200);
    const schemas = openapi.json.components.schemas as Record<
      string,
      { properties?: Record<string, { readOnly?: boolean }> }
    >;
    expect(schemas.Talk?.properties?.id?.readOnly, JSON.stringify(schemas.Talk)).to.equal(true);
    expect(schemas.Ticket?.properties?.id?.readOnly, JSON.stringify(schemas.Ticket)).to.equal(undefined);
    const hydra = await request(server.url, 'GET', '/docs.jsonld');
    type Supported = { title: string; writeable: boolean };
    const classes = hydra.json.supportedClass as { '@id': string; supportedProperty: Supported[] }[];
    const writeable = (cls: string, property: string): boolean | undefined =>
      classes.find((c) => c['@id'] === cls)?.supportedProperty.find((p) => p.title === property)?.writeable;
    expect(writeable('#Talk', 'id')).to.equal(false);
    expect(writeable('#Ticket', 'id')).to.equal(true);
    expect(writeable('#Speaker', 'slug')).to.equal(true);
  });
});

describe('HTTP identifiers: an identifier the client chooses', () => {
  const server = useServer(FIXTURE);

  it('an int identifier with readOnly: false takes any positive safe integer; the item is reachable', async () => {
    for (const id of [1, 1234567890123456, Number.MAX_SAFE_INTEGER - 1]) {
      const r = await post(server, '/tickets', { id, holder: 'h' });
      expect(r.status, r.text).to.equal(201);
      expect(r.json['@id']).to.equal(`/tickets/${id}`);
      expect((await request(server.url, 'GET', `/tickets/${id}`)).json.id).to.equal(id);
    }
    // The store's sequence went past the largest given one.
    const assigned = await post(server, '/tickets', { holder: 'assigned' });
    expect(assigned.json.id).to.equal(Number.MAX_SAFE_INTEGER);
    expect((await request(server.url, 'GET', `/tickets/${Number.MAX_SAFE_INTEGER}`)).status).to.equal(200);
  });

  it('refuses any other int identifier with a 422 violation on the identifier', async () => {
    const before = (await request(server.url, 'GET', '/tickets')).json.totalItems as number;
    for (const id of BAD_INTS) {
      const r = await post(server, '/tickets', { id, holder: 'h' });
      expect(r.status, `${JSON.stringify(id)}: ${r.text}`).to.equal(422);
      expect(r.json.violations.map((v: { propertyPath: string }) => v.propertyPath)).to.deep.equal(['id']);
    }
    expect((await request(server.url, 'GET', '/tickets')).json.totalItems).to.equal(before);
  });

  it('refuses string identifiers the routes cannot read back (422 on the identifier)', async () => {
    // Empty, a slash, read as a format extension (.json, .jsonld, any `.text` ending), dot segments, and one the
    // Get's requirement `[a-z0-9.-]+` refuses. (A lone surrogate is no text at all: the body is refused, 400.)
    for (const slug of ['', 'a/b', 'a.json', 'b.jsonld', 'v1.2', 'x..', '.', '..', 'Upper', 'with space']) {
      const r = await post(server, '/speakers', { slug, name: 'n' });
      expect(r.status, `${JSON.stringify(slug)}: ${r.text}`).to.equal(422);
      expect(r.json.violations.map((v: { propertyPath: string }) => v.propertyPath)).to.deep.equal(['slug']);
    }
    expect((await post(server, '/speakers', { slug: '\ud800', name: 'n' })).status).to.equal(400);
    const extension = await post(server, '/speakers', { slug: 'a.json', name: 'n' });
    expect(extension.json.detail).to.equal(
      'slug: This value should not end in a dot followed by text (a route reads that as a format extension).',
    );
    const requirement = await post(server, '/speakers', { slug: 'Upper', name: 'n' });
    expect(requirement.json.detail).to.equal('slug: This value should match the route requirement "[a-z0-9.-]+".');
    expect((await request(server.url, 'GET', '/speakers')).json.totalItems).to.equal(0);
  });

  it('stores a valid string identifier, reachable at its IRI; without one the store assigns a reachable UUID', async () => {
    for (const slug of ['ada-lovelace', 'a.', '.hidden', '42']) {
      const r = await post(server, '/speakers', { slug, name: slug });
      expect(r.status, r.text).to.equal(201);
      const g = await request(server.url, 'GET', r.json['@id'] as string);
      expect(g.status, `${slug}: ${r.json['@id']}`).to.equal(200);
      expect(g.json.slug).to.equal(slug);
    }
    const uuid = await post(server, '/speakers', { name: 'anonymous' });
    expect(uuid.status).to.equal(201);
    expect((await request(server.url, 'GET', uuid.json['@id'] as string)).json.name).to.equal('anonymous');
  });

  it('PUT with allowCreate creates no item the Get cannot reach: 404 for an identifier against its requirement', async () => {
    expect((await request(server.url, 'PUT', '/speakers/UPPER', { body: { name: 'x' } })).status).to.equal(404);
    const ok = await request(server.url, 'PUT', '/speakers/lower', { body: { name: 'x' } });
    expect(ok.status, ok.text).to.equal(201);
    expect((await request(server.url, 'GET', '/speakers/lower')).status).to.equal(200);
  });

  it('for every identifier value: accepted ⇒ reachable at its IRI, refused ⇒ 422, never 5xx', async function () {
    this.timeout(120_000);
    const value = fc.oneof(
      fc.integer({ min: -5, max: 2 ** 31 }),
      fc.maxSafeInteger(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, 2 ** 53, 2 ** 53 + 2, 1e21, Number.MAX_SAFE_INTEGER),
      fc.string({ maxLength: 8 }),
      codePointString({ maxLength: 6 }),
      fc.constantFrom('a.json', 'x.y', '..', '.', '/', 'a%2Fb', 'é', 'ok-1'),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('tickets' as const, 'speakers' as const), value, async (path, id) => {
        const field = path === 'tickets' ? 'id' : 'slug';
        const r = await post(server, `/${path}`, { [field]: id });
        if (r.status === 409) {
          // Chosen before (here or by an earlier test): an item holds it, reachable at its IRI.
          const taken = await request(server.url, 'GET', `/${path}/${encodeURIComponent(String(id))}`);
          expect(taken.status, `${JSON.stringify(id)}: ${r.text}`).to.equal(200);
          return;
        }
        expect([201, 422], `${JSON.stringify(id)}: ${r.text}`).to.include(r.status);
        if (path === 'tickets') {
          const valid = typeof id === 'number' && Number.isSafeInteger(id) && id > 0;
          expect(r.status === 201, JSON.stringify(id)).to.equal(valid);
        }
        if (r.status === 422) return;
        const g = await request(server.url, 'GET', r.json['@id'] as string);
        expect(g.status, `${JSON.stringify(id)} at ${r.json['@id']}`).to.equal(200);
        expect(g.json[field]).to.equal(id);
      }),
      { numRuns: 150 },
    );
  });
});

describe('HTTP identifiers: never reused across restarts, reset and import', function () {
  this.timeout(120_000); // servers started and stopped one after the other
  const dir = tempDir('apidsl-ids-');
  let storage: string[];
  before(async () => {
    // The same data each time: a directory for the embedded store, one database for MongoDB or PostgreSQL.
    storage = await lastingStore(dir, 'ids');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `body` against a server on the shared data, stopped afterwards. */
  async function serving(body: (server: RunningServer) => Promise<void>): Promise<void> {
    const server = await startServer(FIXTURE, storage);
    try {
      await body(server);
    } finally {
      expect(await server.stop(), server.output()).to.equal(0);
    }
  }

  it('after a restart: the deleted largest identifier is not handed out again', async () => {
    await serving(async (server) => {
      for (const title of ['a', 'b', 'c']) expect((await post(server, '/talks', { title })).status).to.equal(201);
      expect((await request(server.url, 'DELETE', '/talks/3')).status).to.equal(204);
    });
    await serving(async (server) => {
      expect((await post(server, '/talks', { title: 'd' })).json['@id']).to.equal('/talks/4');
      expect((await request(server.url, 'DELETE', '/talks/4')).status).to.equal(204);
    });
  });

  it('after `apidsl reset`: the collection is empty and identifiers go on', async () => {
    const reset = runCli(['reset', FIXTURE, ...storage, '--yes']);
    expect(reset.status, reset.stderr).to.equal(0);
    await serving(async (server) => {
      expect((await request(server.url, 'GET', '/talks')).json.totalItems).to.equal(0);
      expect((await post(server, '/talks', { title: 'e' })).json['@id']).to.equal('/talks/5');
    });
  });

  it('after `apidsl import` with given identifiers: kept, and the sequence moves past them; bad ones refused', async () => {
    const data = join(dir, 'talks.ndjson');
    writeFileSync(data, '{"id": 40, "title": "imported"}\n{"id": 0, "title": "zero"}\n{"title": "assigned"}\n');
    const imported = runCli(['import', FIXTURE, 'Talk', data, ...storage]);
    expect(imported.stderr).to.include(`line 2: id: This value should be between 1 and ${Number.MAX_SAFE_INTEGER}.`);
    await serving(async (server) => {
      expect((await request(server.url, 'GET', '/talks/40')).json.title).to.equal('imported');
      const titles = ((await request(server.url, 'GET', '/talks')).json.member as { title: string }[]).map(
        (m) => m.title,
      );
      expect(titles).to.not.include('zero');
      const assigned = (await request(server.url, 'GET', '/talks/41')).json;
      expect(assigned.title).to.equal('assigned');
      expect((await request(server.url, 'DELETE', '/talks/41')).status).to.equal(204);
      expect((await post(server, '/talks', { title: 'after import' })).json['@id']).to.equal('/talks/42');
    });
  });
});
