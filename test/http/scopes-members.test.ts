/**
 * Row-level scopes and to-many relations over real HTTP (docs/scopes.md, "To-many members"; fixture
 * test/fixtures/http/scopes-members.api): boards and shelves are everyone's and list the notes of two users; each
 * reader sees, of those lists, the notes in their own read scope only, staff all of them, an anonymous caller none:
 * as IRIs and embedded, in JSON-LD, JSON and JSON:API (relationships and `include`), GraphQL connections and their
 * totalCount, and the MCP tools. A write that sends a list back keeps the members its writer could not see.
 */
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { graphql } from './graphql-helpers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, request, tempDir, useServer, type HttpResponse } from './harness.js';
import { call, httpClient } from './mcp-helpers.js';
import { bearer, token } from './security-helpers.js';

const JSONAPI = 'application/vnd.api+json';
const ALL = ['/notes/1', '/notes/2', '/notes/3'];

describe('row-level scopes on the members of to-many relations', function () {
  this.timeout(120_000);
  const server = useServer(fixture('scopes-members.api'));
  const headers: Record<string, Record<string, string>> = { anonymous: {} };
  /** What each reader may see of notes 1 (Ann's), 2 (Bob's) and 3 (Ann's). */
  const visible: Record<string, string[]> = {
    ann: ['/notes/1', '/notes/3'],
    bob: ['/notes/2'],
    sam: ALL,
    anonymous: [],
  };
  const send = (who: string, method: string, path: string, body?: unknown, type = 'application/json') =>
    request(server.url, method, path, {
      headers: { ...headers[who], 'Content-Type': type, Accept: type === JSONAPI ? JSONAPI : 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
  const ok = async (r: Promise<HttpResponse>): Promise<HttpResponse> => {
    const response = await r;
    expect(response.status, response.text).to.be.oneOf([200, 201]);
    return response;
  };
  const jsonld = (who: string, path: string) =>
    request(server.url, 'GET', path, { headers: { ...headers[who], Accept: 'application/ld+json' } });
  /** Board 1's notes as stored, read by staff. */
  const storedNotes = async (): Promise<string[]> => (await jsonld('sam', '/boards/1')).json.notes as string[];

  before(async () => {
    headers.ann = bearer(await token({ sub: 'ann' }));
    headers.bob = bearer(await token({ sub: 'bob' }));
    headers.sam = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
    for (const [owner, title] of [
      ['ann', 'Ann 1'],
      ['bob', 'Bob 1'],
      ['ann', 'Ann 2'],
    ])
      await ok(send('sam', 'POST', '/notes', { owner, title }));
    await ok(send('sam', 'POST', '/boards', { name: 'Team', notes: ALL }));
    await ok(send('sam', 'POST', '/shelves', { label: 'Team', notes: ALL }));
  });

  it('lists only the members in the reader’s scope, as IRIs, in JSON-LD and JSON', async () => {
    for (const [who, notes] of Object.entries(visible)) {
      expect((await jsonld(who, '/boards/1')).json.notes, who).to.deep.equal(notes);
      expect((await jsonld(who, '/boards')).json.member[0].notes, who).to.deep.equal(notes);
      expect((await send(who, 'GET', '/boards/1')).json.notes, who).to.deep.equal(notes);
      expect((await send(who, 'GET', '/boards')).json[0].notes, who).to.deep.equal(notes);
    }
  });

  it('embeds only the members in the reader’s scope', async () => {
    const titles = { '/notes/1': 'Ann 1', '/notes/2': 'Bob 1', '/notes/3': 'Ann 2' } as Record<string, string>;
    for (const [who, notes] of Object.entries(visible)) {
      const embedded = notes.map((iri) => ({ '@id': iri, '@type': 'Note', title: titles[iri] }));
      expect((await jsonld(who, '/shelves/1')).json.notes, who).to.deep.equal(embedded);
      expect((await jsonld(who, '/shelves')).json.member[0].notes, who).to.deep.equal(embedded);
    }
  });

  it('gives JSON:API relationships and included items of the reader’s scope only', async () => {
    for (const [who, notes] of Object.entries(visible)) {
      const board = await send(who, 'GET', '/boards/1?include=notes', undefined, JSONAPI);
      expect(board.status, board.text).to.equal(200);
      const linkage = board.json.data.relationships.notes.data.map((d: { id: string }) => d.id);
      expect(linkage, who).to.deep.equal(notes);
      expect(
        (board.json.included ?? []).map((d: { id: string }) => d.id),
        who,
      ).to.deep.equal(notes);
    }
  });

  it('pages and counts only the members in the reader’s scope in a GraphQL connection', async () => {
    const query = '{ board(id: "/boards/1") { notes { totalCount edges { node { id } } } } }';
    for (const [who, notes] of Object.entries(visible)) {
      const answer = await graphql(server.url, query, {}, headers[who]);
      expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
      const connection = answer.data.board.notes;
      expect(connection.totalCount, who).to.equal(notes.length);
      expect(
        connection.edges.map((e: { node: { id: string } }) => e.node.id),
        who,
      ).to.deep.equal(notes);
    }
    const list = await graphql(server.url, '{ boards { edges { node { notes { totalCount } } } } }', {}, headers.bob);
    expect(list.data.boards.edges[0].node.notes.totalCount).to.equal(1);
  });

  it('shows the MCP tools only the members in the caller’s scope', async () => {
    const clients: Client[] = [];
    try {
      for (const [who, notes] of Object.entries(visible)) {
        const client = await httpClient(server.url, headers[who]);
        clients.push(client);
        const item = await call(client, 'get_board', { id: 1 });
        expect(item.isError, JSON.stringify(item.doc)).to.equal(false);
        expect(item.doc.notes, who).to.deep.equal(notes);
        const list = await call(client, 'get_collection_board');
        expect((list.doc.member as { notes: string[] }[])[0]!.notes, who).to.deep.equal(notes);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  describe('writes that send a list back', () => {
    it('keep the members their writer cannot see (PATCH, PUT)', async () => {
      // Ann drops her note 3: Bob's note 2, which she cannot see, stays.
      await ok(send('ann', 'PATCH', '/boards/1', { notes: ['/notes/1'] }, 'application/merge-patch+json'));
      expect(await storedNotes()).to.deep.equal(['/notes/1', '/notes/2']);
      // Bob empties the list he sees; Ann's note 1 stays.
      await ok(send('bob', 'PUT', '/boards/1', { name: 'Team', notes: [] }));
      expect(await storedNotes()).to.deep.equal(['/notes/1']);
      // Ann's write that leaves her list as she sees it changes nothing of the rest.
      await ok(send('sam', 'PATCH', '/boards/1', { notes: ALL }, 'application/merge-patch+json'));
      await ok(send('ann', 'PATCH', '/boards/1', { name: 'Renamed' }, 'application/merge-patch+json'));
      expect(await storedNotes()).to.deep.equal(ALL);
    });

    it('keep them on the GraphQL and MCP faces too', async () => {
      const update = 'mutation { updateBoard(input: { id: "/boards/1", notes: ["/notes/3"] }) { board { id } } }';
      const answer = await graphql(server.url, update, {}, headers.ann);
      expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
      expect(await storedNotes()).to.deep.equal(['/notes/3', '/notes/2']);
      const client = await httpClient(server.url, headers.bob);
      try {
        const patch = await call(client, 'patch_board', { id: 1, body: { notes: [] } });
        expect(patch.isError, JSON.stringify(patch.doc)).to.equal(false);
        expect(patch.doc.notes).to.deep.equal([]);
      } finally {
        await client.close();
      }
      expect(await storedNotes()).to.deep.equal(['/notes/3']);
    });
  });
});

describe('row-level scopes on to-many members and the HTTP cache', function () {
  this.timeout(60_000);
  const server = useServer(() => {
    const file = join(tempDir(), 'tenant-boards.api');
    writeFileSync(
      file,
      `api "Tenant boards" { version: "1.0.0" }
config { http_cache { public: true, max_age: 60, shared_max_age: 3600, in_process { max_bytes: 1000000 } } }
resource Note {
  scope: "object.tenant == request.headers['x-tenant']"
  properties { id: int { identifier: true }, tenant: string }
}
resource Board {
  properties { id: int { identifier: true }, notes: Note[] }
}`,
    );
    return file;
  });
  const as = (tenant: string) => ({ 'X-Tenant': tenant, 'Content-Type': 'application/json' });

  it('keeps no page whose members depend on the reader, and marks it private for shared caches', async () => {
    for (const tenant of ['a', 'b']) {
      const r = await request(server.url, 'POST', '/notes', { headers: as(tenant), body: { tenant } });
      expect(r.status, r.text).to.equal(201);
    }
    const board = await request(server.url, 'POST', '/boards', {
      headers: as('a'),
      body: { notes: ['/notes/1'] },
    });
    expect(board.status, board.text).to.equal(201);
    // Anonymous GETs of one URL: a cached page of tenant a's would show b a's note.
    for (let round = 0; round < 2; round++) {
      for (const [tenant, notes] of [
        ['a', ['/notes/1']],
        ['b', []],
      ] as const) {
        const page = await request(server.url, 'GET', '/boards', { headers: as(tenant) });
        expect(page.json.member[0].notes, `${tenant}, round ${round}`).to.deep.equal(notes);
        expect(page.headers.get('cache-control')).to.equal('private, max-age=60');
      }
    }
  });
});
