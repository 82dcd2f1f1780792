/**
 * What every resolver of one GraphQL request shares (docs/graphql.md): the runtime of the loaded API, who sends the
 * request and where it was sent. The transport (server/http/graphql-route.ts) makes one per request.
 */
import type { Runtime } from '../pipeline/state.js';
import type { Principal } from '../security/access.js';

export interface GraphQlContext {
  runtime: Runtime;
  /** Who sends the request (authenticated by the HTTP middleware before the transport runs). */
  principal: Principal;
  /** `scheme://host[:port]` the request was sent to. */
  origin: string;
  /** The HTTP request's headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The peer's address, which rate limits count by. */
  peer?: string;
}

export function graphQlContext(request: GraphQlContext): GraphQlContext {
  return { ...request };
}
