/**
 * Asks again until `done` holds of the answer (the search index takes a write a few milliseconds after the store
 * committed it; docs/elasticsearch.md), for at most `timeoutMs` (15 s), every `intervalMs` (50 ms); returns the last
 * answer, which the caller asserts on.
 */
export async function eventually<T>(
  ask: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 15_000, intervalMs = 50 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await ask();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await ask();
  }
  return value;
}
