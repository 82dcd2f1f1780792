/**
 * The GraphQL API (docs/graphql.md) against a real `apidsl serve`, as API Platform's GraphQL API answers: the
 * schema's names and shapes (introspection), item, `node` and collection queries, the three pagination shapes and
 * their options, every filter kind as arguments, Relay mutations with validation and relation IRIs, custom query and
 * mutation resolvers, a type reached only through a relation, types per serialization groups, and security
 * (operation and property security, fail closed, no existence leak). Runs on the MongoDB store as well
 * (APIDSL_TEST_STORE=mongodb).
 */
import { expect } from 'chai';
import { fixture, get, request, useServer } from './harness.js';
import { data, graphql, nodesOf, seed } from './graphql-helpers.js';
import { bearer, token } from './security-helpers.js';

const BOOKS = fixture('graphql-books.api');

/** Authors 1 Ann, 2 Bob, 3 Cid; publisher 1 Pub. */
const AUTHORS = [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cid' }];

/** Seven books (ids 1–7) that each filter splits differently. */
const SHELF = [
  {
    title: 'Dune',
    isbn: '111',
    price: 9.5,
    pages: 400,
    isAvailable: true,
    publishedAt: '1965-08-01T00:00:00+00:00',
    author: '/authors/1',
    coauthors: ['/authors/2', '/authors/3'],
    publisher: '/publishers/1',
  },
  { title: 'Emma', isbn: '222', price: 5, pages: 300, isAvailable: false, publishedAt: '1815-12-23T00:00:00+00:00' },
  { title: 'Ulysses', isbn: '333', price: 12, pages: 700, isAvailable: true, author: '/authors/2' },
  { title: 'Beloved', price: 15, pages: 320, isAvailable: false, publishedAt: '1987-09-02T00:00:00+00:00' },
  { title: 'Dracula', price: 5, pages: 418, isAvailable: true, publishedAt: '1897-05-26T00:00:00+00:00' },
  { title: 'Middlemarch', price: 20, pages: 880, isAvailable: true },
  { title: 'Walden', price: 7, pages: 350, isAvailable: false, publishedAt: '1854-08-09T00:00:00+00:00' },
];

type Type = { name: string; kind: string; ofType?: Type | null };
/** A type reference as SDL writes it: `[String]!`. */
function sdl(t: Type): string {
  if (t.kind === 'NON_NULL') return `${sdl(t.ofType!)}!`;
  if (t.kind === 'LIST') return `[${sdl(t.ofType!)}]`;
  return t.name;
}
/** Book's fields after id and _id: name, output type, create input type (relations as IRIs). */
const BOOK_FIELDS = [
  ['title', 'String!', 'String!'],
  ['isbn', 'String', 'String'],
  ['price', 'Float', 'Float'],
  ['pages', 'Int', 'Int'],
  ['isAvailable', 'Boolean', 'Boolean'],
  ['publishedAt', 'String', 'String'],
  ['tags', '[String]', '[String]'],
  ['meta', 'Iterable', 'Iterable'],
  ['author', 'Author', 'String'],
  ['coauthors', 'AuthorCursorConnection', '[String]'],
  ['publisher', 'Publisher', 'String'],
] as const;
const TYPE_REF = '{ name kind ofType { name kind ofType { name kind ofType { name kind } } } }';

describe('GraphQL API (graphql-books.api)', function () {
  const server = useServer(BOOKS);
  before(async () => {
    await seed(server.url, '/authors', AUTHORS);
    await seed(server.url, '/publishers', [{ name: 'Pub' }]);
    await seed(server.url, '/books', SHELF);
  });

  /** The ids of `books(<args>)`, in order. */
  const bookIds = async (args: string, variables: Record<string, unknown> = {}, vars = ''): Promise<number[]> => {
    const d = await data(server.url, `query Q${vars} { books(${args}) { edges { node { _id } } } }`, variables);
    return nodesOf(d.books).map((n: { _id: number }) => n._id);
  };

  /** Fields of an object or input type, each as `name: Type`. */
  const fieldsOf = async (name: string): Promise<string[]> => {
    const d = await data(
      server.url,
      `{ __type(name: "${name}") { fields { name type ${TYPE_REF} } inputFields { name type ${TYPE_REF} } } }`,
    );
    expect(d.__type, `type ${name}`).to.not.equal(null);
    return (d.__type.fields ?? d.__type.inputFields).map(
      (f: { name: string; type: Type }) => `${f.name}: ${sdl(f.type)}`,
    );
  };

  /** Arguments of a root field, each as `name: Type`. */
  const argsOf = async (root: 'queryType' | 'mutationType', field: string): Promise<string[]> => {
    const d = await data(server.url, `{ __schema { ${root} { fields { name args { name type ${TYPE_REF} } } } } }`);
    const f = d.__schema[root].fields.find((x: { name: string }) => x.name === field);
    expect(f, `root field ${field}`).to.not.equal(undefined);
    return f.args.map((a: { name: string; type: Type }) => `${a.name}: ${sdl(a.type)}`);
  };

  describe('schema, named and shaped as API Platform’s', () => {
    it('has the default root fields of a resource without a graphql block, and named custom ones', async () => {
      const d = await data(
        server.url,
        '{ __schema { queryType { fields { name type ' +
          TYPE_REF +
          ' } } mutationType { fields { name type ' +
          TYPE_REF +
          ' } } } }',
      );
      const fields = (root: { fields: { name: string; type: Type }[] }) =>
        Object.fromEntries(root.fields.map((f) => [f.name, sdl(f.type)]));
      const queries = fields(d.__schema.queryType);
      const mutations = fields(d.__schema.mutationType);
      expect(queries).to.include({
        node: 'Node',
        author: 'Author',
        authors: 'AuthorCursorConnection',
        book: 'Book',
        books: 'BookCursorConnection',
        byIsbnBook: 'Book',
        cheapBooks: 'BookPageConnection',
        titledBooks: 'BookCursorConnection',
        leaves: 'LeafPageConnection',
        tags: '[Tag]',
      });
      expect(mutations).to.include({
        createAuthor: 'createAuthorPayload',
        createBook: 'createBookPayload',
        updateBook: 'updateBookPayload',
        deleteBook: 'deleteBookPayload',
        discountBook: 'discountBookPayload',
      });
      // graphql {}: no root field of its own.
      expect(Object.keys(queries).filter((n) => /publisher/i.test(n))).to.deep.equal([]);
      expect(Object.keys(mutations).filter((n) => /publisher/i.test(n))).to.deep.equal([]);
      // Author has no Patch, Put or Delete over REST: no default update or delete (docs/graphql.md, "Secure by default").
      expect(Object.keys(mutations).filter((n) => /author/i.test(n))).to.deep.equal(['createAuthor']);
      // Review declares its queries and create only.
      expect(Object.keys(mutations).filter((n) => /review/i.test(n))).to.deep.equal(['createReview']);
    });

    it('types a resource as an object implementing Node: id the IRI, _id the identifier, scalars by type', async () => {
      const node = await data(server.url, '{ __type(name: "Node") { kind fields { name } possibleTypes { name } } }');
      expect(node.__type.kind).to.equal('INTERFACE');
      expect(node.__type.fields.map((f: { name: string }) => f.name)).to.deep.equal(['id']);
      expect(node.__type.possibleTypes.map((t: { name: string }) => t.name)).to.include.members([
        'Author',
        'Book',
        'Publisher',
      ]);
      const book = await data(server.url, '{ __type(name: "Book") { interfaces { name } } }');
      expect(book.__type.interfaces).to.deep.equal([{ name: 'Node' }]);
      expect(await fieldsOf('Book')).to.deep.equal([
        'id: ID!',
        '_id: Int!',
        ...BOOK_FIELDS.map(([n, t]) => `${n}: ${t}`),
      ]);
      const iterable = await data(server.url, '{ __type(name: "Iterable") { kind } }');
      expect(iterable.__type.kind).to.equal('SCALAR');
    });

    it('names connections, edges and page infos as API Platform does', async () => {
      expect(await fieldsOf('BookCursorConnection')).to.deep.equal([
        'edges: [BookEdge]',
        'pageInfo: BookPageInfo!',
        'totalCount: Int!',
      ]);
      expect(await fieldsOf('BookEdge')).to.deep.equal(['node: Book', 'cursor: String!']);
      expect(await fieldsOf('BookPageInfo')).to.have.members([
        'endCursor: String',
        'startCursor: String',
        'hasNextPage: Boolean!',
        'hasPreviousPage: Boolean!',
      ]);
      expect(await fieldsOf('BookPageConnection')).to.deep.equal([
        'collection: [Book]',
        'paginationInfo: BookPaginationInfo!',
      ]);
      expect(await fieldsOf('BookPaginationInfo')).to.have.members([
        'itemsPerPage: Int!',
        'lastPage: Int!',
        'totalCount: Int!',
        'currentPage: Int!',
        'hasNextPage: Boolean!',
      ]);
      // A to-many relation is a connection with the pagination arguments.
      const book = await data(server.url, '{ __type(name: "Book") { fields { name args { name } } } }');
      const coauthors = book.__type.fields.find((f: { name: string }) => f.name === 'coauthors');
      expect(coauthors.args.map((a: { name: string }) => a.name)).to.deep.equal(['first', 'last', 'before', 'after']);
    });

    it('has Relay inputs and payloads: writable fields, relations as IRIs, required in create only, clientMutationId', async () => {
      expect(await argsOf('mutationType', 'createBook')).to.deep.equal(['input: createBookInput!']);
      expect(await fieldsOf('createBookInput')).to.deep.equal([
        ...BOOK_FIELDS.map(([n, , input]) => `${n}: ${input}`),
        'clientMutationId: String',
      ]);
      const update = await fieldsOf('updateBookInput');
      expect(update.slice(0, 2)).to.deep.equal(['id: ID!', 'title: String']);
      expect(update.slice(-2)).to.deep.equal(['ifMatch: String', 'clientMutationId: String']);
      expect(await fieldsOf('deleteBookInput')).to.deep.equal([
        'id: ID!',
        'ifMatch: String',
        'clientMutationId: String',
      ]);
      expect(await fieldsOf('createBookPayload')).to.deep.equal(['book: Book', 'clientMutationId: String']);
      expect(await fieldsOf('deleteBookPayload')).to.deep.equal(['book: Book', 'clientMutationId: String']);
    });

    it('has the filters as arguments: search, list, range, order, exists, date, boolean', async () => {
      expect(await argsOf('queryType', 'books')).to.deep.equal([
        'first: Int',
        'last: Int',
        'before: String',
        'after: String',
        'title: String',
        'title_list: [String]',
        'isbn: String',
        'isbn_list: [String]',
        'isAvailable: Boolean',
        'price: [BookFilter_price]',
        'pages: [BookFilter_pages]',
        'order: [BookFilter_order]',
        'exists: [BookFilter_exists]',
        'publishedAt: [BookFilter_publishedAt]',
      ]);
      expect(await fieldsOf('BookFilter_order')).to.deep.equal(['title: String', 'price: String', 'id: String']);
      expect(await fieldsOf('BookFilter_price')).to.have.members([
        'between: String',
        'gt: String',
        'gte: String',
        'lt: String',
        'lte: String',
      ]);
      expect(await fieldsOf('BookFilter_exists')).to.deep.equal(['publishedAt: Boolean']);
      expect(await fieldsOf('BookFilter_publishedAt')).to.deep.equal([
        'before: String',
        'strictly_before: String',
        'after: String',
        'strictly_after: String',
      ]);
      expect(await argsOf('queryType', 'book')).to.deep.equal(['id: ID!']);
      expect(await argsOf('queryType', 'node')).to.deep.equal(['id: ID!']);
    });

    it('names types BookItem, BookCollection and createBookPayloadData when operations show different groups', async () => {
      const d = await data(server.url, '{ __schema { types { name } } }');
      const names = d.__schema.types.map((t: { name: string }) => t.name);
      expect(names).to.include.members(['ReviewItem', 'ReviewCollection', 'ReviewCollectionCursorConnection']);
      expect(names).to.not.include('Review');
      expect(await argsOf('queryType', 'review')).to.deep.equal(['id: ID!']);
      expect(await fieldsOf('ReviewItem')).to.deep.equal(['id: ID!', 'body: String', 'rating: Int']);
      expect(await fieldsOf('ReviewCollection')).to.deep.equal(['id: ID!', 'rating: Int']);
      // A mutation whose groups differ from the item query's has its own payload type.
      expect(await fieldsOf('createReviewPayload')).to.deep.equal([
        'review: createReviewPayloadData',
        'clientMutationId: String',
      ]);
      expect(await fieldsOf('createReviewPayloadData')).to.deep.equal(['id: ID!', 'rating: Int']);
      expect(await fieldsOf('createReviewInput')).to.deep.equal([
        'body: String',
        'rating: Int',
        'clientMutationId: String',
      ]);
      const created = await data(
        server.url,
        'mutation { createReview(input: { body: "Great", rating: 5 }) { review { __typename id rating } } }',
      );
      expect(created.createReview.review).to.deep.equal({
        __typename: 'createReviewPayloadData',
        id: '/reviews/1',
        rating: 5,
      });
      const got = await data(
        server.url,
        '{ review(id: "/reviews/1") { __typename body rating } reviews { edges { node { __typename rating } } } }',
      );
      expect(got).to.deep.equal({
        review: { __typename: 'ReviewItem', body: 'Great', rating: 5 },
        reviews: { edges: [{ node: { __typename: 'ReviewCollection', rating: 5 } }] },
      });
    });
  });

  describe('queries', () => {
    it('reads an item by IRI with its relations: to-one an object, to-many a connection', async () => {
      const d = await data(
        server.url,
        `query Q($id: ID!) { book(id: $id) { id _id title price isAvailable publishedAt tags
           author { id name } coauthors { totalCount edges { node { id name } } } publisher { id name } } }`,
        { id: '/books/1' },
      );
      expect(d.book).to.deep.equal({
        id: '/books/1',
        _id: 1,
        title: 'Dune',
        price: 9.5,
        isAvailable: true,
        publishedAt: '1965-08-01T00:00:00+00:00',
        tags: null,
        author: { id: '/authors/1', name: 'Ann' },
        coauthors: {
          totalCount: 2,
          edges: [{ node: { id: '/authors/2', name: 'Bob' } }, { node: { id: '/authors/3', name: 'Cid' } }],
        },
        publisher: { id: '/publishers/1', name: 'Pub' },
      });
    });

    it('answers null without an error for an IRI that names nothing (missing, other resource, not an IRI)', async () => {
      const answer = await graphql(
        server.url,
        '{ a: book(id: "/books/999") { id } b: book(id: "/authors/1") { id } c: book(id: "nothing") { id } }',
      );
      expect(answer).to.deep.equal({ data: { a: null, b: null, c: null } });
    });

    it('node(id) resolves any IRI to its type, a type reached only through a relation included', async () => {
      const d = await data(
        server.url,
        `{ b: node(id: "/books/2") { __typename id ... on Book { title } }
           a: node(id: "/authors/3") { __typename id ... on Author { name } }
           p: node(id: "/publishers/1") { __typename id ... on Publisher { name } }
           m: node(id: "/books/999") { id }
           x: node(id: "/nowhere/1") { id } }`,
      );
      expect(d).to.deep.equal({
        b: { __typename: 'Book', id: '/books/2', title: 'Emma' },
        a: { __typename: 'Author', id: '/authors/3', name: 'Cid' },
        p: { __typename: 'Publisher', id: '/publishers/1', name: 'Pub' },
        m: null,
        x: null,
      });
    });

    it('nested on a GraphQL operation: a resource with `graphql {}` has no root field, its type is reached through a relation', async () => {
      const schema = await data(server.url, '{ __type(name: "Publisher") { name fields { name } } }');
      expect(schema.__type.fields.map((f: { name: string }) => f.name)).to.deep.equal(['id', '_id', 'name']);
      const answer = await graphql(server.url, '{ publisher(id: "/publishers/1") { id } }');
      expect(answer.errors?.[0]?.message).to.equal('Cannot query field "publisher" on type "Query".');
      const d = await data(server.url, '{ book(id: "/books/1") { publisher { __typename id _id name } } }');
      expect(d.book.publisher).to.deep.equal({ __typename: 'Publisher', id: '/publishers/1', _id: 1, name: 'Pub' });
    });

    it('lists a collection as REST does, with its totalCount', async () => {
      const d = await data(server.url, '{ books { totalCount edges { node { id title } } } }');
      const rest = await get(server.url, '/books');
      expect(d.books.totalCount).to.equal(rest.json.totalItems).and.to.equal(7);
      expect(nodesOf(d.books)).to.deep.equal(
        rest.json.member.map((m: { '@id': string; title: string }) => ({ id: m['@id'], title: m.title })),
      );
    });
  });

  describe('cursor pagination', () => {
    const ORDER = '[{ title: "ASC" }]';
    const page = async (args: string) =>
      (
        await data(
          server.url,
          `{ books(order: ${ORDER}, ${args}) { totalCount edges { cursor node { _id } }
             pageInfo { startCursor endCursor hasNextPage hasPreviousPage } } }`,
        )
      ).books;

    it('walks forward with first/after and back with last/before, in the REST collection’s order', async () => {
      const rest = await get(server.url, '/books?order[title]=asc');
      const expected = rest.json.member.map((m: { id: number }) => m.id);
      expect(expected).to.have.length(7);

      const forward: number[] = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const p = await page(`first: 3${after ? `, after: "${after}"` : ''}`);
        pages++;
        expect(p.totalCount).to.equal(7);
        expect(p.pageInfo.hasPreviousPage).to.equal(after !== null);
        expect(p.pageInfo.startCursor).to.equal(p.edges[0].cursor);
        expect(p.pageInfo.endCursor).to.equal(p.edges.at(-1).cursor);
        forward.push(...p.edges.map((e: { node: { _id: number } }) => e.node._id));
        if (!p.pageInfo.hasNextPage) break;
        after = p.pageInfo.endCursor;
        expect(pages).to.be.below(5);
      }
      expect(pages).to.equal(3);
      expect(forward).to.deep.equal(expected);

      const backward: number[] = [];
      let before: string | null = null;
      pages = 0;
      for (;;) {
        const p = await page(`last: 3${before ? `, before: "${before}"` : ''}`);
        pages++;
        backward.unshift(...p.edges.map((e: { node: { _id: number } }) => e.node._id));
        if (!p.pageInfo.hasPreviousPage) break;
        before = p.pageInfo.startCursor;
        expect(pages).to.be.below(5);
      }
      expect(pages).to.equal(3);
      expect(backward).to.deep.equal(expected);
    });

    it('makes a cursor the base64 of the item’s offset', async () => {
      const p = await page('first: 2, after: "MQ=="'); // offset 1
      expect(p.edges.map((e: { cursor: string }) => Buffer.from(e.cursor, 'base64').toString())).to.deep.equal([
        '2',
        '3',
      ]);
      expect(p.pageInfo).to.include({ hasPreviousPage: true, hasNextPage: true });
      const last = await page('last: 2');
      expect(last.edges.map((e: { cursor: string }) => e.cursor)).to.deep.equal([
        Buffer.from('5').toString('base64'),
        Buffer.from('6').toString('base64'),
      ]);
      expect(last.pageInfo).to.include({ hasPreviousPage: true, hasNextPage: false });
    });

    it('refuses a cursor that is not one, and a negative first, with status 400', async () => {
      const bad = await graphql(server.url, '{ books(after: "not a cursor") { totalCount } }');
      expect(bad.errors?.map((e) => e.extensions?.status)).to.deep.equal([400]);
      expect(bad.data).to.deep.equal({ books: null });
      const negative = await graphql(server.url, '{ books(first: -1) { totalCount } }');
      expect(negative.errors?.map((e) => e.extensions?.status)).to.deep.equal([400]);
    });

    it('pages a to-many relation with the same arguments', async () => {
      const d = await data(
        server.url,
        `{ book(id: "/books/1") {
             first: coauthors(first: 1) { totalCount edges { cursor node { name } } pageInfo { hasNextPage hasPreviousPage } }
             next: coauthors(first: 1, after: "MA==") { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } } }`,
      );
      expect(d.book.first).to.deep.equal({
        totalCount: 2,
        edges: [{ cursor: 'MA==', node: { name: 'Bob' } }],
        pageInfo: { hasNextPage: true, hasPreviousPage: false },
      });
      expect(d.book.next).to.deep.equal({
        edges: [{ node: { name: 'Cid' } }],
        pageInfo: { hasNextPage: false, hasPreviousPage: true },
      });
    });
  });

  describe('pagination options', () => {
    before(async () => {
      await seed(
        server.url,
        '/leaves',
        [1, 2, 3, 4, 5, 6, 7].map((n) => ({ n })),
      );
      await seed(
        server.url,
        '/tags',
        [1, 2, 3, 4].map((n) => ({ label: `t${n}` })),
      );
      await seed(
        server.url,
        '/notes',
        [1, 2, 3, 4, 5].map((n) => ({ text: `n${n}` })),
      );
    });

    it('paginationType on a GraphQL operation: "page" gives page (and itemsPerPage), collection and paginationInfo', async () => {
      expect(await argsOf('queryType', 'leaves')).to.deep.equal(['page: Int', 'itemsPerPage: Int']);
      expect(await argsOf('queryType', 'cheapBooks'))
        .to.include('page: Int')
        .and.not.include('itemsPerPage: Int');
      const d = await data(
        server.url,
        `{ p1: leaves { collection { n } paginationInfo { itemsPerPage lastPage totalCount currentPage hasNextPage } }
           p4: leaves(page: 4) { collection { n } paginationInfo { itemsPerPage lastPage totalCount currentPage hasNextPage } } }`,
      );
      expect(d.p1).to.deep.equal({
        collection: [{ n: 1 }, { n: 2 }],
        paginationInfo: { itemsPerPage: 2, lastPage: 4, totalCount: 7, currentPage: 1, hasNextPage: true },
      });
      expect(d.p4).to.deep.equal({
        collection: [{ n: 7 }],
        paginationInfo: { itemsPerPage: 2, lastPage: 4, totalCount: 7, currentPage: 4, hasNextPage: false },
      });
    });

    it('takes the client’s itemsPerPage up to the maximum (paginationMaximumItemsPerPage)', async () => {
      const d = await data(
        server.url,
        `{ three: leaves(page: 2, itemsPerPage: 3) { collection { n } paginationInfo { itemsPerPage lastPage } }
           capped: leaves(itemsPerPage: 10) { collection { n } paginationInfo { itemsPerPage lastPage } } }`,
      );
      expect(d.three).to.deep.equal({
        collection: [{ n: 4 }, { n: 5 }, { n: 6 }],
        paginationInfo: { itemsPerPage: 3, lastPage: 3 },
      });
      expect(d.capped).to.deep.equal({
        collection: [{ n: 1 }, { n: 2 }, { n: 3 }],
        paginationInfo: { itemsPerPage: 3, lastPage: 3 },
      });
    });

    it('gives a plain list when pagination is off', async () => {
      expect(await argsOf('queryType', 'tags')).to.deep.equal([]);
      const d = await data(server.url, '{ tags { label } }');
      expect(d.tags).to.deep.equal([{ label: 't1' }, { label: 't2' }, { label: 't3' }, { label: 't4' }]);
    });

    it('pages a cursor connection by paginationItemsPerPage when no first/last is given', async () => {
      const d = await data(server.url, '{ notes { edges { node { text } } pageInfo { hasNextPage } } }');
      expect(nodesOf(d.notes)).to.deep.equal([{ text: 'n1' }, { text: 'n2' }]);
      expect(d.notes.pageInfo.hasNextPage).to.equal(true);
    });

    it('caps first at the maximum page size (pagination_maximum_items_per_page, 50 here)', async () => {
      await seed(
        server.url,
        '/authors',
        Array.from({ length: 50 }, (_, i) => ({ name: `extra ${i}` })),
      );
      const d = await data(
        server.url,
        '{ authors(first: 60) { totalCount edges { cursor } pageInfo { hasNextPage } } }',
      );
      expect(d.authors.totalCount).to.equal(53);
      expect(d.authors.edges).to.have.length(50);
      expect(d.authors.pageInfo.hasNextPage).to.equal(true);
    });

    it('counts nothing in partial mode: totalCount says whether an item follows, the last page is the end', async () => {
      const first = await data(server.url, '{ notes(first: 2) { totalCount pageInfo { hasNextPage endCursor } } }');
      expect(first.notes.pageInfo.hasNextPage).to.equal(true);
      // Partial: no count, so the total is what was seen and one more while an item follows.
      expect(first.notes.totalCount).to.equal(3);
      const end = await data(
        server.url,
        '{ notes(first: 2, after: "Mw==") { totalCount edges { node { text } } pageInfo { hasNextPage } } }',
      );
      expect(end.notes).to.deep.equal({
        totalCount: 5,
        edges: [{ node: { text: 'n5' } }],
        pageInfo: { hasNextPage: false },
      });
    });

    it('pages a to-many relation as the related collection is paged: its size, maximum and client size', async () => {
      const leaves = [1, 2, 3, 4, 5, 6, 7].map((n) => `/leaves/${n}`);
      const notes = [1, 2, 3, 4, 5].map((n) => `/notes/${n}`);
      const created = await data(
        server.url,
        'mutation M($input: createAuthorInput!) { createAuthor(input: $input) { author { id } } }',
        { input: { name: 'Gardener', leaves, notes } },
      );
      const id = created.createAuthor.author.id;
      const read = async (fields: string) =>
        (await data(server.url, `query Q($id: ID!) { author(id: $id) { ${fields} } }`, { id })).author;
      const author = {
        ...(await read(`leaves { collection { n } paginationInfo { itemsPerPage lastPage totalCount currentPage hasNextPage } }
           three: leaves(page: 2, itemsPerPage: 3) { collection { n } paginationInfo { itemsPerPage currentPage } }
           capped: leaves(itemsPerPage: 10) { collection { n } paginationInfo { itemsPerPage lastPage } }`)),
        ...(await read(`notes { totalCount edges { node { text } } pageInfo { hasNextPage } }
           lastNotes: notes(last: 2) { edges { cursor node { text } } pageInfo { hasPreviousPage hasNextPage } }`)),
      };
      expect(author.leaves).to.deep.equal({
        collection: [{ n: 1 }, { n: 2 }],
        paginationInfo: { itemsPerPage: 2, lastPage: 4, totalCount: 7, currentPage: 1, hasNextPage: true },
      });
      expect(author.three).to.deep.equal({
        collection: [{ n: 4 }, { n: 5 }, { n: 6 }],
        paginationInfo: { itemsPerPage: 3, currentPage: 2 },
      });
      expect(author.capped).to.deep.equal({
        collection: [{ n: 1 }, { n: 2 }, { n: 3 }],
        paginationInfo: { itemsPerPage: 3, lastPage: 3 },
      });
      expect(author.notes).to.deep.equal({
        totalCount: 5,
        edges: [{ node: { text: 'n1' } }, { node: { text: 'n2' } }],
        pageInfo: { hasNextPage: true },
      });
      expect(author.lastNotes).to.deep.equal({
        edges: [
          { cursor: Buffer.from('3').toString('base64'), node: { text: 'n4' } },
          { cursor: Buffer.from('4').toString('base64'), node: { text: 'n5' } },
        ],
        pageInfo: { hasPreviousPage: true, hasNextPage: false },
      });
    });
  });

  describe('filters as arguments', () => {
    it('search (partial and exact), and its _list form', async () => {
      expect(await bookIds('title: "Dra"')).to.deep.equal([5]);
      expect(await bookIds('title: "dune"')).to.deep.equal([]); // partial is case-sensitive
      expect(await bookIds('title_list: ["Dun", "Emm"]')).to.deep.equal([1, 2]);
      expect(await bookIds('isbn: "22"')).to.deep.equal([]); // exact
      expect(await bookIds('isbn: "222"')).to.deep.equal([2]);
      expect(await bookIds('isbn_list: ["111", "333"]')).to.deep.equal([1, 3]);
      expect(await bookIds('title: $t', { t: 'e' }, '($t: String)')).to.deep.equal([1, 3, 4, 6, 7]);
    });

    it('range: gt, gte, lt, lte and between', async () => {
      expect(await bookIds('price: [{ gt: "9" }]')).to.deep.equal([1, 3, 4, 6]);
      expect(await bookIds('price: [{ gte: "12" }]')).to.deep.equal([3, 4, 6]);
      expect(await bookIds('price: [{ lt: "7" }]')).to.deep.equal([2, 5]);
      expect(await bookIds('price: [{ lte: "7" }]')).to.deep.equal([2, 5, 7]);
      expect(await bookIds('price: [{ between: "7..12" }]')).to.deep.equal([1, 3, 7]);
      expect(await bookIds('price: [{ gt: "5", lt: "15" }], pages: [{ lte: "400" }]')).to.deep.equal([1, 7]);
    });

    it('date: before, strictly_before, after, strictly_after', async () => {
      expect(await bookIds('publishedAt: [{ after: "1900-01-01" }]')).to.deep.equal([1, 4]);
      expect(await bookIds('publishedAt: [{ before: "1854-08-09T00:00:00+00:00" }]')).to.deep.equal([2, 7]);
      expect(await bookIds('publishedAt: [{ strictly_before: "1854-08-09T00:00:00+00:00" }]')).to.deep.equal([2]);
      expect(await bookIds('publishedAt: [{ strictly_after: "1965-08-01T00:00:00+00:00" }]')).to.deep.equal([4]);
      expect(await bookIds('publishedAt: [{ after: "1850-01-01", before: "1900-01-01" }]')).to.deep.equal([5, 7]);
    });

    it('exists and boolean', async () => {
      expect(await bookIds('exists: [{ publishedAt: false }]')).to.deep.equal([3, 6]);
      expect(await bookIds('exists: [{ publishedAt: true }]')).to.deep.equal([1, 2, 4, 5, 7]);
      expect(await bookIds('isAvailable: true')).to.deep.equal([1, 3, 5, 6]);
      expect(await bookIds('isAvailable: false')).to.deep.equal([2, 4, 7]);
    });

    it('order: one key, and two keys applied in the order written', async () => {
      expect(await bookIds('order: [{ title: "DESC" }]')).to.deep.equal([7, 3, 6, 2, 1, 5, 4]);
      expect(await bookIds('order: [{ price: "ASC" }, { title: "ASC" }]')).to.deep.equal([5, 2, 7, 1, 3, 4, 6]);
      expect(await bookIds('order: [{ price: "ASC" }, { title: "DESC" }]')).to.deep.equal([2, 5, 7, 1, 3, 4, 6]);
      expect(await bookIds('order: [{ title: "ASC" }, { price: "ASC" }]')).to.deep.equal([4, 5, 1, 2, 6, 3, 7]);
      // As REST orders the same keys.
      const rest = await get(server.url, '/books?order[price]=desc&order[title]=asc');
      expect(await bookIds('order: [{ price: "DESC" }, { title: "ASC" }]')).to.deep.equal(
        rest.json.member.map((m: { id: number }) => m.id),
      );
    });

    it('combines filters with pagination: totalCount counts the filtered items', async () => {
      const d = await data(
        server.url,
        '{ books(isAvailable: true, order: [{ price: "DESC" }], first: 2) { totalCount edges { node { _id } } pageInfo { hasNextPage } } }',
      );
      expect(d.books.totalCount).to.equal(4);
      expect(nodesOf(d.books).map((n) => n._id)).to.deep.equal([6, 3]);
      expect(d.books.pageInfo.hasNextPage).to.equal(true);
    });

    describe('every search strategy', () => {
      const STRATEGIES = [
        'exact',
        'iexact',
        'partial',
        'ipartial',
        'start',
        'istart',
        'end',
        'iend',
        'wordStart',
        'iwordStart',
      ];
      before(async () => {
        const phrase = (text: string) => Object.fromEntries(STRATEGIES.map((s) => [s, text]));
        await seed(server.url, '/phrases', [phrase('The Quick Fox'), phrase('quick brown fox')]);
      });
      const cases: [string, string, number[]][] = [
        ['exact', 'The Quick Fox', [1]],
        ['exact', 'the quick fox', []],
        ['iexact', 'the quick fox', [1]],
        ['partial', 'Quick', [1]],
        ['partial', 'quick', [2]],
        ['ipartial', 'QUICK', [1, 2]],
        ['start', 'The', [1]],
        ['start', 'Quick', []],
        ['istart', 'QUICK', [2]],
        ['end', 'Fox', [1]],
        ['iend', 'FOX', [1, 2]],
        ['wordStart', 'Qu', [1]],
        ['wordStart', 'uick', []],
        ['iwordStart', 'qu', [1, 2]],
        ['iwordStart', 'bro', [2]],
      ];
      for (const [strategy, value, expected] of cases) {
        it(`${strategy} "${value}": ${JSON.stringify(expected)}`, async () => {
          const d = await data(
            server.url,
            `query Q($v: String) { phrases(${strategy}: $v) { edges { node { _id } } } }`,
            {
              v: value,
            },
          );
          expect(nodesOf(d.phrases).map((n) => n._id)).to.deep.equal(expected);
        });
      }
    });
  });

  describe('custom queries', () => {
    it('resolver on a GraphQL operation: a custom item query answers what its resolver gives (null: no error)', async () => {
      const d = await data(
        server.url,
        '{ found: byIsbnBook(isbn: "978") { id _id title isbn } none: byIsbnBook(isbn: "none") { id } }',
      );
      expect(d).to.deep.equal({
        found: { id: '/books/100', _id: 100, title: 'Found by 978', isbn: '978' },
        none: null,
      });
    });

    it('resolver on a GraphQL operation: a custom collection query pages the paginator its resolver gives', async () => {
      const d = await data(
        server.url,
        '{ cheapBooks(page: 2) { collection { title } paginationInfo { itemsPerPage lastPage totalCount currentPage hasNextPage } } }',
      );
      expect(d.cheapBooks).to.deep.equal({
        collection: [{ title: 'Gamma' }, { title: 'Alpine' }],
        paginationInfo: { itemsPerPage: 2, lastPage: 2, totalCount: 4, currentPage: 2, hasNextPage: false },
      });
    });

    it('resolver on a GraphQL operation: a plain array from a collection resolver is paged by the connection’s arguments', async () => {
      const d = await data(
        server.url,
        `{ first: titledBooks(first: 2) { totalCount edges { cursor node { title } } pageInfo { hasNextPage hasPreviousPage } }
           next: titledBooks(first: 2, after: "MQ==") { edges { cursor node { title } } pageInfo { hasNextPage hasPreviousPage } }
           last: titledBooks(last: 1) { edges { cursor node { title } } pageInfo { hasNextPage hasPreviousPage } } }`,
      );
      const cursor = (n: number) => Buffer.from(String(n)).toString('base64');
      expect(d.first).to.deep.equal({
        totalCount: 4,
        edges: [
          { cursor: cursor(0), node: { title: 'Alpha' } },
          { cursor: cursor(1), node: { title: 'Beta' } },
        ],
        pageInfo: { hasNextPage: true, hasPreviousPage: false },
      });
      expect(d.next).to.deep.equal({
        edges: [
          { cursor: cursor(2), node: { title: 'Gamma' } },
          { cursor: cursor(3), node: { title: 'Alpine' } },
        ],
        pageInfo: { hasNextPage: false, hasPreviousPage: true },
      });
      expect(d.last).to.deep.equal({
        edges: [{ cursor: cursor(3), node: { title: 'Alpine' } }],
        pageInfo: { hasNextPage: false, hasPreviousPage: true },
      });
    });

    it('args on a GraphQL operation: replace the default arguments and reach the resolver as ctx.args', async () => {
      expect(await argsOf('queryType', 'byIsbnBook')).to.deep.equal(['isbn: String!']);
      const missing = await graphql(server.url, '{ byIsbnBook { id } }');
      expect(missing.errors?.[0]?.message).to.match(/argument "isbn" of type "String!" is required/);
      const withId = await graphql(server.url, '{ byIsbnBook(id: "/books/1", isbn: "1") { id } }');
      expect(withId.errors?.[0]?.message).to.match(/Unknown argument "id"/);
    });

    it('extraArgs on a GraphQL operation: add to the default arguments and reach the resolver as ctx.args', async () => {
      const args = await argsOf('queryType', 'titledBooks');
      expect(args.slice(0, 4)).to.deep.equal(['first: Int', 'last: Int', 'before: String', 'after: String']);
      expect(args.at(-1)).to.equal('prefix: String');
      const d = await data(server.url, '{ titledBooks(prefix: "Al") { totalCount edges { node { id title } } } }');
      expect(d.titledBooks).to.deep.equal({
        totalCount: 2,
        edges: [{ node: { id: '/books/101', title: 'Alpha' } }, { node: { id: '/books/104', title: 'Alpine' } }],
      });
      // On a mutation: an extra input field.
      expect(await fieldsOf('discountBookInput')).to.include('percent: Int!');
    });
  });
});

describe('GraphQL mutations (graphql-books.api)', function () {
  const server = useServer(BOOKS);
  before(async () => {
    await seed(server.url, '/authors', AUTHORS);
    await seed(server.url, '/publishers', [{ name: 'Pub' }]);
  });

  const countBooks = async (): Promise<number> => (await get(server.url, '/books')).json.totalItems;
  /** Creates a book from an input literal (`{ title: "…" }`), answering its IRI. */
  const createBook = async (input: string): Promise<string> =>
    (await data(server.url, `mutation { createBook(input: ${input}) { book { id } } }`)).createBook.book.id;

  it('creates an item: the payload holds it and the clientMutationId, REST reads it back', async () => {
    const d = await data(
      server.url,
      `mutation M($input: createBookInput!) { createBook(input: $input) {
         book { id _id title price tags meta author { name } coauthors { totalCount edges { node { id } } } publisher { name } }
         clientMutationId } }`,
      {
        input: {
          title: 'Dune',
          price: 9.5,
          tags: ['sf', 'classic'],
          meta: { awards: ['Hugo'] },
          author: '/authors/1',
          coauthors: ['/authors/2', '/authors/3'],
          publisher: '/publishers/1',
          clientMutationId: 'c-1',
        },
      },
    );
    expect(d.createBook).to.deep.equal({
      book: {
        id: '/books/1',
        _id: 1,
        title: 'Dune',
        price: 9.5,
        tags: ['sf', 'classic'],
        meta: { awards: ['Hugo'] },
        author: { name: 'Ann' },
        coauthors: { totalCount: 2, edges: [{ node: { id: '/authors/2' } }, { node: { id: '/authors/3' } }] },
        publisher: { name: 'Pub' },
      },
      clientMutationId: 'c-1',
    });
    const rest = await get(server.url, '/books/1');
    expect(rest.json).to.include({ title: 'Dune', price: 9.5, author: '/authors/1', publisher: '/publishers/1' });
    expect(rest.json.coauthors).to.deep.equal(['/authors/2', '/authors/3']);
  });

  it('refuses invalid input with status 422 and the violations, storing nothing', async () => {
    const before = await countBooks();
    const answer = await graphql(
      server.url,
      'mutation { createBook(input: { title: "", price: -1 }) { book { id } clientMutationId } }',
    );
    expect(answer.data).to.deep.equal({ createBook: null });
    expect(answer.errors).to.have.length(1);
    expect(answer.errors![0].path).to.deep.equal(['createBook']);
    expect(answer.errors![0].extensions?.status).to.equal(422);
    expect(answer.errors![0].extensions?.violations).to.deep.equal([
      { path: 'title', message: 'This value should not be blank.' },
      { path: 'price', message: 'This value should be greater than or equal to 0.' },
    ]);
    expect(await countBooks()).to.equal(before);
  });

  it('refuses a required field left out before anything runs (non-null input field)', async () => {
    const answer = await graphql(server.url, 'mutation { createBook(input: { price: 1 }) { book { id } } }');
    expect(answer.errors?.[0]?.message).to.match(/Field "createBookInput.title" of required type "String!"/);
    expect(answer.data).to.equal(undefined);
  });

  it('refuses a relation IRI that names nothing (to-one or to-many) with a 4xx error, storing nothing', async () => {
    const before = await countBooks();
    for (const input of [
      '{ title: "Lost", author: "/authors/99" }',
      '{ title: "Lost", coauthors: ["/authors/1", "/authors/99"] }',
      '{ title: "Lost", author: "/books/1" }',
      '{ title: "Lost", author: "not an IRI" }',
    ]) {
      const answer = await graphql(server.url, `mutation { createBook(input: ${input}) { book { id } } }`);
      expect(answer.data, input).to.deep.equal({ createBook: null });
      const status = answer.errors?.[0]?.extensions?.status;
      expect(status, `${input}: ${JSON.stringify(answer.errors)}`).to.be.within(400, 499);
    }
    expect(await countBooks()).to.equal(before);
  });

  it('updates an item by merging the input as PATCH does, and needs its id', async () => {
    const id = await createBook('{ title: "Emma", price: 5, isbn: "222" }');
    const d = await data(
      server.url,
      'mutation M($id: ID!) { updateBook(input: { id: $id, price: 6, clientMutationId: "u" }) { book { id title price isbn } clientMutationId } }',
      { id },
    );
    expect(d.updateBook).to.deep.equal({
      book: { id, title: 'Emma', price: 6, isbn: '222' },
      clientMutationId: 'u',
    });
    const invalid = await graphql(
      server.url,
      'mutation M($id: ID!) { updateBook(input: { id: $id, price: -3 }) { book { id } } }',
      { id },
    );
    expect(invalid.errors?.[0]?.extensions?.status).to.equal(422);
    expect((await get(server.url, id)).json.price).to.equal(6);
    const noId = await graphql(server.url, 'mutation { updateBook(input: { price: 1 }) { book { id } } }');
    expect(noId.errors?.[0]?.message).to.match(/Field "updateBookInput.id" of required type "ID!"/);
  });

  it('answers 404 for an update or delete of an IRI that names nothing', async () => {
    for (const mutation of [
      'updateBook(input: { id: "/books/999", price: 1 })',
      'deleteBook(input: { id: "/books/999" })',
      'deleteBook(input: { id: "/authors/1" })',
    ]) {
      const answer = await graphql(server.url, `mutation { ${mutation} { book { id } } }`);
      expect(answer.data, mutation).to.deep.equal({ [mutation.slice(0, mutation.indexOf('('))]: null });
      expect(
        answer.errors?.map((e) => e.extensions?.status),
        mutation,
      ).to.deep.equal([404]);
    }
  });

  it('deletes an item and answers its id', async () => {
    const id = await createBook('{ title: "Gone" }');
    const d = await data(
      server.url,
      'mutation M($id: ID!) { deleteBook(input: { id: $id, clientMutationId: "d" }) { book { id } clientMutationId } }',
      { id },
    );
    expect(d.deleteBook).to.deep.equal({ book: { id }, clientMutationId: 'd' });
    expect((await get(server.url, id)).status).to.equal(404);
    expect(await data(server.url, 'query Q($id: ID!) { book(id: $id) { id } }', { id })).to.deep.equal({ book: null });
  });

  it('resolver on a GraphQL operation: a custom mutation’s resolver changes the item read by id, which is stored', async () => {
    const id = await createBook('{ title: "Walden", price: 20 }');
    const d = await data(
      server.url,
      'mutation M($id: ID!) { discountBook(input: { id: $id, percent: 25, clientMutationId: "x" }) { book { id title price } clientMutationId } }',
      { id },
    );
    expect(d.discountBook).to.deep.equal({ book: { id, title: 'Walden', price: 15 }, clientMutationId: 'x' });
    expect((await get(server.url, id)).json.price).to.equal(15);
    const missing = await graphql(
      server.url,
      'mutation { discountBook(input: { id: "/books/999", percent: 1 }) { book { id } } }',
    );
    expect(missing.errors?.map((e) => e.extensions?.status)).to.deep.equal([404]);
  });
});

describe('GraphQL security (graphql-guarded.api)', function () {
  const server = useServer(fixture('graphql-guarded.api'));
  let user: Record<string, string>;
  let editor: Record<string, string>;
  let admin: Record<string, string>;
  before(async () => {
    user = bearer(await token({ sub: 'ursula', roles: ['ROLE_USER'] }));
    editor = bearer(await token({ sub: 'eddie', roles: ['ROLE_EDITOR'] }));
    admin = bearer(await token({ sub: 'ada', roles: ['ROLE_ADMIN'] }));
    await seed(server.url, '/authors', [
      { name: 'Ann', email: 'ann@example.com' },
      { name: 'Bob', email: 'bob@example.com' },
    ]);
    await seed(server.url, '/shelves', [{ name: 'A', code: 'a-1' }]);
    await seed(server.url, '/books', [
      {
        title: 'Dune',
        owner: 'eddie',
        shelf: '/shelves/1',
        author: '/authors/1',
        coauthors: ['/authors/2'],
        internalNote: 'keep',
      },
    ]);
    await seed(server.url, '/secrets', [{ text: 'hidden' }], admin);
    await seed(server.url, '/probes', [{ name: 'probe' }]);
  });

  const statuses = (answer: { errors?: { extensions?: { status?: number } }[] }) =>
    (answer.errors ?? []).map((e) => e.extensions?.status);

  it('denies an operation its security refuses: 401 anonymous, 403 without the role, the field null', async () => {
    const q = '{ author(id: "/authors/1") { name } }';
    const anonymous = await graphql(server.url, q);
    expect(anonymous.data).to.deep.equal({ author: null });
    expect(statuses(anonymous)).to.deep.equal([401]);
    const user_ = await data(server.url, q, {}, user);
    expect(user_).to.deep.equal({ author: { name: 'Ann' } });

    const create = 'mutation { createBook(input: { title: "New", owner: "eddie" }) { book { id } } }';
    const denied = await graphql(server.url, create, {}, user);
    expect(denied.data).to.deep.equal({ createBook: null });
    expect(statuses(denied)).to.deep.equal([403]);
    expect((await get(server.url, '/books')).json.totalItems).to.equal(1);
    const allowed = await data(server.url, create, {}, editor);
    expect(allowed.createBook.book.id).to.equal('/books/2');
  });

  it('runs securityPostDenormalize on the input as REST does: denied, nothing is stored', async () => {
    const before = (await get(server.url, '/books')).json.totalItems;
    const denied = await graphql(
      server.url,
      'mutation { createBook(input: { title: "Not mine", owner: "someone" }) { book { id } } }',
      {},
      editor,
    );
    expect(denied.data).to.deep.equal({ createBook: null });
    expect(denied.errors?.map((e) => [e.message, e.extensions?.status])).to.deep.equal([
      ['You can only create your own books.', 403],
    ]);
    expect((await get(server.url, '/books')).json.totalItems).to.equal(before);
  });

  it('uses the operation’s securityMessage', async () => {
    const denied = await graphql(
      server.url,
      'mutation { deleteBook(input: { id: "/books/1" }) { book { id } } }',
      {},
      editor,
    );
    expect(denied.errors?.map((e) => [e.message, e.extensions?.status])).to.deep.equal([
      ['Only administrators delete books.', 403],
    ]);
    expect((await get(server.url, '/books/1')).status).to.equal(200);
  });

  it('checks object security against the stored item (update: owner or admin)', async () => {
    const update = 'mutation { updateBook(input: { id: "/books/1", title: "Dune II" }) { book { title } } }';
    const other = await graphql(server.url, update, {}, user);
    expect(statuses(other)).to.deep.equal([403]);
    expect((await get(server.url, '/books/1')).json.title).to.equal('Dune');
    const owner = await data(server.url, update, {}, editor);
    expect(owner.updateBook.book.title).to.equal('Dune II');
  });

  it('resolves a field the user may not read (property security) to null', async () => {
    const q = '{ book(id: "/books/1") { title internalNote author { name email } } }';
    const asUser = await data(server.url, q, {}, user);
    expect(asUser.book).to.deep.include({ internalNote: null, author: { name: 'Ann', email: null } });
    const asAdmin = await data(server.url, q, {}, admin);
    expect(asAdmin.book).to.deep.include({ internalNote: 'keep', author: { name: 'Ann', email: 'ann@example.com' } });
    // Guarded properties are nullable in the schema.
    const schema = await data(server.url, '{ __type(name: "Book") { fields { name type { kind } } } }');
    const note = schema.__type.fields.find((f: { name: string }) => f.name === 'internalNote');
    expect(note.type.kind).to.equal('SCALAR');
  });

  it('applies property security to related items, in a collection’s page as in an item', async () => {
    const q = '{ books { edges { node { shelf { name code } } } } book(id: "/books/1") { shelf { name code } } }';
    const asUser = await data(server.url, q, {}, user);
    expect(nodesOf(asUser.books)[0].shelf).to.deep.equal({ name: 'A', code: null });
    expect(asUser.book.shelf).to.deep.equal({ name: 'A', code: null });
    const asAdmin = await data(server.url, q, {}, admin);
    expect(nodesOf(asAdmin.books)[0].shelf).to.deep.equal({ name: 'A', code: 'a-1' });
    expect(asAdmin.book.shelf).to.deep.equal({ name: 'A', code: 'a-1' });
  });

  it('runs the related resource’s Query security on each related item: denied, the relation is null with an error', async () => {
    const q = '{ book(id: "/books/1") { title author { name } coauthors { edges { node { name } } } } }';
    const anonymous = await graphql(server.url, q);
    expect(anonymous.data?.book?.title).to.match(/^Dune/);
    expect(anonymous.data?.book?.author).to.equal(null);
    expect(statuses(anonymous)).to.include(401);
    expect(JSON.stringify(anonymous.data)).to.not.include('Ann').and.not.include('Bob');
    const asUser = await data(server.url, q, {}, user);
    expect(asUser.book.author).to.deep.equal({ name: 'Ann' });
    expect(nodesOf(asUser.book.coauthors)).to.deep.equal([{ name: 'Bob' }]);
  });

  it('fails closed: a security expression that errs denies', async () => {
    const answer = await graphql(server.url, '{ probe(id: "/probes/1") { name } }', {}, admin);
    expect(answer.data).to.deep.equal({ probe: null });
    expect(statuses(answer)).to.deep.equal([403]);
  });

  it('does not tell a missing item from a forbidden one where REST does not', async () => {
    // Anonymous: 401 (authenticate first); an authenticated user without ROLE_ADMIN: 403.
    for (const [headers, status] of [
      [{}, 401],
      [user, 403],
    ] as const) {
      const existing = await graphql(server.url, '{ secret(id: "/secrets/1") { text } }', {}, headers);
      const missing = await graphql(server.url, '{ secret(id: "/secrets/999") { text } }', {}, headers);
      expect(existing.data).to.deep.equal({ secret: null });
      expect(statuses(existing)).to.deep.equal([status]);
      expect(missing).to.deep.equal(existing);
      const nodeExisting = await graphql(server.url, '{ node(id: "/secrets/1") { id } }', {}, headers);
      const nodeMissing = await graphql(server.url, '{ node(id: "/secrets/999") { id } }', {}, headers);
      expect(statuses(nodeExisting)).to.deep.equal(statuses(existing));
      expect(nodeMissing).to.deep.equal(nodeExisting);
      // As REST answers both alike.
      const restExisting = await request(server.url, 'GET', '/secrets/1', { headers });
      const restMissing = await request(server.url, 'GET', '/secrets/999', { headers });
      expect(restMissing.status).to.equal(restExisting.status).and.to.equal(statuses(existing)[0]);

      for (const m of ['updateSecret(input: { id: $id, text: "x" })', 'deleteSecret(input: { id: $id })']) {
        const q = `mutation M($id: ID!) { ${m} { secret { id } } }`;
        const a = await graphql(server.url, q, { id: '/secrets/1' }, headers);
        const b = await graphql(server.url, q, { id: '/secrets/999' }, headers);
        expect(statuses(a), m).to.deep.equal([status]);
        expect(b, m).to.deep.equal(a);
      }
    }
    const asAdmin = await data(server.url, '{ secret(id: "/secrets/1") { text } }', {}, admin);
    expect(asAdmin.secret).to.deep.equal({ text: 'hidden' });
  });

  it('denies a collection query as REST does, and lists it for the allowed', async () => {
    const anonymous = await graphql(server.url, '{ authors { totalCount } }');
    expect(anonymous.data).to.deep.equal({ authors: null });
    expect(statuses(anonymous)).to.deep.equal([401]);
    const asUser = await data(server.url, '{ authors { totalCount edges { node { name email } } } }', {}, user);
    expect(asUser.authors.totalCount).to.equal(2);
    expect(nodesOf(asUser.authors)).to.deep.equal([
      { name: 'Ann', email: null },
      { name: 'Bob', email: null },
    ]);
  });
});
