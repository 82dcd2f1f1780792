/**
 * The bounds of the Node HTTP server (the `server` settings): how long a client may take to send its
 * headers and its whole request, how long an idle keep-alive connection stays, how many connections
 * are open at once. Node's own defaults (60 s for headers, 5 min for a request, no connection cap,
 * timeouts checked every 30 s) let a few slow clients hold the server's sockets.
 */
import type { Server } from 'node:http';
import type { ServerLimits } from '../metadata/types.js';

/** Options for `createServer` that only take effect there: how often the timeouts are enforced. */
export function serverOptions(limits: ServerLimits): {
  connectionsCheckingInterval: number;
  requireHostHeader: boolean;
} {
  const shortest = Math.min(limits.headersTimeout, limits.requestTimeout);
  return {
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(shortest / 4))),
    requireHostHeader: true,
  };
}

/** Applies the limits (again on reload: they are plain properties of the server). */
export function applyLimits(server: Server, limits: ServerLimits): void {
  server.requestTimeout = limits.requestTimeout;
  // Node refuses a headers timeout above the request timeout.
  server.headersTimeout = Math.min(limits.headersTimeout, limits.requestTimeout);
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.maxConnections = limits.maxConnections;
}
