/**
 * Stopping an HTTP server without losing a request (docs/behaviour.md, "Stopping"): it stops accepting
 * connections, answers every request it has begun to read, and closes each connection once its last response is
 * sent. Node's own `close()` lets a busy keep-alive connection take request after request, so from the drain on
 * every response says `Connection: close`, and a connection that falls idle is closed at once.
 */
import type { Server, ServerResponse } from 'node:http';

export interface Drain {
  /** Stops accepting; resolves once every connection is closed (every request in flight answered). */
  (): Promise<void>;
}

/** Prepares `server` for a drain: call before it listens. */
export function drainable(server: Server): Drain {
  const unanswered = new Set<ServerResponse>();
  let draining = false;
  const closeIdle = (): void => server.closeIdleConnections();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    unanswered.add(res);
    res.once('close', () => {
      unanswered.delete(res);
      // Its connection is idle from now on (Node detaches the response on the same turn).
      if (draining) setImmediate(closeIdle);
    });
  });
  return () => {
    draining = true;
    for (const res of unanswered) if (!res.headersSent) res.shouldKeepAlive = false;
    return new Promise<void>((closed) => {
      server.close(() => closed());
      closeIdle();
    });
  };
}
