/**
 * Denormalization (server/pipeline/representation/denormalize.ts): a request body becomes an item: body shape, types,
 * null, relations by IRI, date-times normalised to UTC, and the create, replace and merge-patch modes.
 */
import { expect } from 'chai';
import { HttpError } from '../../../server/protocol/errors.js';
import type { PropertyMetadata, ResourceMetadata } from '../../../server/metadata/types.js';
import { denormalize, normalizeDateTime } from '../../../server/pipeline/representation/denormalize.js';
import { cloneJson } from '../../../server/pipeline/representation/json-clone.js';
import type { DenormalizeMode, IriResolver } from '../../../server/pipeline/representation/denormalize.js';
import type { Item } from '../../../server/store/types.js';
import { property } from '../../support/metadata.js';

function resource(shortName: string, properties: PropertyMetadata[]): ResourceMetadata {
  const path = `/${shortName.toLowerCase()}s`;
  return {
    name: shortName,
    shortName,
    properties,
    identifier: properties.find((p) => p.identifier),
    collectionPath: path,
    itemPath: `${path}/{id}`,
    operations: [],
    graphQlOperations: [],
    options: {},
    storage: { name: shortName, fields: {}, indexes: [] },
  };
}

const BOOK = resource('Book', [
  property('id', 'int', { identifier: true }),
  property('title', 'string', { required: true, maxLength: 255, constrained: true }),
  property('summary', 'string'),
  property('pages', 'int'),
  property('weight', 'number'),
  property('available', 'bool'),
  property('price', 'number', { minimum: 0, constrained: true }),
  property('publishedAt', 'datetime'),
  property('scheduledAt', 'datetime', { constrained: true, required: true }),
  property('releaseDate', 'date'),
  property('tags', 'string', { array: true, maxLength: 10, constrained: true }),
  property('keywords', 'string', { array: true }),
  property('author', 'Author', { relation: 'Author' }),
  property('coAuthors', 'Author', { relation: 'Author', array: true }),
  property('meta', 'json'),
  property('status', 'string', { enum: ['draft', 'published'], default: 'draft', constrained: true }),
  property('format', 'string', { nullable: false, constrained: true }),
  property('createdAt', 'datetime', { readOnly: true }),
]);

const IRIS: IriResolver = {
  resourceOf: (iri) =>
    ({ authors: 'Author', books: 'Book' })[/^\/(authors|books)\/\d+$/.exec(iri)?.[1] as 'authors' | 'books'],
  path: (iri) => iri,
};

const create = (body: unknown, target = BOOK): Item => denormalize(target, body, 'create', null, IRIS);

function failure(body: unknown, mode: DenormalizeMode = 'create', previous: Item | null = null): HttpError {
  try {
    denormalize(BOOK, body, mode, previous, IRIS);
  } catch (error) {
    expect(error).to.be.instanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('expected an HttpError');
}

function badRequest(body: unknown, mode: DenormalizeMode = 'create'): string {
  const error = failure(body, mode, mode === 'create' ? null : { id: 1, title: 'A' });
  expect(error.status).to.equal(400);
  expect(error.options.violations).to.equal(undefined);
  return error.detail;
}

describe('pipeline: denormalize', () => {
  describe('body shape', () => {
    it('rejects a body that is not a JSON object with 400 "The input data is misformatted."', () => {
      for (const body of [[], ['a'], 'text', 1, true, null]) {
        expect(badRequest(body)).to.equal('The input data is misformatted.');
      }
    });

    it('ignores unknown attributes, @context and @type', () => {
      const body = { title: 'A', unknown: 1, '@context': '/contexts/Book', '@type': 'Book' };
      expect(create(body)).to.deep.equal({ title: 'A', status: 'draft' });
    });

    it('rejects @id in a POST body and ignores it on PUT and PATCH', () => {
      expect(badRequest({ '@id': '/books/1', title: 'A' })).to.equal('Update is not allowed for this operation.');
      for (const mode of ['replace', 'merge-patch'] as const) {
        expect(denormalize(BOOK, { '@id': '/books/2', title: 'B' }, mode, { id: 1, title: 'A' }, IRIS)).to.deep.equal({
          id: 1,
          title: 'B',
        });
      }
    });

    it('ignores readOnly properties', () => {
      expect(create({ title: 'A', createdAt: '2024-01-01T00:00:00Z' })).to.deep.equal({ title: 'A', status: 'draft' });
      const previous = { id: 1, title: 'A', createdAt: '2024-01-01T00:00:00+00:00' };
      expect(denormalize(BOOK, { createdAt: null }, 'replace', previous, IRIS)).to.deep.equal(previous);
    });

    it('takes a writable identifier on create (a 422 on it when invalid) and ignores it on replace and merge-patch', () => {
      expect(create({ id: 7, title: 'A' })).to.deep.equal({ id: 7, title: 'A', status: 'draft' });
      const outOfRange = `This value should be between 1 and ${Number.MAX_SAFE_INTEGER}.`;
      for (const [id, message] of [
        ['7', 'This value should be of type int.'],
        [1.5, 'This value should be of type int.'],
        [0, outOfRange],
        [-3, outOfRange],
        [2 ** 53, outOfRange],
      ] as const) {
        const error = failure({ id });
        expect(error.status).to.equal(422);
        expect(error.options.violations?.map((v) => [v.propertyPath, v.message])).to.deep.equal([['id', message]]);
      }
      for (const mode of ['replace', 'merge-patch'] as const) {
        expect(denormalize(BOOK, { id: 9, title: 'B' }, mode, { id: 1, title: 'A' }, IRIS)).to.deep.equal({
          id: 1,
          title: 'B',
        });
      }
    });

    it('takes a string identifier on create', () => {
      const tag = resource('Tag', [property('code', 'string', { identifier: true }), property('label', 'string')]);
      expect(create({ code: 'sf', label: 'Science fiction' }, tag)).to.deep.equal({
        code: 'sf',
        label: 'Science fiction',
      });
    });
  });

  describe('types', () => {
    it('accepts values of the declared types', () => {
      const body = {
        title: 'A',
        summary: 'S',
        pages: 120,
        weight: 1,
        available: false,
        price: 9.5,
        tags: ['a', 'b'],
        keywords: [],
        meta: { nested: [1, null, { x: null }] },
      };
      expect(create(body)).to.deep.equal({ ...body, status: 'draft' });
    });

    it('answers a wrong scalar type on an unconstrained property with the exact 400 message', () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ summary: 1 }, 'The type of the "summary" attribute must be "string", "integer" given.'],
        [{ summary: 1.5 }, 'The type of the "summary" attribute must be "string", "double" given.'],
        [{ summary: true }, 'The type of the "summary" attribute must be "string", "boolean" given.'],
        [{ summary: { a: 1 } }, 'The type of the "summary" attribute must be "string", "array" given.'],
        [{ summary: ['a'] }, 'The type of the "summary" attribute must be "string", "array" given.'],
        [{ pages: '12' }, 'The type of the "pages" attribute must be "int", "string" given.'],
        [{ pages: 1.5 }, 'The type of the "pages" attribute must be "int", "double" given.'],
        [{ weight: '1.5' }, 'The type of the "weight" attribute must be "float", "string" given.'],
        [{ available: 'yes' }, 'The type of the "available" attribute must be "bool", "string" given.'],
        [{ available: 0 }, 'The type of the "available" attribute must be "bool", "integer" given.'],
        [{ publishedAt: 1 }, 'The type of the "publishedAt" attribute must be "string", "integer" given.'],
        [{ keywords: 'a' }, 'The type of the "keywords" attribute must be "array", "string" given.'],
        [{ keywords: ['a', 2] }, 'The type of the "keywords" attribute must be "string", "integer" given.'],
        [{ keywords: ['a', null] }, 'The type of the "keywords" attribute must be "string", "NULL" given.'],
      ];
      for (const [body, detail] of cases) expect(badRequest({ title: 'A', ...body })).to.equal(detail);
    });

    it('answers a wrong type on a constrained property with a 422 Type violation', () => {
      const error = failure({ title: 5, price: 'free', tags: ['a', 3] });
      expect(error.status).to.equal(422);
      expect(error.detail).to.equal(
        'title: This value should be of type string.\n' +
          'price: This value should be of type float.\n' +
          'tags[1]: This value should be of type string.',
      );
      const code = 'ba785a8c-82cb-4283-967c-3cf342181b40';
      expect(error.options.violations).to.deep.equal([
        { propertyPath: 'title', message: 'This value should be of type string.', code },
        { propertyPath: 'price', message: 'This value should be of type float.', code },
        { propertyPath: 'tags[1]', message: 'This value should be of type string.', code },
      ]);
      expect(failure({ tags: 'a' }).detail).to.equal('tags: This value should be of type array.');
    });

    it('lets a 400 win over 422 violations', () => {
      expect(badRequest({ title: 5, summary: 5 })).to.equal(
        'The type of the "summary" attribute must be "string", "integer" given.',
      );
    });

    it('accepts an integer for a number and keeps json values as they are', () => {
      expect(create({ title: 'A', weight: 3, meta: 'text' })).to.deep.equal({
        title: 'A',
        weight: 3,
        meta: 'text',
        status: 'draft',
      });
    });
  });

  describe('null', () => {
    it('stores null as absent', () => {
      expect(create({ title: 'A', summary: null, meta: null, tags: null })).to.deep.equal({
        title: 'A',
        status: 'draft',
      });
    });

    it('rejects an explicit null on a nullable: false property with a NotNull violation', () => {
      const error = failure({ title: 'A', format: null });
      expect(error.status).to.equal(422);
      expect(error.detail).to.equal('format: This value should not be null.');
      expect(error.options.violations).to.deep.equal([
        {
          propertyPath: 'format',
          message: 'This value should not be null.',
          code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
        },
      ]);
    });

    it('collects NotNull and Type violations together', () => {
      expect(failure({ title: 1, format: null }).detail).to.equal(
        'title: This value should be of type string.\nformat: This value should not be null.',
      );
    });
  });

  describe('relations', () => {
    it('stores IRIs of the target resource', () => {
      expect(create({ title: 'A', author: '/authors/1', coAuthors: ['/authors/2', '/authors/3'] })).to.deep.equal({
        title: 'A',
        author: '/authors/1',
        coAuthors: ['/authors/2', '/authors/3'],
        status: 'draft',
      });
    });

    it('rejects a string that is no IRI of the target with 400 Invalid IRI', () => {
      expect(badRequest({ author: '1' })).to.equal('Invalid IRI "1".');
      expect(badRequest({ author: '/books/1' })).to.equal('Invalid IRI "/books/1".');
      expect(badRequest({ coAuthors: ['/authors/1', '/nowhere'] })).to.equal('Invalid IRI "/nowhere".');
    });

    it('rejects a value that is not a string as API Platform does', () => {
      expect(badRequest({ author: 1 })).to.equal(
        'Expected IRI or nested document for attribute "author", "integer" given.',
      );
      expect(badRequest({ author: { name: 'x' } })).to.equal(
        'Nested documents for attribute "author" are not allowed. Use IRIs instead.',
      );
      expect(badRequest({ coAuthors: '/authors/1' })).to.equal(
        'The type of the "coAuthors" attribute must be "array", "string" given.',
      );
    });
  });

  describe('datetime and date', () => {
    const published = (value: string): unknown => create({ title: 'A', publishedAt: value }).publishedAt;

    it('normalises a date-time to UTC in the form 2024-01-03T12:00:00+00:00', () => {
      expect(published('2024-01-03T12:00:00+00:00')).to.equal('2024-01-03T12:00:00+00:00');
      expect(published('2024-01-03T14:00:00+02:00')).to.equal('2024-01-03T12:00:00+00:00');
      expect(published('2024-01-03T14:00:00+0200')).to.equal('2024-01-03T12:00:00+00:00');
      expect(published('2024-01-03T01:30:00-01:00')).to.equal('2024-01-03T02:30:00+00:00');
      expect(published('2024-01-01T00:30:00+01:00')).to.equal('2023-12-31T23:30:00+00:00');
      expect(published('2024-01-03t12:00:00z')).to.equal('2024-01-03T12:00:00+00:00');
      expect(published('2024-01-03 12:00')).to.equal('2024-01-03T12:00:00+00:00');
      expect(published('2024-01-03')).to.equal('2024-01-03T00:00:00+00:00');
    });

    it('keeps milliseconds only when they are not zero', () => {
      expect(published('2024-01-03T12:00:00.000Z')).to.equal('2024-01-03T12:00:00+00:00');
      expect(published('2024-01-03T12:00:00.25Z')).to.equal('2024-01-03T12:00:00.250+00:00');
      expect(published('2024-01-03T12:00:00.123456Z')).to.equal('2024-01-03T12:00:00.123+00:00');
    });

    it('keeps string order equal to time order', () => {
      const times = ['2024-01-03T12:00:00Z', '2024-01-03T12:00:00.001Z', '2024-01-03T12:00:01Z'].map(published);
      expect([...times].sort()).to.deep.equal(times);
    });

    it('handles years below 100', () => {
      expect(normalizeDateTime('0099-03-01T00:00:00Z')).to.equal('0099-03-01T00:00:00+00:00');
    });

    it('rejects strings that are no date-time', () => {
      for (const text of [
        'yesterday',
        '2024-02-30T00:00:00Z',
        '2023-02-29',
        '2024-01-03T24:00:00Z',
        '2024-13-01',
        '',
      ]) {
        expect(badRequest({ publishedAt: text })).to.equal(
          `The "publishedAt" attribute must be an ISO 8601 date-time, "${text}" given.`,
        );
      }
      expect(normalizeDateTime('2024-01-03T12:00:00+24:00')).to.equal(undefined);
    });

    it('answers a bad date-time on a constrained property with a DateTime violation', () => {
      const error = failure({ title: 'A', scheduledAt: 'soon' });
      expect(error.status).to.equal(422);
      expect(error.options.violations).to.deep.equal([
        {
          propertyPath: 'scheduledAt',
          message: 'This value is not a valid datetime.',
          code: '1a9da513-2640-4f84-9b6a-4d99dcddc628',
        },
      ]);
      expect(failure({ scheduledAt: 5 }).detail).to.equal('scheduledAt: This value should be of type string.');
    });

    it('accepts calendar dates YYYY-MM-DD as given', () => {
      expect(create({ title: 'A', releaseDate: '2024-02-29' }).releaseDate).to.equal('2024-02-29');
      for (const text of ['2023-02-29', '2024-1-3', '2024-01-03T00:00:00Z']) {
        expect(badRequest({ releaseDate: text })).to.equal(
          `The "releaseDate" attribute must be a YYYY-MM-DD date, "${text}" given.`,
        );
      }
    });
  });

  describe('modes', () => {
    const previous: Item = { id: 1, title: 'Old', summary: 'S', price: 5, meta: { a: 1, b: { c: 2, d: 3 } } };

    it('fills defaults on create for absent properties only', () => {
      expect(create({ title: 'A' }).status).to.equal('draft');
      expect(create({ title: 'A', status: 'published' }).status).to.equal('published');
      expect(create({ title: 'A', status: null })).to.deep.equal({ title: 'A', status: 'draft' });
    });

    it('normalises datetime defaults like body values', () => {
      const event = resource('Event', [property('at', 'datetime', { default: '2024-01-03T14:00:00+02:00' })]);
      expect(create({}, event)).to.deep.equal({ at: '2024-01-03T12:00:00+00:00' });
    });

    it('replace keeps absent properties, overwrites sent ones and removes explicit nulls', () => {
      const item = denormalize(BOOK, { title: 'New', summary: null, meta: { z: 1 } }, 'replace', previous, IRIS);
      expect(item).to.deep.equal({ id: 1, title: 'New', price: 5, meta: { z: 1 } });
      expect(previous.summary).to.equal('S');
    });

    it('replace without a previous item (PUT allowCreate) starts empty and fills defaults', () => {
      expect(denormalize(BOOK, { title: 'A' }, 'replace', null, IRIS)).to.deep.equal({ title: 'A', status: 'draft' });
    });

    it('replace does not fill defaults on an existing item', () => {
      expect(denormalize(BOOK, { summary: 'T' }, 'replace', { id: 1, title: 'A' }, IRIS)).to.deep.equal({
        id: 1,
        title: 'A',
        summary: 'T',
      });
    });

    it('merge-patch merges json objects recursively (RFC 7396)', () => {
      const patch = { title: 'New', price: null, meta: { b: { c: null, e: [1, null] }, f: { g: null } } };
      expect(denormalize(BOOK, patch, 'merge-patch', previous, IRIS)).to.deep.equal({
        id: 1,
        title: 'New',
        summary: 'S',
        meta: { a: 1, b: { d: 3, e: [1, null] }, f: {} },
      });
      expect(previous.meta).to.deep.equal({ a: 1, b: { c: 2, d: 3 } });
    });

    it('merge-patch replaces a json value that is not an object', () => {
      expect(denormalize(BOOK, { meta: [1] }, 'merge-patch', previous, IRIS).meta).to.deep.equal([1]);
      expect(denormalize(BOOK, { meta: { x: 1 } }, 'merge-patch', { id: 1, meta: 'text' }, IRIS).meta).to.deep.equal({
        x: 1,
      });
      expect(denormalize(BOOK, { meta: null }, 'merge-patch', previous, IRIS)).to.not.have.property('meta');
    });

    it('type-checks merge-patch values like any other', () => {
      expect(badRequest({ summary: 3 }, 'merge-patch')).to.equal(
        'The type of the "summary" attribute must be "string", "integer" given.',
      );
    });
  });

  describe('a resource without properties', () => {
    const NOTE = resource('Note', []);

    it('accepts any JSON object, without nulls and JSON-LD keys', () => {
      expect(create({ a: 1, b: { c: null }, d: null, '@type': 'Note' }, NOTE)).to.deep.equal({ a: 1, b: { c: null } });
    });

    it('applies merge patch to the whole item', () => {
      const item = denormalize(
        NOTE,
        { b: { c: null, e: 1 }, a: null },
        'merge-patch',
        { a: 1, b: { c: 2 }, f: 3 },
        IRIS,
      );
      expect(item).to.deep.equal({ b: { e: 1 }, f: 3 });
    });

    it('keeps a __proto__ key as data', () => {
      const item = create(JSON.parse('{"__proto__": {"polluted": true}}'), NOTE);
      expect(Object.getPrototypeOf(item)).to.equal(Object.prototype);
      expect(Object.keys(item)).to.deep.equal(['__proto__']);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });
  });
});

describe('pipeline: values nested deeper than the call stack', () => {
  const NOTE = resource('Note', [
    property('id', 'int', { identifier: true }),
    property('title', 'string'),
    property('meta', 'json'),
  ]);
  let deep: unknown = 'x';
  for (let i = 0; i < 50_000; i++) deep = { a: deep };
  const stored = { id: 1, title: 'deep', meta: deep } as Item;

  it('structuredClone cannot copy such a value (what the copies below avoid)', () => {
    expect(() => structuredClone(stored)).to.throw(RangeError);
  });

  it('cloneJson copies it without recursion, into an equal, separate value', () => {
    const copy = cloneJson(stored);
    expect(copy).to.not.equal(stored);
    let [a, b] = [copy.meta as Record<string, unknown>, stored.meta as Record<string, unknown>];
    for (let i = 0; i < 50_000; i++) {
      expect(a).to.not.equal(b);
      [a, b] = [a.a as Record<string, unknown>, b.a as Record<string, unknown>];
    }
    expect(a).to.equal('x');
    const keyed = cloneJson(JSON.parse('{"__proto__":{"polluted":1},"list":[1,[2,{"b":null}]]}'));
    expect(Object.keys(keyed)).to.deep.equal(['__proto__', 'list']);
    expect(keyed.list).to.deep.equal([1, [2, { b: null }]]);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('merge-patch and replace of an item holding it keep it, untouched', () => {
    const patched = denormalize(NOTE, { title: 'patched' }, 'merge-patch', stored, IRIS);
    expect(patched.title).to.equal('patched');
    expect(patched.meta).to.equal(stored.meta);
    const replaced = denormalize(NOTE, { title: 'replaced', meta: { b: 1 } }, 'replace', stored, IRIS);
    expect(replaced.meta).to.deep.equal({ b: 1 });
    expect(stored.title).to.equal('deep');
  });
});
