/**
 * Real GraphQL clients against `apidsl serve` (docs/graphql.md): Apollo Client (its core, no React: HttpLink and
 * InMemoryCache, which normalizes by `__typename` and `id`, and merges Relay pages with relayStylePagination) and
 * graphql-request. Each sends a query with variables, a mutation, meets an error, and pages a connection.
 */
import { expect } from 'chai';
import { ApolloClient, CombinedGraphQLErrors, HttpLink, InMemoryCache, gql } from '@apollo/client/core';
import { relayStylePagination } from '@apollo/client/utilities';
import { ClientError, GraphQLClient } from 'graphql-request';
import { fixture, useServer } from './harness.js';
import { seed } from './graphql-helpers.js';

const TITLES = ['Dune', 'Emma', 'Ulysses', 'Beloved', 'Dracula'];

const BOOK = gql`
  query Book($id: ID!) {
    book(id: $id) {
      id
      title
      author {
        id
        name
      }
    }
  }
`;

const CREATE = gql`
  mutation Create($input: createBookInput!) {
    createBook(input: $input) {
      book {
        id
        title
        price
      }
      clientMutationId
    }
  }
`;

const PAGE = gql`
  query Page($first: Int, $after: String) {
    books(first: $first, after: $after) {
      totalCount
      edges {
        cursor
        node {
          id
          title
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`;

describe('GraphQL clients (graphql-books.api)', function () {
  const server = useServer(fixture('graphql-books.api'));
  before(async () => {
    await seed(server.url, '/authors', [{ name: 'Ann' }]);
    await seed(
      server.url,
      '/books',
      TITLES.map((title) => ({ title, author: '/authors/1', price: 10 })),
    );
  });

  describe('Apollo Client', () => {
    let client: ApolloClient;
    beforeEach(() => {
      client = new ApolloClient({
        link: new HttpLink({ uri: `${server.url}/graphql`, fetch }),
        cache: new InMemoryCache({ typePolicies: { Query: { fields: { books: relayStylePagination() } } } }),
      });
    });

    it('runs a query with variables and normalizes what it reads by id', async () => {
      const { data } = await client.query({ query: BOOK, variables: { id: '/books/2' } });
      expect(data).to.deep.equal({
        book: {
          __typename: 'Book',
          id: '/books/2',
          title: 'Emma',
          author: { __typename: 'Author', id: '/authors/1', name: 'Ann' },
        },
      });
      const cached = client.cache.extract() as Record<string, { name?: string }>;
      expect(cached['Author:/authors/1']?.name).to.equal('Ann');
    });

    it('runs a mutation whose item a query then reads', async () => {
      const { data } = await client.mutate({
        mutation: CREATE,
        variables: { input: { title: 'Walden', price: 7, clientMutationId: 'apollo' } },
      });
      const created = (data as { createBook: { book: { id: string }; clientMutationId: string } }).createBook;
      expect(created.clientMutationId).to.equal('apollo');
      expect(created.book).to.include({ title: 'Walden', price: 7 });
      const read = await client.query({ query: BOOK, variables: { id: created.book.id }, fetchPolicy: 'network-only' });
      expect((read.data as { book: { title: string } }).book.title).to.equal('Walden');
      await removeBook(created.book.id);
    });

    it('rejects with the GraphQL errors and their extensions (validation: 422 and violations)', async () => {
      let caught: unknown;
      try {
        await client.mutate({ mutation: CREATE, variables: { input: { title: '', price: -1 } } });
      } catch (e) {
        caught = e;
      }
      expect(CombinedGraphQLErrors.is(caught), String(caught)).to.equal(true);
      const [error] = (caught as CombinedGraphQLErrors).errors;
      expect(error!.extensions).to.deep.include({ status: 422 });
      expect((error!.extensions!.violations as { path: string }[]).map((v) => v.path)).to.deep.equal([
        'title',
        'price',
      ]);
    });

    it('pages a connection with relayStylePagination, the pages merged in the cache', async () => {
      const first = await client.query({ query: PAGE, variables: { first: 2 } });
      type Page = {
        books: {
          totalCount: number;
          edges: { node: { title: string } }[];
          pageInfo: { endCursor: string; hasNextPage: boolean };
        };
      };
      let page = (first.data as Page).books;
      expect(page.totalCount).to.equal(TITLES.length);
      while (page.pageInfo.hasNextPage) {
        const next = await client.query({
          query: PAGE,
          variables: { first: 2, after: page.pageInfo.endCursor },
          fetchPolicy: 'network-only',
        });
        page = (next.data as Page).books;
      }
      const merged = client.readQuery({ query: PAGE, variables: { first: 2 } }) as Page;
      expect(merged.books.edges.map((e) => e.node.title)).to.deep.equal(TITLES);
    });
  });

  describe('graphql-request', () => {
    let client: GraphQLClient;
    beforeEach(() => {
      client = new GraphQLClient(`${server.url}/graphql`);
    });

    it('runs a query with variables', async () => {
      const data = await client.request<{ book: { title: string; author: { name: string } } }>(BOOK, {
        id: '/books/3',
      });
      expect(data.book).to.deep.include({ title: 'Ulysses', author: { id: '/authors/1', name: 'Ann' } });
    });

    it('runs a mutation', async () => {
      const data = await client.request<{ createBook: { book: { id: string; title: string } } }>(CREATE, {
        input: { title: 'Middlemarch', price: 20 },
      });
      expect(data.createBook.book.title).to.equal('Middlemarch');
      await removeBook(data.createBook.book.id);
    });

    it('throws a ClientError holding the errors (404 for an update of an IRI that names nothing)', async () => {
      let caught: unknown;
      try {
        await client.request(gql`
          mutation {
            updateBook(input: { id: "/books/999", title: "x" }) {
              book {
                id
              }
            }
          }
        `);
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(ClientError);
      const errors = (caught as ClientError).response.errors!;
      expect(errors.map((e) => e.extensions?.status)).to.deep.equal([404]);
      expect((caught as ClientError).response.data).to.deep.equal({ updateBook: null });
    });

    it('walks a connection page by page with the cursors it answers', async () => {
      type Page = {
        books: { edges: { node: { title: string } }[]; pageInfo: { endCursor: string; hasNextPage: boolean } };
      };
      const titles: string[] = [];
      let after: string | undefined;
      for (let i = 0; i < 5; i++) {
        const data: Page = await client.request<Page>(PAGE, { first: 2, ...(after ? { after } : {}) });
        titles.push(...data.books.edges.map((e) => e.node.title));
        if (!data.books.pageInfo.hasNextPage) break;
        after = data.books.pageInfo.endCursor;
      }
      expect(titles).to.deep.equal(TITLES);
    });
  });

  /** Deletes a book a test created, so that the collection stays the seeded one. */
  async function removeBook(id: string): Promise<void> {
    const r = await new GraphQLClient(`${server.url}/graphql`).request<{ deleteBook: { book: { id: string } } }>(
      gql`
        mutation Delete($id: ID!) {
          deleteBook(input: { id: $id }) {
            book {
              id
            }
          }
        }
      `,
      { id },
    );
    expect(r.deleteBook.book.id).to.equal(id);
  }
});
