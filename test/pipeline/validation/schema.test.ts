/**
 * The JSON Schemas of a resource (server/pipeline/validation/schema.ts), output and input, from its properties.
 */
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ResourceMetadata } from '../../../server/metadata/types.js';
import { resourceSchema } from '../../../server/pipeline/validation/schema.js';
import { property } from '../../support/metadata.js';

const BOOK: ResourceMetadata = {
  name: 'Book',
  shortName: 'Book',
  description: 'A book',
  properties: [
    property('id', 'int', { identifier: true, readOnly: true }),
    property('title', 'string', { required: true, maxLength: 255, minLength: 1, description: 'The title' }),
    property('isbn', 'string', { pattern: '^[0-9-]+$', nullable: false }),
    property('price', 'number', { minimum: 0, maximum: 1000 }),
    property('available', 'bool', { default: true }),
    property('publishedAt', 'datetime'),
    property('releaseDate', 'date'),
    property('status', 'string', { enum: ['draft', 'published'] }),
    property('tags', 'string', { array: true, maxLength: 10 }),
    property('author', 'Author', { relation: 'Author' }),
    property('coAuthors', 'Author', { relation: 'Author', array: true }),
    property('meta', 'json'),
    property('secret', 'string', { writeOnly: true, required: true }),
    property('createdAt', 'datetime', { readOnly: true, required: true }),
  ],
  collectionPath: '/books',
  itemPath: '/books/{id}',
  operations: [],
  graphQlOperations: [],
  options: {},
  storage: { name: 'Book', fields: {}, indexes: [] },
};

describe('pipeline: resourceSchema', () => {
  it('describes the output', () => {
    expect(resourceSchema(BOOK, 'output')).to.deep.equal({
      type: 'object',
      description: 'A book',
      properties: {
        id: { type: 'integer', readOnly: true },
        title: { type: 'string', maxLength: 255, minLength: 1, description: 'The title' },
        isbn: { type: 'string', pattern: '^[0-9-]+$' },
        price: { type: 'number', minimum: 0, maximum: 1000 },
        available: { type: 'boolean', default: true },
        publishedAt: { type: 'string', format: 'date-time' },
        releaseDate: { type: 'string', format: 'date' },
        status: { type: 'string', enum: ['draft', 'published'] },
        tags: { type: 'array', items: { type: 'string', maxLength: 10 } },
        author: { type: 'string', format: 'iri-reference' },
        coAuthors: { type: 'array', items: { type: 'string', format: 'iri-reference' } },
        meta: {},
        secret: { type: 'string', writeOnly: true },
        createdAt: { type: 'string', format: 'date-time', readOnly: true },
      },
      required: ['title', 'createdAt'],
    });
  });

  it('describes the input: null for optional nullable properties, no readOnly property required', () => {
    const schema = resourceSchema(BOOK, 'input');
    expect(schema.required).to.deep.equal(['title', 'secret']);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.title.type).to.equal('string');
    expect(properties.isbn.type).to.equal('string');
    expect(properties.price.type).to.deep.equal(['number', 'null']);
    expect(properties.status).to.deep.equal({ type: ['string', 'null'], enum: ['draft', 'published', null] });
    expect(properties.tags).to.deep.equal({ type: ['array', 'null'], items: { type: 'string', maxLength: 10 } });
    expect(properties.author).to.deep.equal({ type: ['string', 'null'], format: 'iri-reference' });
    expect(properties.meta).to.deep.equal({});
  });

  it('leaves the metadata untouched', () => {
    resourceSchema(BOOK, 'input');
    expect(BOOK.properties.find((p) => p.name === 'status')!.enum).to.deep.equal(['draft', 'published']);
  });

  it('gives a resource without properties an open object schema', () => {
    expect(resourceSchema({ ...BOOK, description: undefined, properties: [] }, 'input')).to.deep.equal({
      type: 'object',
      properties: {},
    });
  });

  it('produces valid draft 2020-12 schemas', () => {
    const ajv = new Ajv2020();
    for (const mode of ['input', 'output'] as const) {
      expect(ajv.validateSchema(resourceSchema(BOOK, mode)), JSON.stringify(ajv.errors)).to.equal(true);
    }
  });
});
