/** The limits' validation rules (server/graphql/limits.ts) on a schema with lists and a connection. */
import { expect } from 'chai';
import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { complexityRule, depthRule, limitRules, noIntrospectionRule } from '../../server/graphql/limits.js';
import type { GraphQlSettings } from '../../server/metadata/types.js';

const schema = buildSchema(`
  type Query {
    books(first: Int, itemsPerPage: Int): [Book!]!
    bookConnection(first: Int, last: Int): BookConnection!
    bookPage(page: Int, itemsPerPage: Int): BookPage
    book: Book
  }
  type Book { title: String authors: [Author!]! }
  type Author { name: String }
  type BookConnection { edges: [BookEdge!]! totalCount: Int! }
  type BookEdge { node: Book! cursor: String! }
  type BookPage { collection: [Book] paginationInfo: PaginationInfo! }
  type PaginationInfo { totalCount: Int! }
`);

const messages = (query: string, rules: Parameters<typeof validate>[2]) =>
  validate(schema, parse(query), rules).map((e) => e.message);

/** The cost the complexity rule finds: it reports it once it is above a limit of 0. */
const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string): number => {
  const [message] = messages(query, [complexityRule(0, 30, variables, operationName)]);
  return Number(/complexity (\d+)/.exec(message ?? '')?.[1] ?? 0);
};

describe('GraphQL limits', () => {
  describe('depth', () => {
    it('counts nested fields, through fragments and inline fragments', () => {
      expect(messages('{ book { authors { name } } }', [depthRule(3)])).to.deep.equal([]);
      expect(messages('{ book { authors { name } } }', [depthRule(2)])).to.deep.equal([
        "The query's depth 3 is above the limit of 2.",
      ]);
      const viaFragments =
        '{ ...Q } fragment Q on Query { book { ... on Book { ...B } } } fragment B on Book { authors { name } }';
      expect(messages(viaFragments, [depthRule(2)])).to.deep.equal(["The query's depth 3 is above the limit of 2."]);
    });

    it('measures a fragment spread many times once, and survives a cycle of fragments', () => {
      const chain = Array.from(
        { length: 40 },
        (_, i) => `fragment F${i} on Book { a: title ...F${i + 1} b: title ...F${i + 1} }`,
      );
      const query = `{ book { ...F0 } } ${chain.join(' ')} fragment F40 on Book { title }`;
      const started = Date.now();
      expect(messages(query, [depthRule(5)])).to.deep.equal([]);
      // Generous: measuring each spread anew would walk 2^40 of them.
      expect(Date.now() - started).to.be.below(10_000);
      const cycle = '{ book { ...A } } fragment A on Book { ...B } fragment B on Book { ...A }';
      expect(messages(cycle, [depthRule(5)])).to.deep.equal([]);
    });
  });

  describe('complexity', () => {
    it('costs 1 a field, and a list its children times first, itemsPerPage or the default page size', () => {
      expect(cost('{ book { title } }')).to.equal(2);
      expect(cost('{ books { title } }')).to.equal(1 + 30);
      expect(cost('{ books(first: 5) { title authors { name } } }')).to.equal(1 + 5 * (1 + 1 + 30));
      expect(cost('{ books(itemsPerPage: 2) { title } }')).to.equal(1 + 2);
      expect(cost('query Q($n: Int) { books(first: $n) { title } }', { n: 7 })).to.equal(1 + 7);
    });

    it('costs a connection its children times first or last, its edges or collection not multiplied again', () => {
      expect(cost('{ bookConnection(last: 3) { totalCount edges { node { title } } } }')).to.equal(
        1 + 3 * (1 + (1 + (1 + 1))),
      );
      expect(cost('{ bookConnection { totalCount } }')).to.equal(1 + 30);
      expect(cost('{ bookPage(itemsPerPage: 4) { collection { title } paginationInfo { totalCount } } }')).to.equal(
        1 + 4 * (1 + 1 + 1 + 1),
      );
    });

    it('counts the operation named by operationName, and does not fail on an anonymous one beside it', () => {
      const two = 'query A { books { title } } query B { book { title } }';
      expect(cost(two, {}, 'B')).to.equal(2);
      expect(() =>
        validate(schema, parse('{ book { title } } query B { book { title } }'), [complexityRule(0, 30, {}, 'B')]),
      ).to.not.throw();
    });

    it('refuses variables that do not fit instead of throwing', () => {
      expect(
        messages('query Q($n: Int!) { books(first: $n) { title } }', [complexityRule(100, 30, { n: 'x' }, 'Q')])[0],
      ).to.match(/^Variable "\$n" got invalid value "x"/);
    });

    it('passes the standard introspection query under the default limit', () => {
      // With every option on: GraphiQL asks for a subset of this.
      const introspection = parse(
        getIntrospectionQuery({
          descriptions: true,
          specifiedByUrl: true,
          directiveIsRepeatable: true,
          schemaDescription: true,
          inputValueDeprecation: true,
        }),
      );
      expect(
        validate(schema, introspection, [...specifiedRules, complexityRule(500, 30, {}, undefined), depthRule(20)]),
      ).to.deep.equal([]);
    });
  });

  it('introspection off: __schema and __type refused, __typename allowed; all limits carry status 400', () => {
    expect(messages('{ __typename book { __typename } }', [noIntrospectionRule])).to.deep.equal([]);
    const settings: GraphQlSettings = {
      enabled: true,
      graphiql: true,
      introspection: false,
      maxQueryDepth: 1,
      maxQueryComplexity: 1,
      nestingSeparator: '_',
    };
    const errors = validate(schema, parse('{ __schema { queryType { name } } }'), limitRules(settings, 30, {}));
    expect(errors.map((e) => e.message)).to.deep.equal([
      "The query's depth 3 is above the limit of 1.",
      'GraphQL introspection is disabled here: "__schema" cannot be queried.',
      "The query's complexity 3 is above the limit of 1.",
    ]);
    expect(errors.map((e) => e.extensions.status)).to.deep.equal([400, 400, 400]);
  });
});
