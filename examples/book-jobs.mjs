// Handlers of the messages of async-books.api: called with (message, ctx) by `apidsl consume` (or
// `apidsl serve --consume`) for every queued book. ctx.persist stores an item with the default persistence.
export async function onBook(book, ctx) {
  // A long job would run here (indexing, notifications, ...); the stored book is marked as processed.
  await ctx.persist({ ...book, status: 'processed' });
}

export async function onImport(input, ctx) {
  for (const title of input.titles ?? []) await ctx.persist({ title, status: 'imported' }, 'Book');
}
