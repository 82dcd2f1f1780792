/**
 * Parameter validation (docs/behaviour.md, "Filters and QUERY"): strict operations reject
 * criteria nothing understands (400), required parameters must be present (422), on GET from
 * the URL and on QUERY from the body.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { request, useServer } from './harness.js';

describe('HTTP parameters: strict validation and required parameters', () => {
  const server = useServer(fromRoot('test/fixtures/parameters/strict.api'));
  before(async () => {
    for (const [name, price] of [
      ['a', 1],
      ['b', 5],
    ] as const) {
      expect((await request(server.url, 'POST', '/things', { body: { name, price } })).status).to.equal(201);
    }
  });

  it("accepts the filters' parameters and the honoured pagination switches", async () => {
    const r = await request(server.url, 'GET', '/things?name=a&price[gt]=0&page=1&itemsPerPage=2');
    expect(r.status, r.text).to.equal(200);
    expect(r.json.member.map((m: { name: string }) => m.name)).to.deep.equal(['a']);
  });

  it('rejects an unknown parameter with 400 "Parameter "x" not supported"', async () => {
    const r = await request(server.url, 'GET', '/things?nme=a');
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Parameter "nme" not supported');
  });

  it('rejects a pagination switch the operation does not honour', async () => {
    const r = await request(server.url, 'GET', '/things?pagination=false');
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Parameter "pagination" not supported');
  });

  it("QUERY: strict on the body's keys", async () => {
    const ok = await request(server.url, 'QUERY', '/things', {
      body: '{"cheap":{"lt":3}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.json.member.map((m: { name: string }) => m.name)).to.deep.equal(['a']);
    const bad = await request(server.url, 'QUERY', '/things', {
      body: '{"cheap":{"lt":3},"bogus":1}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.json.detail).to.equal('Parameter "bogus" not supported');
  });

  it('a missing required parameter is a 422 NotBlank violation; present, it filters', async () => {
    const missing = await request(server.url, 'GET', '/needy');
    expect(missing.status).to.equal(422);
    expect(missing.json.violations).to.deep.equal([
      {
        propertyPath: 'name',
        message: 'This value should not be blank.',
        code: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
      },
    ]);
    const present = await request(server.url, 'GET', '/needy?name=b');
    expect(present.status).to.equal(200);
    expect(present.json.member.map((m: { name: string }) => m.name)).to.deep.equal(['b']);
  });
});
