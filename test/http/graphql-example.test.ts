/**
 * examples/library-graphql.api served as a newcomer would serve it: the default GraphQL operations, filter
 * arguments, its custom query, page-paginated listing and mutation (resolvers in library-graphql.mjs, which read
 * the resource's items with `ctx.find`), and authors reached only through books.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { post, useServer } from './harness.js';

describe('examples/library-graphql.api over GraphQL', function () {
  this.timeout(60_000);
  const server = useServer(fromRoot('examples/library-graphql.api'), ['--memory']);
  const graphql = async (query: string): Promise<{ data?: any; errors?: any[] }> => {
    const answer = await post(server.url, '/graphql', { query }, { 'Content-Type': 'application/json' });
    expect(answer.status).to.equal(200);
    return answer.json;
  };

  before(async () => {
    expect((await post(server.url, '/authors', { name: 'Frank Herbert' })).status).to.equal(201);
    for (const [title, isbn, price] of [
      ['Dune', '978-0441172719', 9.5],
      ['Emma', '978-0141439587', 5],
      ['Middlemarch', '978-0141439549', 12],
    ] as const) {
      const created = await graphql(
        `mutation { createBook(input: {title: "${title}", isbn: "${isbn}", price: ${price}, author: "/authors/1"}) { book { id } } }`,
      );
      expect(created.errors).to.equal(undefined);
    }
  });

  it('reads books with their author, filtered and ordered by arguments', async () => {
    const answer = await graphql(
      '{ books(title: "m", order: [{price: "DESC"}]) { totalCount edges { node { title author { name } } } } }',
    );
    expect(answer.data.books.totalCount).to.equal(2);
    expect(answer.data.books.edges.map((e: any) => e.node.title)).to.deep.equal(['Middlemarch', 'Emma']);
    expect(answer.data.books.edges[0].node.author).to.deep.equal({ name: 'Frank Herbert' });
  });

  it('finds a book by ISBN through its custom query, dashes or not, and null for an unknown one', async () => {
    const answer = await graphql(
      '{ a: byIsbnBook(isbn: "9780441172719") { id title } b: byIsbnBook(isbn: "000-0000000000") { id } }',
    );
    expect(answer.data).to.deep.equal({ a: { id: '/books/1', title: 'Dune' }, b: null });
  });

  it('lists the cheap books through its custom page-paginated listing', async () => {
    const answer = await graphql('{ cheapBooks { collection { title } paginationInfo { totalCount } } }');
    expect(answer.data.cheapBooks.collection.map((b: any) => b.title)).to.deep.equal(['Emma', 'Dune']);
    expect(answer.data.cheapBooks.paginationInfo.totalCount).to.equal(2);
  });

  it('publishes a book through its custom mutation, stored', async () => {
    const answer = await graphql(
      'mutation { publishBook(input: {id: "/books/3", clientMutationId: "m1"}) { book { published } clientMutationId } }',
    );
    expect(answer.data.publishBook).to.deep.equal({ book: { published: true }, clientMutationId: 'm1' });
    const read = await graphql('{ book(id: "/books/3") { published } }');
    expect(read.data.book.published).to.equal(true);
  });

  it('has no root field for authors (graphql {}), whose type books still reach', async () => {
    const answer = await graphql('{ author(id: "/authors/1") { id } }');
    expect(answer.errors?.[0].message).to.match(/Cannot query field "author" on type "Query"/);
  });
});
