/**
 * JSON:API as a format over real HTTP, in memory and on the embedded store: item and collection
 * documents with relationships, pagination links and meta, error documents, and POST and PATCH with
 * JSON:API bodies. Every document is checked against the JSON:API 1.1 JSON Schema (test fixture) and
 * read back by an independent JSON:API client library (jsonapi-serializer's Deserializer).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import JsonApiSerializer from 'jsonapi-serializer';
import { fromRoot } from '../support/paths.js';
import { ResponseChecker, responsePointer, seriousme } from '../openapi/validators.js';
import './security-helpers.js';
import { fixture, get, request, tempDir, useServer } from './harness.js';

const MEDIA = 'application/vnd.api+json';
const JSONAPI = { Accept: MEDIA, 'Content-Type': MEDIA };

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
// JSON:API 1.1 says a link is a URI-reference (RFC 3986 §4.1), so relative links such as `/books?page=2` are
// valid; the schema's `format: "uri"` would demand a scheme, its pattern does not.
ajv.addFormat('uri', true);
const schemaCheck = ajv.compile(JSON.parse(readFileSync(fromRoot('test/fixtures/jsonapi/schema-1.1.json'), 'utf8')));

/** Fails with the schema's errors unless the document is a valid JSON:API 1.1 document. */
function expectValid(doc: unknown): void {
  expect(schemaCheck(doc), JSON.stringify(schemaCheck.errors)).to.equal(true);
}

// Relationships without `included` resources are read as their identifiers.
const deserialize = (doc: unknown): Promise<unknown> =>
  new JsonApiSerializer.Deserializer({
    keyForAttribute: 'camelCase',
    Author: { valueForRelationship: (rel: { id: string }) => ({ id: rel.id }) },
  }).deserialize(doc);

for (const storage of [['--memory'], ['--data', 'DIR']]) {
  describe(`HTTP JSON:API format (${storage[0]})`, () => {
    const server = useServer(fixture('jsonapi.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));
    before(async () => {
      for (const name of ['Le Guin', 'Herbert'])
        expect((await request(server.url, 'POST', '/authors', { body: { name } })).status).to.equal(201);
    });

    it('POST with a JSON:API body creates the item and answers its resource object', async () => {
      const r = await request(server.url, 'POST', '/books', {
        headers: JSONAPI,
        body: {
          data: {
            type: 'Book',
            attributes: { title: 'Earthsea' },
            relationships: {
              author: { data: { type: 'Author', id: '/authors/1' } },
              coauthors: { data: [{ type: 'Author', id: '/authors/2' }] },
            },
          },
        },
      });
      expect(r.status, r.text).to.equal(201);
      expect(r.headers.get('content-type')).to.equal(MEDIA);
      expectValid(r.json);
      expect(r.json).to.deep.equal({
        data: {
          id: '/books/1',
          type: 'Book',
          attributes: { title: 'Earthsea' },
          relationships: {
            author: { data: { type: 'Author', id: '/authors/1' } },
            coauthors: { data: [{ type: 'Author', id: '/authors/2' }] },
          },
        },
      });
      // The same item in JSON-LD: attributes and relationships are plain properties.
      const ld = await get(server.url, '/books/1');
      expect(ld.json).to.include({ id: 1, title: 'Earthsea', author: '/authors/1' });
      // A property JSON:API reserves (`type`) is no attribute: set in JSON, left out of JSON:API documents.
      await request(server.url, 'PATCH', '/books/1', {
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: { type: 'novel' },
      });
      const again = await get(server.url, '/books/1', { Accept: MEDIA });
      expectValid(again.json);
      expect(again.json.data.attributes).to.deep.equal({ title: 'Earthsea' });
    });

    it('GET item: a valid document an independent client reads back', async () => {
      const r = await get(server.url, '/books/1', { Accept: MEDIA });
      expect(r.status).to.equal(200);
      expectValid(r.json);
      const book = (await deserialize(r.json)) as Record<string, unknown>;
      expect(book).to.include({ id: '/books/1', title: 'Earthsea' });
      expect(book.author).to.deep.equal({ id: '/authors/1' });
    });

    it('collections: data, pagination links and meta', async () => {
      for (const title of ['Dune', 'Solaris']) {
        const r = await request(server.url, 'POST', '/books', {
          headers: JSONAPI,
          body: { data: { type: 'Book', attributes: { title } } },
        });
        expect(r.status, r.text).to.equal(201);
      }
      const first = await get(server.url, '/books', { Accept: MEDIA });
      expect(first.status).to.equal(200);
      expectValid(first.json);
      expect(first.json.links).to.deep.equal({
        self: '/books?page=1',
        first: '/books?page=1',
        last: '/books?page=2',
        next: '/books?page=2',
      });
      expect(first.json.meta).to.deep.equal({ totalItems: 3, itemsPerPage: 2, currentPage: 1 });
      expect(first.json.data.map((d: { id: string }) => d.id)).to.deep.equal(['/books/1', '/books/2']);
      const second = await get(server.url, first.json.links.next, { Accept: MEDIA });
      expectValid(second.json);
      expect(second.json.links).to.deep.equal({
        self: '/books?page=2',
        first: '/books?page=1',
        last: '/books?page=2',
        prev: '/books?page=1',
      });
      const books = (await deserialize(second.json)) as { title: string }[];
      expect(books.map((b) => b.title)).to.deep.equal(['Solaris']);
      // A relation left empty is a null (to-one) or empty (to-many) linkage.
      expect(second.json.data[0].relationships).to.deep.equal({ author: { data: null }, coauthors: { data: [] } });
    });

    it('PATCH with a JSON:API body changes the attributes and relationships it holds, and only those', async () => {
      const r = await request(server.url, 'PATCH', '/books/1', {
        headers: JSONAPI,
        body: {
          data: {
            type: 'Book',
            id: '/books/1',
            attributes: { title: 'A Wizard of Earthsea' },
            relationships: { author: { data: { type: 'Author', id: '/authors/2' } } },
          },
        },
      });
      expect(r.status, r.text).to.equal(200);
      expectValid(r.json);
      expect(r.json.data.attributes).to.deep.equal({ title: 'A Wizard of Earthsea' });
      expect(r.json.data.relationships.author).to.deep.equal({ data: { type: 'Author', id: '/authors/2' } });
      expect((await get(server.url, '/books/1')).json).to.include({
        title: 'A Wizard of Earthsea',
        author: '/authors/2',
        type: 'novel',
      });
    });

    it('errors: JSON:API error objects, a violation pointing at its attribute', async () => {
      const invalid = await request(server.url, 'POST', '/books', {
        headers: JSONAPI,
        body: { data: { type: 'Book', attributes: { title: 'x'.repeat(30) } } },
      });
      expect(invalid.status).to.equal(422);
      expect(invalid.headers.get('content-type')).to.equal(MEDIA);
      expectValid(invalid.json);
      expect(invalid.json.errors).to.have.length(1);
      expect(invalid.json.errors[0]).to.include({
        status: '422',
        detail: 'This value is too long. It should have 20 characters or less.',
      });
      expect(invalid.json.errors[0].source).to.deep.equal({ pointer: '/data/attributes/title' });
      const missing = await get(server.url, '/books/99', { Accept: MEDIA });
      expect(missing.status).to.equal(404);
      expectValid(missing.json);
      expect(missing.json.errors[0]).to.include({ status: '404' });
      const dangling = await request(server.url, 'POST', '/books', {
        headers: JSONAPI,
        body: {
          data: {
            type: 'Book',
            attributes: { title: 'X' },
            relationships: { author: { data: { type: 'Author', id: '/authors/9' } } },
          },
        },
      });
      expect(dangling.status).to.equal(400);
      expectValid(dangling.json);
      expect(dangling.json.errors[0].detail).to.equal('Item not found for "/authors/9".');
    });

    it('page[page] and page[itemsPerPage] paginate, with links and meta', async () => {
      const r = await get(server.url, '/books?page[page]=2&page[itemsPerPage]=1', { Accept: MEDIA });
      expect(r.status, r.text).to.equal(200);
      expectValid(r.json);
      expect(r.json.meta).to.deep.equal({ totalItems: 3, itemsPerPage: 1, currentPage: 2 });
      expect(r.json.data.map((d: { id: string }) => d.id)).to.deep.equal(['/books/2']);
      expect(r.json.links).to.include({
        first: '/books?itemsPerPage=1&page=1',
        last: '/books?itemsPerPage=1&page=3',
        prev: '/books?itemsPerPage=1&page=1',
        next: '/books?itemsPerPage=1&page=3',
      });
      const next = await get(server.url, r.json.links.next, { Accept: MEDIA });
      expect(next.json.data.map((d: { id: string }) => d.id)).to.deep.equal(['/books/3']);
    });

    it('sort maps onto the order filter (a leading "-" descends); a field it does not cover, or no order filter, is a 400', async () => {
      const r = await get(server.url, '/books?sort=-title&page[itemsPerPage]=3', { Accept: MEDIA });
      expect(r.status, r.text).to.equal(200);
      expectValid(r.json);
      expect(r.json.data.map((d: { attributes: { title: string } }) => d.attributes.title)).to.deep.equal([
        'Solaris',
        'Dune',
        'A Wizard of Earthsea',
      ]);
      const asc = await get(server.url, '/books?sort=title,-id&page[itemsPerPage]=3', { Accept: MEDIA });
      expect(asc.json.data.map((d: { attributes: { title: string } }) => d.attributes.title)).to.deep.equal([
        'A Wizard of Earthsea',
        'Dune',
        'Solaris',
      ]);
      for (const path of ['/books?sort=type', '/notes?sort=text']) {
        const bad = await get(server.url, path, { Accept: MEDIA });
        expect(bad.status, path).to.equal(400);
        expect(bad.headers.get('content-type')).to.equal(MEDIA);
        expectValid(bad.json);
      }
    });

    it('include: a compound document whose included resources an independent client resolves', async () => {
      const r = await get(server.url, '/books/1?include=author,coauthors', { Accept: MEDIA });
      expect(r.status, r.text).to.equal(200);
      expectValid(r.json);
      expect(r.json.included).to.deep.equal([{ id: '/authors/2', type: 'Author', attributes: { name: 'Herbert' } }]);
      const list = await get(server.url, '/books?include=author,coauthors&page[itemsPerPage]=3', { Accept: MEDIA });
      expectValid(list.json);
      expect(list.json.included.map((i: { id: string }) => i.id)).to.deep.equal(['/authors/2']);
      const book = (await new JsonApiSerializer.Deserializer({ keyForAttribute: 'camelCase' }).deserialize(r.json)) as {
        author: { name: string };
      };
      expect(book.author).to.include({ name: 'Herbert' });
      const review = await request(server.url, 'POST', '/reviews', { body: { text: 'Good' } });
      expect(review.status, review.text).to.equal(201);
      for (const path of [
        '/books/1?include=title',
        '/books/1?include=author.books',
        `${review.json['@id']}?include=secret`,
      ]) {
        const bad = await get(server.url, path, { Accept: MEDIA });
        expect(bad.status, path).to.equal(400);
        expectValid(bad.json);
      }
    });

    it('include of relationship paths: every item along each path joins included once, with full linkage', async () => {
      const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
        const r = await request(server.url, 'POST', path, { body });
        expect(r.status, r.text).to.equal(201);
        return r.json['@id'] as string;
      };
      const [tor, gollancz] = [
        await post('/publishers', { name: 'Tor' }),
        await post('/publishers', { name: 'Gollancz' }),
      ];
      const wolfe = await post('/writers', { name: 'Wolfe', publisher: tor });
      const banks = await post('/writers', { name: 'Banks', publisher: gollancz });
      const vance = await post('/writers', { name: 'Vance', publisher: tor });
      const essay = await post('/essays', { title: 'On Urth', writer: wolfe, reviewers: [banks, vance, wolfe] });
      await post('/essays', { title: 'On Culture', writer: banks, reviewers: [] });

      const r = await get(server.url, `${essay}?include=writer.publisher,reviewers.publisher`, { Accept: MEDIA });
      expect(r.status, r.text).to.equal(200);
      expectValid(r.json);
      const ids = r.json.included.map((i: { type: string; id: string }) => `${i.type} ${i.id}`);
      expect(ids).to.have.members([
        `Writer ${wolfe}`,
        `Writer ${banks}`,
        `Writer ${vance}`,
        `Publisher ${tor}`,
        `Publisher ${gollancz}`,
      ]);
      expect(ids).to.have.length(5);
      // Full linkage: each included object is reached from the primary data through relationships.
      expect(r.json.included.find((i: { id: string }) => i.id === banks)).to.deep.equal({
        id: banks,
        type: 'Writer',
        attributes: { name: 'Banks' },
        relationships: { publisher: { data: { type: 'Publisher', id: gollancz } } },
      });
      const read = (await new JsonApiSerializer.Deserializer({ keyForAttribute: 'camelCase' }).deserialize(r.json)) as {
        writer: { publisher: { name: string } };
        reviewers: { name: string; publisher: { name: string } }[];
      };
      expect(read.writer.publisher.name).to.equal('Tor');
      expect(read.reviewers.map((w) => `${w.name}/${w.publisher.name}`)).to.deep.equal([
        'Banks/Gollancz',
        'Vance/Tor',
        'Wolfe/Tor',
      ]);

      // One level only: the publishers stay out.
      const one = await get(server.url, `${essay}?include=writer`, { Accept: MEDIA });
      expect(one.json.included.map((i: { id: string }) => i.id)).to.deep.equal([wolfe]);
      // A collection: the items of every page member's paths, each once.
      const list = await get(server.url, '/essays?include=writer.publisher', { Accept: MEDIA });
      expect(list.status, list.text).to.equal(200);
      expectValid(list.json);
      expect(list.json.included.map((i: { id: string }) => i.id)).to.have.members([wolfe, tor, banks, gollancz]);
      expect(list.json.included).to.have.length(4);

      for (const path of [
        'writer.nothing',
        'writer.name',
        'writer.publisher.name',
        'title.writer',
        'writer..publisher',
      ]) {
        const bad = await get(server.url, `${essay}?include=${path}`, { Accept: MEDIA });
        expect(bad.status, path).to.equal(400);
        expectValid(bad.json);
        expect(bad.json.errors[0].detail, path).to.contain(`The relationship path "${path}" cannot be included`);
      }
    });

    it('sparse fieldsets: fields[type] keeps only the named members, in data and in included', async () => {
      const r = await get(server.url, '/books/1?include=author&fields[Book]=author&fields[Author]=id', {
        Accept: MEDIA,
      });
      expect(r.status, r.text).to.equal(200);
      expectValid(r.json);
      expect(r.json.data).to.deep.equal({
        id: '/books/1',
        type: 'Book',
        relationships: { author: { data: { type: 'Author', id: '/authors/2' } } },
      });
      expect(r.json.included).to.deep.equal([{ id: '/authors/2', type: 'Author' }]);
      const titles = await get(server.url, '/books?fields[Book]=title', { Accept: MEDIA });
      expectValid(titles.json);
      expect(titles.json.data[0]).to.deep.equal({
        id: '/books/1',
        type: 'Book',
        attributes: { title: 'A Wizard of Earthsea' },
      });
    });

    it('OpenAPI: application/vnd.api+json schemas that the served documents match, and a valid OpenAPI document', async () => {
      const doc = (await get(server.url, '/docs.json')).json;
      const verdict = await seriousme(doc);
      expect(verdict.valid, verdict.errors).to.equal(true);
      const checker = new ResponseChecker(doc);
      const served: [string, string, number, string][] = [
        ['/books/{id}', 'get', 200, '/books/1?include=author'],
        ['/books', 'get', 200, '/books?page[itemsPerPage]=2'],
        ['/books/{id}', 'get', 404, '/books/99'],
      ];
      for (const [template, method, status, path] of served) {
        const r = await get(server.url, path, { Accept: MEDIA });
        expect(r.status, path).to.equal(status);
        expect(checker.check(responsePointer(template, method, status, MEDIA), r.json), path).to.equal(undefined);
      }
      const invalid = await request(server.url, 'POST', '/books', {
        headers: JSONAPI,
        body: { data: { type: 'Book', attributes: { title: 'x'.repeat(30) } } },
      });
      expect(checker.check(responsePointer('/books', 'post', 422, MEDIA), invalid.json)).to.equal(undefined);
      const post = doc.paths['/books'].post.requestBody.content[MEDIA].schema;
      expect(post.properties.data.$ref).to.equal('#/components/schemas/Book.jsonapi.input');
      const object = doc.components.schemas['Book.jsonapi'];
      expect(Object.keys(object.properties.attributes.properties)).to.have.members(['title']);
      expect(Object.keys(object.properties.relationships.properties)).to.have.members(['author', 'coauthors']);
      // A schema that could not fail would prove nothing: a plain JSON-LD item does not match.
      expect(
        checker.check(responsePointer('/books/{id}', 'get', 200, MEDIA), (await get(server.url, '/books/1')).json),
      ).to.not.equal(undefined);
    });

    it('a body that is not a JSON:API document, or of another type, answers 400', async () => {
      for (const body of [
        { title: 'plain' },
        { data: [] },
        { data: { type: 'Author', attributes: { title: 'X' } } },
        { data: { type: 'Book', relationships: { author: {} } } },
      ]) {
        const r = await request(server.url, 'POST', '/books', { headers: JSONAPI, body });
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expectValid(r.json);
      }
    });
  });
}
