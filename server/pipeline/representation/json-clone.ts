/**
 * A deep copy of a JSON value (plain objects, arrays, scalars) with an explicit work list instead of
 * recursion: an item may hold a `json` value nested deeper than the call stack allows structuredClone
 * to go (a value stored before bodies were depth-limited, or written by custom code).
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const root = emptyLike(value);
  const work: [source: object, copy: Record<string, unknown> | unknown[]][] = [[value, root]];
  while (work.length > 0) {
    const [source, copy] = work.pop()!;
    for (const [key, child] of Object.entries(source)) {
      let childCopy: unknown = child;
      if (typeof child === 'object' && child !== null) {
        childCopy = emptyLike(child);
        work.push([child, childCopy as Record<string, unknown> | unknown[]]);
      }
      // defineProperty: a `__proto__` key (an own property after JSON.parse) stays a plain key.
      Object.defineProperty(copy, key, { value: childCopy, enumerable: true, writable: true, configurable: true });
    }
  }
  return root as T;
}

const emptyLike = (value: object): Record<string, unknown> | unknown[] =>
  Array.isArray(value) ? new Array<unknown>(value.length) : {};
