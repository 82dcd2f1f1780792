/**
 * `denormalizationContext: { allow_extra_attributes: false }` (docs/behaviour.md, "Strict bodies"): a body holding
 * attributes the operation does not take answers 400 with Symfony's message, on every write path (POST, PUT, PATCH,
 * a bulk POST's items, JSON:API bodies), as an operation's option, a resource's, or `config { defaults }`'s.
 * GraphQL's input types refuse unknown fields themselves; its mutations still work. Runs on both stores
 * (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { type HttpResponse, JSONLD, PROBLEM_JSON, fixture, request, type RunningServer, useServer } from './harness.js';
import { data } from './graphql-helpers.js';

const send = (
  server: RunningServer,
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/ld+json',
): Promise<HttpResponse> =>
  request(server.url, method, path, { body: JSON.stringify(body), headers: { 'Content-Type': contentType } });

function expectExtra(r: HttpResponse, detail: string): void {
  expect(r.status, r.text).to.equal(400);
  expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
  expect(r.json).to.include({ status: 400, detail });
}

const totalOf = async (server: RunningServer, path: string): Promise<number> =>
  (await request(server.url, 'GET', path)).json.totalItems as number;

describe('HTTP strict bodies (allow_extra_attributes: false)', () => {
  const server = useServer(fixture('strict-bodies.api'));

  it('refuses a POST with attributes the resource does not declare, naming them, and stores nothing', async () => {
    const before = await totalOf(server, '/books');
    expectExtra(
      await send(server, 'POST', '/books', { title: 'Dune', foo: 1, bar: 2 }),
      'Extra attributes are not allowed ("foo", "bar" are unknown).',
    );
    expectExtra(
      await send(server, 'POST', '/books', { title: 'Dune', foo: 1 }),
      'Extra attributes are not allowed ("foo" is unknown).',
    );
    expect(await totalOf(server, '/books')).to.equal(before);
  });

  it('counts a read-only attribute as extra (the store-assigned id too), not the JSON-LD keywords', async () => {
    expectExtra(
      await send(server, 'POST', '/books', { title: 'Dune', isbn: '123' }),
      'Extra attributes are not allowed ("isbn" is unknown).',
    );
    expectExtra(
      await send(server, 'POST', '/books', { id: 7, title: 'Dune' }),
      'Extra attributes are not allowed ("id" is unknown).',
    );
    const r = await send(server, 'POST', '/books', { '@context': '/contexts/Book', '@type': 'Book', title: 'Dune' });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
  });

  it('refuses extra attributes in a PUT and a PATCH, and keeps the item as it was', async () => {
    const created = await send(server, 'POST', '/books', { title: 'Emma' });
    const iri = created.json['@id'] as string;
    expectExtra(
      await send(server, 'PUT', iri, { '@id': iri, title: 'Persuasion', pages: 3 }),
      'Extra attributes are not allowed ("pages" is unknown).',
    );
    expectExtra(
      await send(server, 'PATCH', iri, { title: 'Persuasion', pages: 3 }, 'application/merge-patch+json'),
      'Extra attributes are not allowed ("pages" is unknown).',
    );
    expect((await request(server.url, 'GET', iri)).json.title).to.equal('Emma');
    const patched = await send(server, 'PATCH', iri, { note: 'n' }, 'application/merge-patch+json');
    expect(patched.status, patched.text).to.equal(200);
    const put = await send(server, 'PUT', iri, { '@id': iri, title: 'Persuasion' });
    expect(put.status, put.text).to.equal(200);
  });

  it('refuses a bulk POST whose one item holds an extra attribute, writing none of them', async () => {
    const before = await totalOf(server, '/books');
    expectExtra(
      await send(server, 'POST', '/books', [{ title: 'One' }, { title: 'Two', colour: 'red' }]),
      'Item [1]: Extra attributes are not allowed ("colour" is unknown).',
    );
    expect(await totalOf(server, '/books')).to.equal(before);
    const fine = await send(server, 'POST', '/books', [{ title: 'One' }, { title: 'Two' }]);
    expect(fine.status, fine.text).to.equal(201);
  });

  it('denormalizationContext: [] is the empty context: no groups (every writable property), extras ignored', async () => {
    const plain = await send(server, 'POST', '/plain_books', { title: 'Dune', note: 'kept', foo: 1 });
    expect(plain.status, plain.text).to.equal(201);
    expect(plain.json).to.include({ title: 'Dune', note: 'kept' });
    expect(plain.json).to.not.have.any.keys('foo');
  });

  it('counts an attribute outside the denormalization groups as extra; allow_extra_attributes: true ignores extras', async () => {
    expectExtra(
      await send(server, 'POST', '/book_notes', { note: 'n', title: 'Dune' }),
      'Extra attributes are not allowed ("title" is unknown).',
    );
    const loose = await send(server, 'POST', '/loose_books', { title: 'Dune', foo: 1, isbn: '1' });
    expect(loose.status, loose.text).to.equal(201);
    expect(loose.json).to.not.have.any.keys('foo', 'isbn');
  });

  it('refuses extra attributes and relationships of a JSON:API body, and attribute names JSON:API forbids', async () => {
    const jsonapi = 'application/vnd.api+json';
    const author = await send(server, 'POST', '/authors', { name: 'Ann' });
    const doc = (attributes: unknown, relationships: unknown = {}) => ({
      data: { type: 'Book', attributes, relationships },
    });
    expectExtra(
      await send(server, 'POST', '/books', doc({ title: 'Dune', foo: 1 }), jsonapi),
      'Extra attributes are not allowed ("foo" is unknown).',
    );
    expectExtra(
      await send(server, 'POST', '/books', doc({ title: 'Dune' }, { publisher: { data: null } }), jsonapi),
      'Extra attributes are not allowed ("publisher" is unknown).',
    );
    expectExtra(
      await send(server, 'POST', '/books', doc({ title: 'Dune', id: '9' }), jsonapi),
      'Extra attributes are not allowed ("id" is unknown).',
    );
    const fine = await send(
      server,
      'POST',
      '/books',
      doc({ title: 'Dune' }, { author: { data: { type: 'Author', id: author.json['@id'] } } }),
      jsonapi,
    );
    expect(fine.status, fine.text).to.equal(201);
  });

  it('takes any attribute on a resource without declared properties', async () => {
    const r = await send(server, 'POST', '/notes', { anything: 1, at: 'all' });
    expect(r.status, r.text).to.equal(201);
  });

  it('leaves GraphQL mutations working (their input types refuse unknown fields themselves)', async () => {
    const result = await data(
      server.url,
      'mutation { createBook(input: { title: "Kim", clientMutationId: "m1" }) { book { title } clientMutationId } }',
    );
    expect(result.createBook).to.deep.equal({ book: { title: 'Kim' }, clientMutationId: 'm1' });
  });
});

describe('HTTP strict bodies as the global default (config defaults denormalization_context)', () => {
  const server = useServer(fixture('strict-bodies-global.api'));

  it('refuses extras everywhere, merged under an operation context that only names groups', async () => {
    expectExtra(
      await send(server, 'POST', '/tags', { name: 'a', foo: 1 }),
      'Extra attributes are not allowed ("foo" is unknown).',
    );
    expectExtra(
      await send(server, 'POST', '/tags_by_group', { name: 'a', slug: 'a' }),
      'Extra attributes are not allowed ("slug" is unknown).',
    );
    const byGroup = await send(server, 'POST', '/tags_by_group', { name: 'a' });
    expect(byGroup.status, byGroup.text).to.equal(201);
    const loose = await send(server, 'POST', '/loose_tags', { name: 'a', foo: 1 });
    expect(loose.status, loose.text).to.equal(201);
  });
});
