/**
 * Conditional writes (docs/behaviour.md, "Conditional writes"): If-Match on PUT, PATCH and DELETE answers 412 when
 * the item is no longer the version the ETag names, and nothing is written, atomically with the write (parallel
 * read-modify-write clients lose no update); If-None-Match: * makes a creating PUT create only; `requireIfMatch`
 * answers 428 to a write without a version. GraphQL mutations and MCP tools take the version as `ifMatch`.
 * Run on both stores (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fixture, request, PROBLEM_JSON, useServer, type HttpResponse } from './harness.js';
import { graphql } from './graphql-helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('Conditional writes: If-Match, If-None-Match: *, requireIfMatch (fixture conditional-writes.api)', function () {
  this.timeout(60_000);
  const server = useServer(fixture('conditional-writes.api'));
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(server.url, method, path, {
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: { ...(method === 'PATCH' ? MERGE : { 'Content-Type': 'application/ld+json' }), ...headers },
    });
  const create = async (path: string, body: object): Promise<string> => {
    const created = await send('POST', path, body);
    expect(created.status, created.text).to.equal(201);
    return created.json['@id'] as string;
  };
  const read = async (iri: string): Promise<{ etag: string; json: any }> => {
    const got = await request(server.url, 'GET', iri);
    expect(got.status, got.text).to.equal(200);
    return { etag: got.headers.get('etag')!, json: got.json };
  };
  const expect412 = (r: HttpResponse): void => {
    expect(r.status, r.text).to.equal(412);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json.status).to.equal(412);
  };

  it('the second of two PATCHes with the same ETag answers 412 and stores nothing', async () => {
    const iri = await create('/stocks', { name: 'bolts', count: 1 });
    const { etag } = await read(iri);
    const first = await send('PATCH', iri, { count: 2 }, { 'If-Match': etag });
    expect(first.status, first.text).to.equal(200);
    const second = await send('PATCH', iri, { count: 3 }, { 'If-Match': etag });
    expect412(second);
    expect((await read(iri)).json.count).to.equal(2);
    // The new ETag applies; a weak tag never does (strong comparison); `*` names any version.
    const now = (await read(iri)).etag;
    expect412(await send('PATCH', iri, { count: 4 }, { 'If-Match': `W/${now}` }));
    expect((await send('PATCH', iri, { count: 4 }, { 'If-Match': `"other", ${now}` })).status).to.equal(200);
    expect((await send('PATCH', iri, { count: 5 }, { 'If-Match': '*' })).status).to.equal(200);
    expect((await read(iri)).json.count).to.equal(5);
  });

  it('PUT and DELETE with a stale ETag answer 412 and leave the item; with the current one they apply', async () => {
    const iri = await create('/stocks', { name: 'nuts', count: 10 });
    const stale = (await read(iri)).etag;
    expect((await send('PATCH', iri, { count: 11 })).status).to.equal(200);
    expect412(await send('PUT', iri, { name: 'renamed', count: 0 }, { 'If-Match': stale }));
    expect412(await send('DELETE', iri, undefined, { 'If-Match': stale }));
    expect((await read(iri)).json).to.include({ name: 'nuts', count: 11 });
    const current = (await read(iri)).etag;
    const put = await send('PUT', iri, { name: 'renamed', count: 0 }, { 'If-Match': current });
    expect(put.status, put.text).to.equal(200);
    expect((await send('DELETE', iri, undefined, { 'If-Match': current })).status).to.equal(412);
    expect((await send('DELETE', iri, undefined, { 'If-Match': (await read(iri)).etag })).status).to.equal(204);
    expect((await request(server.url, 'GET', iri)).status).to.equal(404);
  });

  it('If-Match on an item that is not there: 404 on PATCH, 412 on a creating PUT (nothing created)', async () => {
    expect((await send('PATCH', '/stocks/9001', { count: 1 }, { 'If-Match': '"x"' })).status).to.equal(404);
    expect412(await send('PUT', '/stocks/9001', { name: 'ghost' }, { 'If-Match': '"x"' }));
    expect((await request(server.url, 'GET', '/stocks/9001')).status).to.equal(404);
  });

  it('If-None-Match: * on a creating PUT creates once; the second answers 412 and changes nothing', async () => {
    const first = await send('PUT', '/stocks/777', { name: 'first' }, { 'If-None-Match': '*' });
    expect(first.status, first.text).to.equal(201);
    expect412(await send('PUT', '/stocks/777', { name: 'second' }, { 'If-None-Match': '*' }));
    expect((await read('/stocks/777')).json.name).to.equal('first');
    // Ten clients creating the same item at once: exactly one creates it.
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send('PUT', '/stocks/778', { name: `racer ${i}` }, { 'If-None-Match': '*' }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).to.deep.equal([201, ...Array<number>(9).fill(412)]);
  });

  it('two PATCHes of the same version that both pass the check: the store writes one, the other answers 412', async () => {
    // Both are past the comparison with the current ETag before either stores (the processor waits 300 ms): the
    // write itself must be conditional.
    const iri = await create('/crates', { count: 0 });
    const { etag } = await read(iri);
    const answers = await Promise.all([1, 2].map((count) => send('PATCH', iri, { count }, { 'If-Match': etag })));
    expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 412]);
    const winner = answers.find((r) => r.status === 200)!.json.count;
    expect((await read(iri)).json.count).to.equal(winner);
  });

  it('30 parallel read-modify-write PATCHes, each retried on 412, end with the right total', async () => {
    const iri = await create('/stocks', { name: 'counter', count: 0 });
    let conflicts = 0;
    const increment = async (): Promise<void> => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const { etag, json } = await read(iri);
        const r = await send('PATCH', iri, { count: json.count + 1 }, { 'If-Match': etag });
        if (r.status === 200) return;
        expect(r.status, r.text).to.equal(412);
        conflicts++;
      }
      throw new Error('no attempt succeeded');
    };
    await Promise.all(Array.from({ length: 30 }, increment));
    expect((await read(iri)).json.count).to.equal(30);
    expect(conflicts, 'the clients did race').to.be.greaterThan(0);
  });

  it('requireIfMatch: a write without If-Match answers 428 and stores nothing; with it, it applies', async () => {
    const iri = await create('/ledgers', { balance: 5 });
    for (const [method, body] of [
      ['PATCH', { balance: 6 }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await send(method, iri, body);
      expect(refused.status, refused.text).to.equal(428);
      expect(refused.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(refused.json).to.include({ status: 428, title: 'Precondition Required' });
    }
    expect((await read(iri)).json.balance).to.equal(5);
    const patched = await send('PATCH', iri, { balance: 6 }, { 'If-Match': (await read(iri)).etag });
    expect(patched.status, patched.text).to.equal(200);
    expect((await read(iri)).json.balance).to.equal(6);
  });

  it('GraphQL update and delete mutations take ifMatch: a stale one is an error with status 412', async () => {
    const iri = await create('/stocks', { name: 'gql', count: 1 });
    const stale = (await read(iri)).etag;
    const update = `mutation($id: ID!, $count: Int, $ifMatch: String) {
      updateStock(input: { id: $id, count: $count, ifMatch: $ifMatch }) { stock { count } } }`;
    const ok = await graphql(server.url, update, { id: iri, count: 2, ifMatch: stale });
    expect(ok.errors, JSON.stringify(ok.errors)).to.equal(undefined);
    expect(ok.data.updateStock.stock.count).to.equal(2);
    const refused = await graphql(server.url, update, { id: iri, count: 3, ifMatch: stale });
    expect(refused.errors?.[0]?.extensions?.status, JSON.stringify(refused)).to.equal(412);
    const remove = `mutation($id: ID!, $ifMatch: String) { deleteStock(input: { id: $id, ifMatch: $ifMatch }) { stock { id } } }`;
    expect((await graphql(server.url, remove, { id: iri, ifMatch: stale })).errors?.[0]?.extensions?.status).to.equal(
      412,
    );
    expect((await read(iri)).json.count).to.equal(2);
    // An If-Match header on the GraphQL request itself conditions nothing: only the input does.
    const header = await graphql(server.url, update, { id: iri, count: 4 }, { 'If-Match': '"nothing"' });
    expect(header.errors, JSON.stringify(header.errors)).to.equal(undefined);
    // requireIfMatch holds for GraphQL too.
    const ledger = await create('/ledgers', { balance: 1 });
    const missing = await graphql(
      server.url,
      `
        mutation ($id: ID!) {
          deleteLedger(input: { id: $id }) {
            ledger {
              id
            }
          }
        }
      `,
      {
        id: ledger,
      },
    );
    expect(missing.errors?.[0]?.extensions?.status).to.equal(428);
    const deleted = await graphql(
      server.url,
      `
        mutation ($id: ID!, $ifMatch: String) {
          deleteLedger(input: { id: $id, ifMatch: $ifMatch }) {
            ledger {
              id
            }
          }
        }
      `,
      { id: ledger, ifMatch: (await read(ledger)).etag },
    );
    expect(deleted.errors, JSON.stringify(deleted.errors)).to.equal(undefined);
    expect((await request(server.url, 'GET', ledger)).status).to.equal(404);
  });

  it('MCP patch, put and delete tools take ifMatch: a stale one is an isError result with status 412', async () => {
    const client = new Client({ name: 'apidsl-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        return { isError: result.isError === true, doc: result.structuredContent as Record<string, unknown> };
      };
      const iri = await create('/stocks', { name: 'mcp', count: 1 });
      const id = Number(iri.split('/').pop());
      const stale = (await read(iri)).etag;
      const patched = await call('patch_stock', { id, body: { count: 2 }, ifMatch: stale });
      expect(patched.isError, JSON.stringify(patched.doc)).to.equal(false);
      for (const [name, args] of [
        ['patch_stock', { id, body: { count: 3 }, ifMatch: stale }],
        ['put_stock', { id, body: { name: 'mcp', count: 3 }, ifMatch: stale }],
        ['delete_stock', { id, ifMatch: stale }],
      ] as const) {
        const refused = await call(name, args);
        expect(refused.isError, name).to.equal(true);
        expect(refused.doc.status, name).to.equal(412);
      }
      expect((await read(iri)).json.count).to.equal(2);
      const ledger = await create('/ledgers', { balance: 1 });
      const missing = await call('patch_ledger', { id: Number(ledger.split('/').pop()), body: { balance: 2 } });
      expect(missing).to.deep.include({ isError: true });
      expect(missing.doc.status).to.equal(428);
    } finally {
      await client.close();
    }
  });
});
