/**
 * Custom controllers on HttpOperations, and the built-in NotFoundAction
 * (fixture pipeline.api, resource Article).
 */
import { expect } from 'chai';
import { fixture, JSONLD, PROBLEM_JSON, request, useServer } from './harness.js';

describe('HTTP controllers (fixture pipeline.api)', () => {
  const server = useServer(fixture('pipeline.api'));
  before(async () => {
    const r = await request(server.url, 'POST', '/articles', { body: { title: 'Draft', status: 'draft' } });
    expect(r.status, r.text).to.equal(201);
  });

  it("POST /articles/1/publish answers 200 with the controller's data serialized as an Article", async () => {
    const r = await request(server.url, 'POST', '/articles/1/publish', { body: {} });
    expect(r.status, r.text).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json['@context']).to.equal('/contexts/Article');
    expect(r.json['@type']).to.equal('Article');
    expect(r.json['@id']).to.be.a('string');
    expect(r.json.id).to.equal(1);
    expect(r.json.title).to.equal('Article 1');
    expect(r.json.status).to.equal('published');
  });

  it("the controller's data follows content negotiation (Accept: application/json)", async () => {
    const r = await request(server.url, 'POST', '/articles/1/publish', {
      body: {},
      headers: { Accept: 'application/json' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({ id: 1, title: 'Article 1', status: 'published' });
  });

  it('a controller on a GET HttpOperation answers 200 with its data', async () => {
    const r = await request(server.url, 'GET', '/articles/1/summary');
    expect(r.status, r.text).to.equal(200);
    expect(r.json['@type']).to.equal('Article');
    expect(r.json.id).to.equal(1);
    expect(r.json.title).to.equal('Summary of 1');
    expect(r.json.status).to.equal('summarised');
  });

  it('the built-in NotFoundAction answers 404 even for an existing item', async () => {
    const r = await request(server.url, 'GET', '/articles/1/retired');
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json['@type']).to.equal('Error');
    expect(r.json.status).to.equal(404);
  });

  it('the regular item route still answers', async () => {
    const r = await request(server.url, 'GET', '/articles/1');
    expect(r.status).to.equal(200);
    expect(r.json['@id']).to.equal('/articles/1');
  });
});
