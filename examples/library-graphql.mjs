// Custom GraphQL resolvers of library-graphql.api.
//
// A custom query's resolver is called as `(ctx) => item | items | paginator | null`, its arguments in `ctx.args`;
// a custom mutation's as `(item, ctx) => item`, the item read by the input's `id`, and what it returns is stored.
// `ctx.find(equal)` reads the resource's items; `ctx.persist`, `ctx.user` and the rest are the provider's and
// processor's context (docs/options.md).

/** byIsbnBook(isbn: String!): the book with that ISBN, dashes ignored, or null. */
export async function byIsbn(ctx) {
  const wanted = String(ctx.args.isbn).replaceAll('-', '');
  const books = await ctx.find();
  return books.find((book) => String(book.isbn ?? '').replaceAll('-', '') === wanted) ?? null;
}

/** cheapBooks(page): books under 10, cheapest first. */
export async function cheap(ctx) {
  const books = await ctx.find();
  return books.filter((book) => typeof book.price === 'number' && book.price < 10).sort((a, b) => a.price - b.price);
}

/** publishBook(input: { id }): marks the book published. */
export function publish(book) {
  return { ...book, published: true };
}
