/**
 * Which resource, property and operation of the new file is which of the old one: by name, or by the name
 * `renamedFrom` gives (a rename, not a removal and an addition); operations by their own name, or, for the unnamed
 * ones (whose generated names hold their paths), by kind and rank among the resource's unnamed operations of that kind.
 */
import { resourceOption } from '../metadata/options.js';
import type { OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';

export interface Paired<T> {
  old: T;
  new: T;
}

export interface Pairing<T> {
  pairs: Paired<T>[];
  removed: T[];
  added: T[];
}

/** Pairs `after` with `before` by key, a new element's `previousKey` first. */
function pair<T>(
  before: readonly T[],
  after: readonly T[],
  key: (t: T) => string,
  previousKey: (t: T) => string | undefined,
): Pairing<T> {
  const olds = new Map(before.map((t) => [key(t), t]));
  const pairs: Paired<T>[] = [];
  const added: T[] = [];
  const taken = new Set<string>();
  for (const t of after) {
    const previous = previousKey(t);
    const k = previous !== undefined && olds.has(previous) ? previous : key(t);
    const old = taken.has(k) ? undefined : olds.get(k);
    if (old === undefined) added.push(t);
    else {
      taken.add(k);
      pairs.push({ old, new: t });
    }
  }
  return { pairs, added, removed: before.filter((t) => !taken.has(key(t))) };
}

export const pairResources = (before: ResourceMetadata[], after: ResourceMetadata[]): Pairing<ResourceMetadata> =>
  pair(
    before,
    after,
    (r) => r.name,
    (r) => resourceOption(r, 'renamedFrom'),
  );

export const pairProperties = (before: PropertyMetadata[], after: PropertyMetadata[]): Pairing<PropertyMetadata> =>
  pair(
    before,
    after,
    (p) => p.name,
    (p) => p.renamedFrom,
  );

/** The operations a client can call: hidden IRI routes and always-404 ones are none. */
export const publicOperations = (r: ResourceMetadata): OperationMetadata[] =>
  r.operations.filter((op) => !op.hidden && op.controller !== 'NotFoundAction');

/** An operation's key: its name when the file gave one, else its kind and rank (`Get#0`). */
function operationKeys(ops: readonly OperationMetadata[]): Map<OperationMetadata, string> {
  const keys = new Map<OperationMetadata, string>();
  const ranks = new Map<string, number>();
  for (const op of ops) {
    if (!op.name.startsWith('_api_')) keys.set(op, `name:${op.name}`);
    else {
      const rank = ranks.get(op.kind) ?? 0;
      ranks.set(op.kind, rank + 1);
      keys.set(op, `${op.kind}#${rank}`);
    }
  }
  return keys;
}

export function pairOperations(before: ResourceMetadata, after: ResourceMetadata): Pairing<OperationMetadata> {
  const olds = publicOperations(before);
  const news = publicOperations(after);
  const keys = new Map([...operationKeys(olds), ...operationKeys(news)]);
  return pair(
    olds,
    news,
    (op) => keys.get(op)!,
    () => undefined,
  );
}

/** `GET /books/{id}`. */
export const routeOf = (op: OperationMetadata): string => `${op.method} ${op.path}`;

/** How an operation is named in a finding: `Book GetCollection`, or `Book cheapBooks` for a named one. */
export const operationSubject = (op: OperationMetadata): string =>
  `${op.resource.shortName} ${op.name.startsWith('_api_') ? op.kind : op.name}`;
