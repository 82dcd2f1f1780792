/**
 * Routing errors (405 with Allow, 404 for unknown paths), validation errors
 * (422 ConstraintViolation documents, docs/behaviour.md) and the other request errors of the status
 * table, on the bookstore.
 */
import { expect } from 'chai';
import { bookstore, errorDoc, headerList, NOT_BLANK, PROBLEM_JSON, request, useServer } from './harness.js';

describe('HTTP errors: routing', () => {
  const server = useServer(bookstore());
  before(async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Dune' } });
    expect(r.status, r.text).to.equal(201);
  });

  it('DELETE /books (no operation has that method on the path) answers 405 with Allow', async () => {
    const r = await request(server.url, 'DELETE', '/books');
    expect(r.status).to.equal(405);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json['@type']).to.equal('Error');
    expect(r.json.status).to.equal(405);
    const allow = headerList(r.headers, 'allow');
    expect(allow).to.include.members(['GET', 'POST']);
    expect(allow).to.not.include('DELETE');
  });

  it('POST /books/1 answers 405 with an Allow listing the item methods', async () => {
    const r = await request(server.url, 'POST', '/books/1', { body: { title: 'x' } });
    expect(r.status).to.equal(405);
    const allow = headerList(r.headers, 'allow');
    expect(allow).to.include.members(['GET', 'PUT', 'PATCH', 'DELETE']);
    expect(allow).to.not.include('POST');
  });

  it('an unknown path answers 404 with an error document', async () => {
    const r = await request(server.url, 'GET', '/authors');
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json['@type']).to.equal('Error');
    expect(r.json.status).to.equal(404);
    expect(r.json.type).to.equal('/errors/404');
    expect(r.json.detail).to.be.a('string').and.not.equal('');
  });

  it('an unknown path under an existing one answers 404, not 405', async () => {
    expect((await request(server.url, 'GET', '/books/1/chapters')).status).to.equal(404);
    expect((await request(server.url, 'DELETE', '/books/1/chapters')).status).to.equal(404);
  });

  it('Accept: application/json on an error gives the plain problem document', async () => {
    const r = await request(server.url, 'GET', '/books/999', { headers: { Accept: 'application/json' } });
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal({ type: '/errors/404', title: 'An error occurred', status: 404, detail: 'Not Found' });
  });
});

describe('HTTP errors: validation (422)', () => {
  const server = useServer(bookstore());
  before(async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Dune', price: 5 } });
    expect(r.status, r.text).to.equal(201);
  });

  const blankTitle = {
    '@context': '/contexts/ConstraintViolation',
    '@id': `/validation_errors/${NOT_BLANK}`,
    '@type': 'ConstraintViolation',
    status: 422,
    violations: [{ propertyPath: 'title', message: 'This value should not be blank.', code: NOT_BLANK }],
    detail: 'title: This value should not be blank.',
    title: 'An error occurred',
    description: 'title: This value should not be blank.',
    type: `/validation_errors/${NOT_BLANK}`,
  };

  it('a missing required title answers 422 with the ConstraintViolation document', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { author: 'Anonymous' } });
    expect(r.status).to.equal(422);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(blankTitle);
  });

  it('an empty title is blank too (422, same document)', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: '' } });
    expect(r.status).to.equal(422);
    expect(r.json).to.deep.equal(blankTitle);
  });

  it('a null title is blank too (422, same document)', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: null } });
    expect(r.status).to.equal(422);
    expect(r.json).to.deep.equal(blankTitle);
  });

  it('a negative price answers 422 with one violation on price', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Cheap', price: -1 } });
    expect(r.status).to.equal(422);
    expect(r.json['@type']).to.equal('ConstraintViolation');
    expect(r.json.status).to.equal(422);
    expect(r.json.violations).to.have.lengthOf(1);
    expect(r.json.violations[0].propertyPath).to.equal('price');
    expect(r.json.detail).to.match(/^price: /);
  });

  it('a title longer than 255 characters answers 422 with one violation on title', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'x'.repeat(256) } });
    expect(r.status).to.equal(422);
    expect(r.json['@type']).to.equal('ConstraintViolation');
    expect(r.json.violations).to.have.lengthOf(1);
    expect(r.json.violations[0].propertyPath).to.equal('title');
  });

  it('a title of exactly 255 characters is accepted', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'y'.repeat(255) } });
    expect(r.status, r.text).to.equal(201);
  });

  it('two violations are both listed and joined in detail', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { price: -3 } });
    expect(r.status).to.equal(422);
    expect(r.json.violations.map((v: { propertyPath: string }) => v.propertyPath)).to.have.members(['title', 'price']);
    const lines = (r.json.detail as string).split('\n');
    expect(lines).to.have.lengthOf(2);
    expect(lines).to.include('title: This value should not be blank.');
  });

  it('a wrong type on a constrained property answers 422 "This value should be of type string."', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 42 } });
    expect(r.status).to.equal(422);
    expect(r.json.detail).to.equal('title: This value should be of type string.');
  });

  it('a wrong type on a property without constraints answers 400', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'Typed', author: 42 } });
    expect(r.status).to.equal(400);
    expect(r.json).to.deep.equal(
      errorDoc(400, 'The type of the "author" attribute must be "string", "integer" given.'),
    );
  });

  it('an @id in a POST body answers 400 "Update is not allowed for this operation."', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { '@id': '/books/1', title: 'Overwrite' } });
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Update is not allowed for this operation.');
  });

  it('PUT validates the merged item: an explicit null title answers 422', async () => {
    const r = await request(server.url, 'PUT', '/books/1', { body: { title: null } });
    expect(r.status).to.equal(422);
    expect(r.json).to.deep.equal(blankTitle);
  });

  it('PATCH validates too: a negative price answers 422', async () => {
    const r = await request(server.url, 'PATCH', '/books/1', {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ price: -10 }),
    });
    expect(r.status).to.equal(422);
    expect(r.json.violations[0].propertyPath).to.equal('price');
  });

  it('none of the rejected writes changed the stored data', async () => {
    const item = await request(server.url, 'GET', '/books/1');
    expect(item.json).to.deep.equal({
      '@context': '/contexts/Book',
      '@id': '/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      price: 5,
    });
    const list = await request(server.url, 'GET', '/books');
    expect(list.json.totalItems).to.equal(2);
  });
});
