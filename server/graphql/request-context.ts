/**
 * What every resolver of one GraphQL request shares (docs/graphql.md): the runtime of the loaded API, who sends the
 * request and where it was sent. The transport (server/http/graphql-route.ts) makes one per request.
 *
 * No N+1: the runtime the resolvers run operations on reads items by identifier through one DataLoader per resource
 * and request, so the related items of a page (one pipeline run each, with its security) cost one store query per
 * relation field and level.
 */
import DataLoader from 'dataloader';
import type { ResourceMetadata } from '../metadata/types.js';
import type { Runtime } from '../pipeline/runtime.js';
import type { Principal } from '../security/access.js';
import type { Collection, Item } from '../store/types.js';

export interface GraphQlRequest {
  runtime: Runtime;
  /** Who sends the request (authenticated by the HTTP middleware before the transport runs). */
  principal: Principal;
  /** `scheme://host[:port]` the request was sent to. */
  origin: string;
  /** The HTTP request's headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The peer's address, which rate limits count by. */
  peer?: string;
  /** Run by the service itself for no client (a subscription's update): rate limits do not count it. */
  internal?: boolean;
}

export interface GraphQlContext extends GraphQlRequest {
  /** The runtime with batched reads by identifier, for this request only. */
  batched: Runtime;
}

export function graphQlContext(request: GraphQlRequest): GraphQlContext {
  const { runtime } = request;
  const collections = new Map<ResourceMetadata, Collection>();
  const batched: Runtime = {
    ...runtime,
    collectionOf(resource) {
      let collection = collections.get(resource);
      if (!collection) collections.set(resource, (collection = batchedReads(runtime.collectionOf(resource), resource)));
      return collection;
    },
  };
  return { ...request, batched };
}

/**
 * The collection, its `get` gathered: every `get` asked before the next turn of the event loop is one `getMany`.
 * Writes go straight through; a write does not clear what this request already read (a mutation's payload is read
 * by its own operation, after the write).
 */
function batchedReads(collection: Collection, resource: ResourceMetadata): Collection {
  const field = resource.identifier?.name;
  if (!field) return collection;
  const loader = new DataLoader<number | string, Item | null, string>(
    async (ids) => {
      const found = await collection.getMany(ids);
      const byId = new Map(found.map((item) => [String(item[field]), item]));
      return ids.map((id) => byId.get(String(id)) ?? null);
    },
    { cacheKeyFn: String, batchScheduleFn: (run) => setImmediate(run), cache: false },
  );
  const get = (id: number | string) => loader.load(id);
  // The collection's methods bound once each, not at every access (the pipeline reads several per operation).
  const bound = new Map<PropertyKey, unknown>([['get', get]]);
  return new Proxy(collection, {
    get(target, name) {
      const known = bound.get(name);
      if (known !== undefined) return known;
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      const method = (value as (...a: unknown[]) => unknown).bind(target);
      bound.set(name, method);
      return method;
    },
  });
}
