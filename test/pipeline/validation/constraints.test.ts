/**
 * Validation (server/pipeline/validation/constraints.ts): each constraint on an item, and the 422 violation documents
 * (server/pipeline/validation/violations.ts).
 */
import { expect } from 'chai';
import type { Violation } from '../../../server/protocol/errors.js';
import type { PropertyMetadata, ResourceMetadata } from '../../../server/metadata/types.js';
import { validateItem } from '../../../server/pipeline/validation/constraints.js';
import {
  constraintViolationDocument,
  validationFailed,
  violation,
} from '../../../server/pipeline/validation/violations.js';
import { property as baseProperty } from '../../support/metadata.js';

/** Properties here are constrained unless a test says otherwise. */
const property = (name: string, type: string, extra: Partial<PropertyMetadata> = {}): PropertyMetadata =>
  baseProperty(name, type, { constrained: true, ...extra });

function resource(shortName: string, properties: PropertyMetadata[]): ResourceMetadata {
  return {
    name: shortName,
    shortName,
    properties,
    collectionPath: `/${shortName.toLowerCase()}s`,
    operations: [],
    graphQlOperations: [],
    options: {},
    storage: { name: shortName, fields: {}, indexes: [] },
  };
}

const BOOK = resource('Book', [
  property('id', 'int', { identifier: true, constrained: false }),
  property('title', 'string', { required: true, maxLength: 255 }),
  property('code', 'string', { maxLength: 1, minLength: 1 }),
  property('isbn', 'string', { minLength: 10, pattern: '^[0-9-]+$' }),
  property('price', 'number', { minimum: 0, maximum: 1000.5 }),
  property('rating', 'int', { minimum: 1, maximum: 5 }),
  property('status', 'string', { enum: ['draft', 'published'] }),
  property('publishedAt', 'datetime'),
  property('releaseDate', 'date'),
  property('tags', 'string', { array: true, maxLength: 3 }),
  property('author', 'Author', { relation: 'Author' }),
  property('meta', 'json', { constrained: false }),
  property('createdAt', 'datetime', { readOnly: true, required: true }),
]);

const CODES = {
  notBlank: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
  tooLong: 'd94b19cc-114f-4f44-9cc4-4138e80a87b9',
  tooShort: '9ff3fdc4-b214-49db-8718-39c315e33d45',
  gte: 'ea4e51d1-3342-48bd-87f1-9e672cd90cad',
  lte: '30fbb013-d015-4232-8b3b-8f3be97a7e14',
  regex: 'de1e3db3-5ed4-4941-aae4-59f3667cc3a3',
  choice: '8e179f1b-97aa-4560-a02f-2a8b42e49df7',
  type: 'ba785a8c-82cb-4283-967c-3cf342181b40',
  dateTime: '1a9da513-2640-4f84-9b6a-4d99dcddc628',
  date: '69819696-02ac-4a99-9ff0-14e127c4d1bc',
};

/** The violations of a valid book changed by `change`. */
const check = (change: Record<string, unknown>): Violation[] => validateItem(BOOK, { id: 1, title: 'A', ...change });

describe('pipeline: validateItem', () => {
  it('finds no violation in a valid item', () => {
    const item = {
      id: 1,
      title: 'x'.repeat(255),
      code: 'a',
      isbn: '978-3-16-148410-0',
      price: 0,
      rating: 5,
      status: 'draft',
      publishedAt: '2024-01-03T12:00:00+00:00',
      releaseDate: '2024-02-29',
      tags: ['abc', ''],
      author: '/authors/1',
      meta: { anything: [null] },
      unknown: 1,
    };
    expect(validateItem(BOOK, item)).to.deep.equal([]);
  });

  it('reports NotBlank for a required property that is missing, null or an empty string', () => {
    const notBlank = [{ propertyPath: 'title', message: 'This value should not be blank.', code: CODES.notBlank }];
    expect(validateItem(BOOK, { id: 1 })).to.deep.equal(notBlank);
    expect(check({ title: null })).to.deep.equal(notBlank);
    expect(check({ title: '' })).to.deep.equal(notBlank);
    expect(check({ title: ' ' })).to.deep.equal([]);
  });

  it('does not require readOnly properties from clients', () => {
    expect(validateItem(BOOK, { title: 'A' })).to.deep.equal([]);
  });

  it('reports Length with Symfony plurals', () => {
    expect(check({ title: 'x'.repeat(256) })).to.deep.equal([
      {
        propertyPath: 'title',
        message: 'This value is too long. It should have 255 characters or less.',
        code: CODES.tooLong,
      },
    ]);
    expect(check({ code: 'ab' })).to.deep.equal([
      {
        propertyPath: 'code',
        message: 'This value is too long. It should have 1 character or less.',
        code: CODES.tooLong,
      },
    ]);
    expect(check({ code: '' })).to.deep.equal([
      {
        propertyPath: 'code',
        message: 'This value is too short. It should have 1 character or more.',
        code: CODES.tooShort,
      },
    ]);
    expect(check({ isbn: '12345' })).to.deep.equal([
      {
        propertyPath: 'isbn',
        message: 'This value is too short. It should have 10 characters or more.',
        code: CODES.tooShort,
      },
    ]);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(check({ code: '😀' })).to.deep.equal([]);
  });

  it('reports GreaterThanOrEqual and LessThanOrEqual', () => {
    expect(check({ price: -0.5 })).to.deep.equal([
      { propertyPath: 'price', message: 'This value should be greater than or equal to 0.', code: CODES.gte },
    ]);
    expect(check({ price: 1001 })).to.deep.equal([
      { propertyPath: 'price', message: 'This value should be less than or equal to 1000.5.', code: CODES.lte },
    ]);
    expect(check({ rating: 0 })[0].message).to.equal('This value should be greater than or equal to 1.');
  });

  it('reports Regex and Choice', () => {
    expect(check({ isbn: '978316148410X' })).to.deep.equal([
      { propertyPath: 'isbn', message: 'This value is not valid.', code: CODES.regex },
    ]);
    expect(check({ status: 'archived' })).to.deep.equal([
      { propertyPath: 'status', message: 'The value you selected is not a valid choice.', code: CODES.choice },
    ]);
  });

  it('reports Type with PHP type names', () => {
    expect(check({ title: 5, price: 'x', rating: 1.5, tags: 'a' })).to.deep.equal([
      { propertyPath: 'title', message: 'This value should be of type string.', code: CODES.type },
      { propertyPath: 'price', message: 'This value should be of type float.', code: CODES.type },
      { propertyPath: 'rating', message: 'This value should be of type int.', code: CODES.type },
      { propertyPath: 'tags', message: 'This value should be of type array.', code: CODES.type },
    ]);
  });

  it('reports malformed dates and date-times', () => {
    expect(check({ publishedAt: '2024-01-03', releaseDate: '2024-02-30' })).to.deep.equal([
      { propertyPath: 'publishedAt', message: 'This value is not a valid datetime.', code: CODES.dateTime },
      { propertyPath: 'releaseDate', message: 'This value is not a valid date.', code: CODES.date },
    ]);
  });

  it('names array items tags[n]', () => {
    expect(check({ tags: ['ok', 'toolong', 'abc', 7] })).to.deep.equal([
      {
        propertyPath: 'tags[1]',
        message: 'This value is too long. It should have 3 characters or less.',
        code: CODES.tooLong,
      },
      { propertyPath: 'tags[3]', message: 'This value should be of type string.', code: CODES.type },
    ]);
  });

  it('reports several violations in property declaration order', () => {
    const violations = validateItem(BOOK, { status: 'x', price: -1, title: '' });
    expect(violations.map((v) => v.propertyPath)).to.deep.equal(['title', 'price', 'status']);
    expect(validationFailed(violations).detail).to.equal(
      'title: This value should not be blank.\n' +
        'price: This value should be greater than or equal to 0.\n' +
        'status: The value you selected is not a valid choice.',
    );
  });

  it('accepts any object for a resource without properties', () => {
    expect(validateItem(resource('Note', []), { a: 1 })).to.deep.equal([]);
  });
});

describe('pipeline: violations', () => {
  const blank = violation('name', 'NotBlank');
  const tooLong = violation('title', 'TooLong', { limit: 255 });

  it('makes a 422 HttpError carrying the violations', () => {
    const error = validationFailed([blank, tooLong]);
    expect(error.status).to.equal(422);
    expect(error.detail).to.equal(
      'name: This value should not be blank.\ntitle: This value is too long. It should have 255 characters or less.',
    );
    expect(error.options.violations).to.deep.equal([blank, tooLong]);
  });

  it('leaves the path prefix out of detail for an empty path', () => {
    expect(validationFailed([violation('', 'NotNull')]).detail).to.equal('This value should not be null.');
  });

  it('builds the Hydra document with the prefix (as API Platform builds it, exact)', () => {
    expect(constraintViolationDocument([blank], { hydraPrefix: true, jsonld: true })).to.deep.equal({
      '@context': '/contexts/ConstraintViolation',
      '@id': '/validation_errors/c1051bb4-d103-4f74-8988-acbcafc7fdc3',
      '@type': 'ConstraintViolation',
      status: 422,
      violations: [
        {
          propertyPath: 'name',
          message: 'This value should not be blank.',
          code: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
        },
      ],
      detail: 'name: This value should not be blank.',
      'hydra:title': 'An error occurred',
      'hydra:description': 'name: This value should not be blank.',
      type: '/validation_errors/c1051bb4-d103-4f74-8988-acbcafc7fdc3',
    });
  });

  it('builds the Hydra document without the prefix', () => {
    const document = constraintViolationDocument([blank], { hydraPrefix: false, jsonld: true });
    expect(document.title).to.equal('An error occurred');
    expect(document.description).to.equal('name: This value should not be blank.');
    expect(document['@type']).to.equal('ConstraintViolation');
    expect(document).to.not.have.any.keys('hydra:title', 'hydra:description');
  });

  it('uses the composite @id and type for several violations', () => {
    const document = constraintViolationDocument([blank, tooLong], { hydraPrefix: false, jsonld: true });
    const id = '/validation_errors/0=c1051bb4-d103-4f74-8988-acbcafc7fdc3;1=d94b19cc-114f-4f44-9cc4-4138e80a87b9';
    expect(document['@id']).to.equal(id);
    expect(document.type).to.equal(id);
    expect(document.violations).to.deep.equal([blank, tooLong]);
    expect(document.detail).to.equal(
      'name: This value should not be blank.\ntitle: This value is too long. It should have 255 characters or less.',
    );
  });

  it('builds the plain problem JSON without @ keys and description', () => {
    expect(constraintViolationDocument([blank], { hydraPrefix: true, jsonld: false })).to.deep.equal({
      status: 422,
      violations: [blank],
      detail: 'name: This value should not be blank.',
      type: '/validation_errors/c1051bb4-d103-4f74-8988-acbcafc7fdc3',
      title: 'An error occurred',
    });
  });

  it('lists only propertyPath, message and code per violation, and the hint of one that has one', () => {
    const extended = { ...blank, internal: 'x' } as Violation;
    const document = constraintViolationDocument([extended], { hydraPrefix: false, jsonld: false });
    expect(document.violations).to.deep.equal([blank]);
    const hinted = constraintViolationDocument([{ ...blank, hint: 'why' }], { hydraPrefix: false, jsonld: false });
    expect(hinted.violations).to.deep.equal([{ ...blank, hint: 'why' }]);
  });
});
