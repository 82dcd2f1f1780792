/** The limits' validation rules (server/graphql/query-limits.ts) on a schema with lists and a connection. */
import { expect } from 'chai';
import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import {
  MAX_QUERY_NODES,
  complexityRule,
  depthRule,
  limitRules,
  noIntrospectionRule,
} from '../../server/graphql/query-limits.js';
import type { GraphQlSettings } from '../../server/metadata/types.js';

const schema = buildSchema(`
  type Query {
    books(first: Int, itemsPerPage: Int): [Book!]!
    bookConnection(first: Int, last: Int): BookConnection!
    bookPage(page: Int, itemsPerPage: Int): BookPage
    book: Book
  }
  type Book { title: String authors(first: Int): [Author!]! }
  type Author { name: String books(first: Int): [Book!]! }
  type BookConnection { edges: [BookEdge!]! totalCount: Int! }
  type BookEdge { node: Book! cursor: String! }
  type BookPage { collection: [Book] paginationInfo: PaginationInfo! }
  type PaginationInfo { totalCount: Int! }
`);

const messages = (query: string, rules: Parameters<typeof validate>[2]) =>
  validate(schema, parse(query), rules).map((e) => e.message);

/** The cost the complexity rule finds (of a valid query): it reports it once it is above a limit of 0. */
const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string): number => {
  const [message] = messages(query, [
    ...specifiedRules,
    complexityRule(0, MAX_QUERY_NODES, 30, variables, operationName),
  ]);
  return Number(/complexity (\d+)/.exec(message ?? '')?.[1] ?? 0);
};

/** The items the node bound finds: it reports them once they are above a limit of 0. */
const items = (query: string, variables: Record<string, unknown> = {}): number => {
  const [message] = messages(query, [...specifiedRules, complexityRule(10_000, 0, 30, variables, undefined)]);
  return Number(/hold up to (\d+) items/.exec(message ?? '')?.[1] ?? 0);
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
    it('costs 1 a field, aliases and fragment spreads included, whatever page a list asks for', () => {
      expect(cost('{ book { title } }')).to.equal(2);
      expect(cost('{ books { title } }')).to.equal(2);
      expect(cost('{ books(first: 5) { title authors { name } } }')).to.equal(4);
      expect(cost('{ books(itemsPerPage: 100) { title } }')).to.equal(2);
      expect(cost('{ a: book { title } b: book { title } }')).to.equal(4);
      expect(cost('{ book { ...F } other: book { ...F } } fragment F on Book { title authors { name } }')).to.equal(
        2 * (1 + 3),
      );
      expect(
        cost('{ bookConnection(first: 100) { totalCount edges { cursor node { title authors { name } } } } }'),
      ).to.equal(8);
    });

    it('counts the items of lists times the lists around them; edges, collection and scalars hold none more', () => {
      expect(items('{ book { title } }')).to.equal(0);
      expect(items('{ books { title } }')).to.equal(30);
      expect(items('{ books(first: 5) { title authors { name } } }')).to.equal(5 + 5 * 30);
      expect(items('{ books(itemsPerPage: 2) { title } }')).to.equal(2);
      expect(items('query Q($n: Int) { books(first: $n) { title } }', { n: 7 })).to.equal(7);
      expect(items('{ bookConnection(last: 3) { totalCount edges { node { title } } } }')).to.equal(3);
      expect(items('{ bookConnection { totalCount } }')).to.equal(30);
      expect(
        items('{ bookPage(itemsPerPage: 4) { collection { authors { name } } paginationInfo { totalCount } } }'),
      ).to.equal(4 + 4 * 30);
      // GitHub's example: 50 repositories, 10 issues each, 20 labels each.
      const github =
        '{ bookConnection(first: 50) { edges { node { a: authors(first: 10) { b: books(first: 20) { title } } } } } }';
      expect(items(github)).to.equal(50 + 50 * 10 + 50 * 10 * 20);
    });

    it('refuses the items of nested lists above the node bound, the field count aside', () => {
      const nested = (n: number) => `{ books(first: ${n}) { authors(first: ${n}) { books(first: ${n}) { title } } } }`;
      const rules = (query: string) =>
        messages(query, [...specifiedRules, complexityRule(500, MAX_QUERY_NODES, 30, {}, undefined)]);
      expect(rules(nested(79))).to.deep.equal([]); // 79 + 79² + 79³ = 499,359
      expect(rules(nested(80))).to.deep.equal([
        "The query's lists hold up to 518480 items, above the limit of 500000.",
      ]);
    });

    it('counts the operation named by operationName, and does not fail on an anonymous one beside it', () => {
      const two = 'query A { books { title } } query B { book { title } }';
      expect(cost(two, {}, 'B')).to.equal(2);
      expect(() =>
        validate(schema, parse('{ book { title } } query B { book { title } }'), [
          complexityRule(0, MAX_QUERY_NODES, 30, {}, 'B'),
        ]),
      ).to.not.throw();
    });

    it('refuses variables that do not fit instead of throwing', () => {
      expect(
        messages('query Q($n: Int!) { books(first: $n) { title } }', [
          complexityRule(100, MAX_QUERY_NODES, 30, { n: 'x' }, 'Q'),
        ])[0],
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
        validate(schema, introspection, [
          ...specifiedRules,
          complexityRule(500, MAX_QUERY_NODES, 30, {}, undefined),
          depthRule(20),
        ]),
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
    const roomy = { ...settings, maxQueryDepth: 20, maxQueryComplexity: 500 };
    const [tooMany] = validate(schema, parse('{ books(first: 500001) { title } }'), limitRules(roomy, 30, {}));
    expect(tooMany.message).to.equal("The query's lists hold up to 500001 items, above the limit of 500000.");
    expect(tooMany.extensions.status).to.equal(400);
  });
});
