/**
 * What the OpenAPI document says, checked against the metadata it comes from —
 * operations and operationIds, hidden routes left out, schemas (the very ones that validate
 * requests), pagination and filter parameters, Hydra collections, errors, deprecations, QUERY
 * in 3.2 and its omission from 3.1.
 */
import { expect } from 'chai';
import type { ApiMetadata } from '../../server/metadata/types.js';
import { openApiDocument, operationId } from '../../server/openapi/index.js';
import { resourceSchema } from '../../server/pipeline/validation/schema.js';
import { loadApi } from '../../server/load-api.js';
import { fromRoot } from '../support/paths.js';

type Any = any;

const load = (path: string): Promise<ApiMetadata> => loadApi(fromRoot(path));
const names = (op: Any): string[] => (op.parameters ?? []).map((p: Any) => p.name);
const param = (op: Any, name: string): Any => op.parameters.find((p: Any) => p.name === name);

/** Every operation of a document: [METHOD, path, operation]. */
function operations(doc: Any): [string, string, Any][] {
  const out: [string, string, Any][] = [];
  for (const [path, item] of Object.entries<Any>(doc.paths)) {
    for (const [method, op] of Object.entries<Any>(item)) {
      if (method === 'additionalOperations') for (const [m, o] of Object.entries<Any>(op)) out.push([m, path, o]);
      else out.push([method.toUpperCase(), path, op]);
    }
  }
  return out;
}

describe('OpenAPI: operations', () => {
  let bookstore: ApiMetadata;
  let iris: ApiMetadata;
  before(async () => {
    bookstore = await load('examples/bookstore.api');
    iris = await load('test/fixtures/http/iris.api');
  });

  it('is OpenAPI 3.2.0 by default, 3.1.1 on request, with the API title and version', () => {
    const doc: Any = openApiDocument(bookstore);
    expect(doc.openapi).to.equal('3.2.0');
    expect(doc.info).to.deep.equal({ title: 'Bookstore', version: '1.0.0' });
    expect((openApiDocument(bookstore, { specVersion: '3.1' }) as Any).openapi).to.equal('3.1.1');
  });

  it('documents every visible operation once, with its method and path', () => {
    for (const api of [bookstore, iris]) {
      const documented = operations(openApiDocument(api)).map(([m, p, o]) => `${m} ${p} ${o.operationId}`);
      const expected = api.resources.flatMap((r) =>
        r.operations.filter((o) => !o.hidden).map((o) => `${o.method} ${o.path} ${operationId(o.name)}`),
      );
      expect(documented.sort()).to.deep.equal(expected.sort());
    }
  });

  it('leaves hidden routes out', () => {
    const paths = Object.keys((openApiDocument(iris) as Any).paths);
    const hidden = iris.resources.flatMap((r) => r.operations.filter((o) => o.hidden).map((o) => o.path));
    expect(hidden).to.include('/tables/{id}');
    expect(hidden).to.include('/.well-known/genid/{id}');
    for (const path of hidden) expect(paths, path).to.not.include(path);
    expect(paths).to.include('/tables');
  });

  it('derives operationIds from operation names as API Platform does', () => {
    expect(operationId('_api_/books_get_collection')).to.equal('api_books_get_collection');
    expect(operationId('_api_/books/{id}_get')).to.equal('api_books_id_get');
    expect(operationId('_api_/books{._format}_get_collection')).to.equal('api_books_get_collection');
    expect(operationId('_api_/geo/places/{id}_get')).to.equal('api_geoplaces_id_get');
    expect(operationId('search')).to.equal('search');
    const ids = operations(openApiDocument(bookstore)).map(([, , o]) => o.operationId);
    expect(ids).to.include.members([
      'api_books_get_collection',
      'api_books_post',
      'api_books_query',
      'api_books_id_get',
      'api_books_id_put',
      'api_books_id_patch',
      'api_books_id_delete',
    ]);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('keeps the names the file gives', async () => {
    const ids = operations(openApiDocument(await load('examples/catalogue.api'))).map(([, , o]) => o.operationId);
    expect(ids).to.include.members(['search', 'legacyProducts']);
  });

  it('tags operations with their resource; resources without operations have no tag', () => {
    const doc: Any = openApiDocument(bookstore);
    expect(doc.tags.map((t: Any) => t.name)).to.deep.equal(['Book', 'Event', 'Place']);
    for (const [, , op] of operations(doc)) expect(op.tags).to.have.lengthOf(1);
  });

  it('marks deprecated operations and gives the reason', async () => {
    const doc: Any = openApiDocument(await load('examples/catalogue.api'));
    const legacy = doc.paths['/catalogue-items'].get;
    expect(legacy.deprecated).to.equal(true);
    expect(legacy.description).to.include('Deprecated: Use GET /products (or QUERY /products)');
    // A description the resource passes down is not the operation's own.
    expect(legacy.description).to.not.include('Something the shop sells.');
    expect(doc.paths['/products'].get).to.not.have.property('deprecated');
    expect(doc.paths['/products'].query.description).to.equal(
      'Search the catalogue with criteria in the request body.',
    );
  });

  it('methods without a fixed field go under additionalOperations (3.2) and are left out of 3.1', async () => {
    const api = await load('test/openapi/fixtures/methods.api');
    const doc32: Any = openApiDocument(api);
    expect(doc32.paths['/things/{id}/cache'].additionalOperations.PURGE.operationId).to.equal('purgeThing');
    expect(doc32.paths['/things/{id}/lookup'].query.operationId).to.equal('lookupThing');
    const doc31: Any = openApiDocument(api, { specVersion: '3.1' });
    expect(doc31.paths['/things/{id}/cache']).to.deep.equal({});
    expect(doc31['x-apidsl-omitted'].map((o: Any) => `${o.method} ${o.path} ${o.operationId}`)).to.deep.equal([
      'PURGE /things/{id}/cache purgeThing',
      'QUERY /things/{id}/lookup lookupThing',
    ]);
  });
});

describe('OpenAPI: request and response schemas', () => {
  let api: ApiMetadata;
  let doc: Any;
  before(async () => {
    api = await load('test/openapi/fixtures/methods.api');
    doc = openApiDocument(api);
  });

  it('reuses the schemas that validate requests and describe outputs, with an example per property', () => {
    const thing = api.resource('Thing')!;
    const withoutExamples = (schema: Any): Any => ({
      ...schema,
      properties: Object.fromEntries(
        Object.entries<Any>(schema.properties).map(([k, { examples: _e, ...rest }]) => [k, rest]),
      ),
    });
    expect(withoutExamples(doc.components.schemas['Thing.input'])).to.deep.equal(resourceSchema(thing, 'input'));
    expect(withoutExamples(doc.components.schemas.Thing)).to.deep.equal(resourceSchema(thing, 'output'));
    expect(doc.components.schemas.Thing.properties.id.examples).to.deep.equal([1]);
    const patch = doc.components.schemas['Thing.jsonMergePatch'];
    expect(patch).to.not.have.property('required');
    expect(withoutExamples(patch).properties).to.deep.equal(resourceSchema(thing, 'input').properties);
  });

  it('POST and PUT take the input schema in every input format; PATCH the merge-patch schema in patch_formats', () => {
    for (const op of [doc.paths['/things'].post, doc.paths['/things/{id}'].put]) {
      expect(Object.keys(op.requestBody.content)).to.deep.equal(['application/ld+json', 'application/json']);
      for (const media of Object.values<Any>(op.requestBody.content)) {
        expect(media.schema).to.deep.equal({ $ref: '#/components/schemas/Thing.input' });
        expect(media.example).to.be.an('object');
      }
      expect(op.requestBody.required).to.equal(true);
    }
    const patch = doc.paths['/things/{id}'].patch.requestBody.content;
    expect(Object.keys(patch)).to.deep.equal(['application/merge-patch+json']);
    expect(patch['application/merge-patch+json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Thing.jsonMergePatch',
    });
    expect(doc.paths['/things/{id}/archive'].post).to.not.have.property('requestBody');
  });

  it('items: JSON-LD with @id and @type, plain JSON', () => {
    const content = doc.paths['/things/{id}'].get.responses['200'].content;
    expect(content['application/ld+json'].schema).to.deep.equal({ $ref: '#/components/schemas/Thing.jsonld' });
    expect(content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Thing' });
    // One object schema (Swagger UI draws an allOf of references as "(any & any)").
    const jsonld = doc.components.schemas['Thing.jsonld'];
    expect(jsonld).to.not.have.property('allOf');
    expect(jsonld.type).to.equal('object');
    expect(jsonld.required.slice(0, 2)).to.deep.equal(['@id', '@type']);
    expect(Object.keys(jsonld.properties)).to.deep.equal([
      '@context',
      '@id',
      '@type',
      ...Object.keys(doc.components.schemas.Thing.properties),
    ]);
    expect(jsonld.properties['@id'].examples).to.deep.equal(['/things/1']);
  });

  it('collections: the Hydra envelope and the JSON-LD members in one object schema, a bare array in JSON', () => {
    const content = doc.paths['/things'].get.responses['200'].content;
    expect(content['application/ld+json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Thing.jsonld.collection',
    });
    expect(content['application/json'].schema).to.deep.equal({
      type: 'array',
      items: { $ref: '#/components/schemas/Thing' },
    });
    // One object schema (Swagger UI draws an allOf of the envelope and the members as "any").
    const collection = doc.components.schemas['Thing.jsonld.collection'];
    expect(collection).to.not.have.property('allOf');
    expect(collection.type).to.equal('object');
    expect(collection.required).to.deep.equal(['@id', '@type', 'member']);
    expect(Object.keys(collection.properties)).to.deep.equal([
      '@context',
      '@id',
      '@type',
      'totalItems',
      'view',
      'search',
      'member',
    ]);
    expect(collection.properties.member).to.deep.equal({
      type: 'array',
      items: { $ref: '#/components/schemas/Thing.jsonld' },
    });
    // Example IRIs of this API, not the ones a viewer makes up for the format (`path/実例.html`).
    expect(collection.properties['@id'].examples).to.deep.equal(['/things']);
    expect(collection.properties['@context'].examples).to.deep.equal(['/contexts/Thing']);
    expect(collection.properties.view.properties.next.examples).to.deep.equal(['/things?page=3']);
  });

  it('collections follow hydra_prefix, and an operation that turns it off', async () => {
    const prefixed: Any = openApiDocument(await load('test/fixtures/pagination/hydra-prefix.api'));
    const schemas = prefixed.components.schemas;
    const dummy = prefixed.paths['/dummies'].get.responses['200'].content['application/ld+json'].schema;
    expect(dummy).to.deep.equal({ $ref: '#/components/schemas/Dummy.jsonld.hydraCollection' });
    const envelope = schemas['Dummy.jsonld.hydraCollection'];
    expect(Object.keys(envelope.properties)).to.deep.equal([
      '@context',
      '@id',
      '@type',
      'hydra:totalItems',
      'hydra:view',
      'hydra:search',
      'hydra:member',
    ]);
    expect(envelope.required).to.deep.equal(['@id', '@type', 'hydra:member']);
    expect(envelope.properties['hydra:view'].properties).to.have.keys(
      '@id',
      '@type',
      'hydra:first',
      'hydra:last',
      'hydra:previous',
      'hydra:next',
    );
    const plain = prefixed.paths['/plain_dummies'].get.responses['200'].content['application/ld+json'].schema;
    expect(plain).to.deep.equal({ $ref: '#/components/schemas/PlainDummy.jsonld.collection' });
    expect(schemas['PlainDummy.jsonld.collection'].properties).to.include.keys('member', 'totalItems');
    expect(schemas['PlainDummy.jsonld.collection'].properties).to.not.have.property('hydra:member');
    // The error documents follow the global setting.
    expect(prefixed.components.schemas['Error.jsonld'].properties).to.have.property('hydra:title');
  });

  it('statuses: the operation status, 201 for POST, 204 without output, 200 and 201 for an upserting PUT', async () => {
    expect(Object.keys(doc.paths['/things'].post.responses)[0]).to.equal('202');
    expect(doc.paths['/things/{id}'].delete.responses['204']).to.not.have.property('content');
    expect(doc.paths['/things/{id}/cache'].additionalOperations.PURGE.responses['204']).to.deep.equal({
      description: 'Thing resource.',
    });
    const bookstore: Any = openApiDocument(await load('examples/bookstore.api'));
    const put = bookstore.paths['/books/{id}'].put.responses;
    // 404: an identifier no item can have (`/books/0`) creates none; 412: If-Match names another version; 406: an
    // Accept no format serves; 503: a store (MongoDB, PostgreSQL) out of reach.
    expect(put).to.have.keys('200', '201', '400', '404', '412', '413', '415', '422', '406', '503');
    expect(put['201'].headers.Location.schema).to.deep.equal({
      type: 'string',
      format: 'iri-reference',
      examples: ['/books/1'],
    });
    expect(bookstore.paths['/books'].post.responses['201'].headers).to.have.property('Location');
  });

  it('errors: problem+json documents, 422 with constraint violations, 404 where an item is read', () => {
    const post = doc.paths['/things'].post.responses;
    expect(post['422'].content['application/problem+json'].schema).to.deep.equal({
      anyOf: [
        { $ref: '#/components/schemas/ConstraintViolation.jsonld' },
        { $ref: '#/components/schemas/ConstraintViolation' },
      ],
    });
    expect(post['415'].content['application/problem+json'].schema).to.deep.equal({
      anyOf: [{ $ref: '#/components/schemas/Error.jsonld' }, { $ref: '#/components/schemas/Error' }],
    });
    expect(post).to.not.have.property('404');
    expect(doc.paths['/things/{id}'].get.responses).to.have.keys('200', '400', '404', '406', '503');
    // validate: false: no 422.
    expect(doc.paths['/notes/{id}'].patch.responses).to.not.have.property('422');
    expect(doc.components.schemas.ConstraintViolation.properties.violations.items.required).to.deep.equal([
      'propertyPath',
      'message',
      'code',
    ]);
  });

  it('a NotFoundAction route documents its 404 only', async () => {
    const bookstore: Any = openApiDocument(await load('examples/bookstore.api'));
    expect(Object.keys(bookstore.paths['/geo/places/{id}'].get.responses)).to.deep.equal(['404']);
  });

  it('path parameters are typed from their property, requirements become patterns', async () => {
    expect(doc.paths['/things/{id}'].get.parameters).to.deep.equal([
      { name: 'id', in: 'path', description: 'Thing identifier', required: true, schema: { type: 'integer' } },
    ]);
    const catalogue: Any = openApiDocument(await load('examples/catalogue.api'));
    expect(catalogue.paths['/products/{sku}'].get.parameters[0]).to.deep.include({
      name: 'sku',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
    expect(doc.paths['/notes/{id}'].get.parameters[0].schema).to.deep.equal({ type: 'integer' });
  });
});

describe('OpenAPI: pagination parameters', () => {
  const pagination = (op: Any): Any[] =>
    (op.parameters ?? []).filter(
      (p: Any) =>
        p.in === 'query' &&
        ['page', 'itemsPerPage', 'pagination', 'partial', '_page', '_itemsPerPage', '_pagination', '_partial'].includes(
          p.name,
        ),
    );

  it('only those the operation honours', async () => {
    const doc: Any = openApiDocument(await load('examples/bookstore.api'));
    expect(pagination(doc.paths['/books'].get)).to.deep.equal([
      {
        name: 'page',
        in: 'query',
        description: 'The collection page number.',
        required: false,
        schema: { type: 'integer', minimum: 1, default: 1 },
      },
      {
        name: 'itemsPerPage',
        in: 'query',
        description: 'The number of items per page (at most 100; larger values are clamped).',
        required: false,
        schema: { type: 'integer', minimum: 0, default: 30, maximum: 100 },
      },
      {
        name: 'pagination',
        in: 'query',
        description: 'Enable or disable pagination.',
        required: false,
        schema: { type: 'boolean', default: true },
      },
    ]);
    expect(names(doc.paths['/geo/places'].get)).to.deep.equal(['page', 'itemsPerPage']);
    // Cursor pagination: no page number.
    expect(pagination(doc.paths['/events'].get).map((p) => p.name)).to.deep.equal(['itemsPerPage']);
    // QUERY reads them from the URL too; POST and item operations have none.
    expect(names(doc.paths['/books'].query)).to.deep.equal(['page', 'itemsPerPage', 'pagination']);
    expect(doc.paths['/books'].post).to.not.have.property('parameters');
    expect(names(doc.paths['/books/{id}'].get)).to.deep.equal(['id']);
  });

  it('under the names the settings give them', async () => {
    const doc: Any = openApiDocument(await load('test/fixtures/pagination/renamed.api'));
    expect(names(doc.paths['/dummies'].get)).to.deep.equal(['_page', '_itemsPerPage', '_pagination', '_partial']);
  });

  it('none when pagination is off and the client may not switch it on', async () => {
    const doc: Any = openApiDocument(await load('test/fixtures/pagination/dummies-switches-off.api'));
    for (const [, , op] of operations(doc)) {
      if (op.operationId.endsWith('get_collection'))
        expect(names(op).filter((n) => n === 'pagination' || n === 'partial')).to.deep.equal([]);
    }
  });
});

describe('OpenAPI: filter parameters', () => {
  let doc: Any;
  before(async () => {
    doc = openApiDocument(await load('test/fixtures/filters/filters.api'));
  });

  it('one parameter per filter variable of GET /books, after the pagination ones', () => {
    const range = (p: string): string[] => ['between', 'gt', 'gte', 'lt', 'lte'].map((op) => `${p}[${op}]`);
    const dates = (p: string): string[] =>
      ['before', 'strictly_before', 'after', 'strictly_after'].map((op) => `${p}[${op}]`);
    expect(names(doc.paths['/books'].get)).to.deep.equal([
      'page',
      'itemsPerPage',
      'pagination',
      'title',
      'title[]',
      'isbn',
      'isbn[]',
      'author',
      'author[]',
      'pages',
      'pages[]',
      'price',
      'price[]',
      ...range('price'),
      ...range('pages'),
      ...range('publishedAt'),
      'order[title]',
      'order[price]',
      'order[pages]',
      'order[id]',
      'order[publishedAt]',
      'exists[subtitle]',
      'exists[publishedAt]',
      'exists[author]',
      'available',
      ...dates('publishedAt'),
      ...dates('releasedOn'),
    ]);
  });

  it('each with a schema and a description', () => {
    const op = doc.paths['/books'].get;
    for (const p of op.parameters) {
      expect(p.in, p.name).to.equal('query');
      expect(p.description, p.name).to.be.a('string').that.is.not.empty;
      expect(p.required, p.name).to.equal(false);
    }
    expect(param(op, 'title[]')).to.deep.include({
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string' } },
    });
    expect(param(op, 'pages').schema).to.deep.equal({ type: 'integer' });
    expect(param(op, 'price[gt]').schema).to.deep.equal({ type: 'number' });
    expect(param(op, 'price[between]').schema).to.deep.equal({
      type: 'string',
      pattern: '^.+\\.\\..+$',
      examples: ['10..20'],
    });
    expect(param(op, 'order[title]').schema).to.deep.equal({ type: 'string', enum: ['asc', 'desc'] });
    expect(param(op, 'exists[subtitle]').schema).to.deep.equal({ type: 'boolean' });
    expect(param(op, 'available').schema).to.deep.equal({ type: 'boolean' });
    expect(param(op, 'publishedAt[after]').description).to.include('Items without a date never match.');
    expect(param(op, 'author').description).to.include('IRI');
  });

  it('descriptions name the strategy and add the filter description', () => {
    const texts = (path: string): string => param(doc.paths[path].get, 'title').description;
    expect(texts('/strategies/exact')).to.equal(
      'Items whose title equals the value. The value is literal text, never a pattern.',
    );
    expect(texts('/strategies/ipartial')).to.equal(
      'Items whose title contains the value, ignoring case. The value is literal text, never a pattern.',
    );
    expect(texts('/strategies/word_start')).to.include('has a word starting with the value');
    expect(texts('/strategies/partial')).to.match(/\n\nWords of the title\.$/);
    expect(param(doc.paths['/dates/include_null_after'].get, 'publishedAt[after]').description).to.include(
      'Items without a date count as after every date.',
    );
    expect(param(doc.paths['/ordered-with-defaults'].get, 'order[title]').description).to.include(
      'Any other value sorts desc.',
    );
  });

  it('named parameters: one each, objects as deepObject, their own description', () => {
    const op = doc.paths['/named'].get;
    expect(names(op)).to.deep.equal([
      'page',
      'q',
      'cost',
      'sortByPrice',
      'sortByTitle',
      'hasSubtitle',
      'inStock',
      'published',
      'writer',
    ]);
    expect(param(op, 'q').description).to.equal('Any part of the title, any case.');
    expect(param(op, 'cost')).to.deep.include({ style: 'deepObject', explode: true });
    expect(Object.keys(param(op, 'cost').schema.properties)).to.deep.equal(['between', 'gt', 'gte', 'lt', 'lte']);
    expect(Object.keys(param(op, 'published').schema.properties)).to.deep.equal([
      'before',
      'strictly_before',
      'after',
      'strictly_after',
    ]);
    expect(param(op, 'sortByPrice').schema).to.deep.equal({ type: 'string', enum: ['asc', 'desc'] });
    expect(param(op, 'hasSubtitle').schema).to.deep.equal({ type: 'boolean' });
  });

  it('the exists and order parameters under their configured names', async () => {
    const renamed: Any = openApiDocument(await load('test/fixtures/filters/renamed.api'));
    expect(names(renamed.paths['/books'].get)).to.deep.equal(['page', 'has[subtitle]', 'sort[title]', 'sort[id]']);
  });
});

describe('OpenAPI: QUERY', () => {
  let api: ApiMetadata;
  before(async () => {
    api = await load('test/fixtures/filters/filters.api');
  });

  it('3.2: under the path item field `query`, criteria as body properties in JSON or a form', () => {
    const doc: Any = openApiDocument(api);
    const op = doc.paths['/books'].query;
    expect(op.operationId).to.equal('api_books_query');
    expect(Object.keys(op.requestBody.content)).to.deep.equal([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.type).to.equal('object');
    expect(Object.keys(schema.properties)).to.have.members([
      // filters: their variables in the body's JSON shape
      'title',
      'isbn',
      'author',
      'pages',
      'price',
      'publishedAt',
      'releasedOn',
      'order',
      'exists',
      'available',
      // named parameters
      'q',
      'cost',
      'sortByPrice',
      'hasSubtitle',
      'inStock',
    ]);
    expect(Object.keys(schema.properties.order.properties)).to.deep.equal([
      'title',
      'price',
      'pages',
      'id',
      'publishedAt',
    ]);
    // price is searched (a value or a list) and bounded (an object).
    expect(schema.properties.price.anyOf.slice(0, 2)).to.deep.equal([
      { type: 'number' },
      { type: 'array', items: { type: 'number' } },
    ]);
    expect(Object.keys(schema.properties.price.anyOf[2].properties)).to.deep.equal([
      'between',
      'gt',
      'gte',
      'lt',
      'lte',
    ]);
    expect(Object.keys(schema.properties.publishedAt.properties)).to.deep.equal([
      'between',
      'gt',
      'gte',
      'lt',
      'lte',
      'before',
      'strictly_before',
      'after',
      'strictly_after',
    ]);
    expect(schema.properties.title.anyOf).to.deep.equal([
      { type: 'string' },
      { type: 'array', items: { type: 'string' } },
    ]);
    expect(schema.properties.available.type).to.equal('boolean');
    expect(schema.properties.cost.type).to.equal('object');
    const form = op.requestBody.content['application/x-www-form-urlencoded'];
    expect(form.schema).to.deep.equal(schema);
    expect(form.encoding.price).to.deep.equal({ style: 'deepObject', explode: true });
    expect(form.encoding.order).to.deep.equal({ style: 'deepObject', explode: true });
    expect(form.encoding).to.not.have.property('title');
    // Pagination stays in the URL; the criteria are not URL parameters.
    expect(names(op)).to.deep.equal(['page', 'itemsPerPage', 'pagination']);
    expect(op.responses['415'].headers['Accept-Query'].schema.const).to.equal(
      'application/x-www-form-urlencoded, application/json',
    );
    expect(op.responses['200'].content['application/ld+json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Book.jsonld.collection',
    });
  });

  it('bookstore: one body property per parameters entry', async () => {
    const doc: Any = openApiDocument(await load('examples/bookstore.api'));
    expect(
      Object.keys(doc.paths['/books'].query.requestBody.content['application/json'].schema.properties),
    ).to.deep.equal(['title', 'price']);
  });

  it('3.1: left out, and the document says so', () => {
    const doc: Any = openApiDocument(api, { specVersion: '3.1' });
    for (const [method] of operations(doc)) expect(method).to.not.equal('QUERY');
    expect(doc.paths['/books']).to.have.keys('get', 'post');
    expect(doc['x-apidsl-omitted']).to.deep.equal([
      {
        method: 'QUERY',
        path: '/books',
        operationId: 'api_books_query',
        reason: 'OpenAPI 3.1 has no QUERY method (OpenAPI 3.2 adds the path item field `query`).',
      },
    ]);
    expect(doc.info.description).to.include('leaves out 1 operation').and.include('QUERY /books');
    expect(openApiDocument(api)).to.not.have.property('x-apidsl-omitted');
  });
});
