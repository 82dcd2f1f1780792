/**
 * Asks again until `done` holds of the answer (the search index takes a write a few milliseconds after the store
 * committed it; docs/elasticsearch.md), for at most 15 s; returns the last answer, which the caller asserts on.
 */
export async function eventually<T>(ask: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  let value = await ask();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await ask();
  }
  return value;
}
