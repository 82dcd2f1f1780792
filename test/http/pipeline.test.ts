/**
 * The pipeline stage switches `write`, `validate`, `deserialize`, `output` and
 * `read` (fixture pipeline.api, resource Memo).
 */
import { expect } from 'chai';
import { fixture, request, useServer } from './harness.js';

describe('HTTP pipeline switches (fixture pipeline.api)', () => {
  const server = useServer(fixture('pipeline.api'));
  const count = async (): Promise<number> => {
    const r = await request(server.url, 'GET', '/memos');
    expect(r.status).to.equal(200);
    return r.json.totalItems as number;
  };

  it('write: false on a Post answers with the item but stores nothing', async () => {
    expect(await count()).to.equal(0);
    const r = await request(server.url, 'POST', '/memos/dry-run', { body: { id: 7, text: 'dry' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json['@type']).to.equal('Memo');
    expect(r.json.text).to.equal('dry');
    expect(await count()).to.equal(0);
    expect((await request(server.url, 'GET', '/memos/7')).status).to.equal(404);
  });

  it('write: false still validates (422 for an invalid memo)', async () => {
    const r = await request(server.url, 'POST', '/memos/dry-run', { body: { id: 8, text: '' } });
    expect(r.status).to.equal(422);
  });

  it('the regular Post rejects a text over 10 characters (422)', async () => {
    const r = await request(server.url, 'POST', '/memos', { body: { text: 'far too long for a memo' } });
    expect(r.status).to.equal(422);
    expect(r.json.violations[0].propertyPath).to.equal('text');
    expect(await count()).to.equal(0);
  });

  it('validate: false stores the same invalid body', async () => {
    const r = await request(server.url, 'POST', '/memos/unchecked', { body: { text: 'far too long for a memo' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.text).to.equal('far too long for a memo');
    const g = await request(server.url, 'GET', r.json['@id']);
    expect(g.status).to.equal(200);
    expect(g.json.text).to.equal('far too long for a memo');
    expect(await count()).to.equal(1);
  });

  it('deserialize: false: the processor does not receive the decoded body', async () => {
    const r = await request(server.url, 'POST', '/memos/raw', { body: { text: 'from body' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json['@type']).to.equal('Memo');
    expect(r.json.text).to.equal('raw');
    expect(await count()).to.equal(2);
  });

  it('deserialize: false: a body that is not JSON is not an error', async () => {
    const r = await request(server.url, 'POST', '/memos/raw', {
      headers: { 'Content-Type': 'application/ld+json' },
      body: '{not json',
    });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.text).to.equal('raw');
    expect(await count()).to.equal(3);
  });

  it('output: false: a success without body and without Content-Type, and the item is stored', async () => {
    const r = await request(server.url, 'POST', '/memos/silent', { body: { text: 'quiet' } });
    expect([201, 204], r.text).to.include(r.status);
    expect(r.text).to.equal('');
    expect(r.headers.get('content-type')).to.equal(null);
    expect(await count()).to.equal(4);
    const list = await request(server.url, 'GET', '/memos');
    expect(list.json.member.map((m: { text: string }) => m.text)).to.include('quiet');
  });

  it('read: false on a Get with a controller: no lookup, so no 404 for an unknown id', async () => {
    const r = await request(server.url, 'GET', '/memos/424242/computed');
    expect(r.status, r.text).to.equal(200);
    expect(r.json['@type']).to.equal('Memo');
    expect(r.json.id).to.equal(424242);
    expect(r.json.text).to.equal('computed');
  });

  it('the same controller with the default read answers 404 for an unknown id', async () => {
    const r = await request(server.url, 'GET', '/memos/424242/computed-after-read');
    expect(r.status).to.equal(404);
  });

  it("... and 200 with the controller's data for a known id", async () => {
    const list = await request(server.url, 'GET', '/memos');
    const id = list.json.member[0].id as number;
    const r = await request(server.url, 'GET', `/memos/${id}/computed-after-read`);
    expect(r.status, r.text).to.equal(200);
    expect(r.json.id).to.equal(id);
    expect(r.json.text).to.equal('computed');
  });
});
