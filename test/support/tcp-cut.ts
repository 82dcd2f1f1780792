/**
 * A TCP relay to a server that a test can cut and mend: one process's connections to a shared server (Redis)
 * break while every other process still reaches it, as when one machine loses the network.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface CuttableRelay {
  /** The relay's port on 127.0.0.1. */
  port: number;
  /** Breaks every relayed connection and refuses new ones. */
  cut(): void;
  /** Relays new connections again. */
  mend(): void;
  close(): Promise<void>;
}

export async function cuttableRelay(targetPort: number): Promise<CuttableRelay> {
  const open = new Set<Socket>();
  let cutOff = false;
  const server = createServer((client) => {
    if (cutOff) return client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    cut: () => {
      cutOff = true;
      for (const socket of open) socket.destroy();
    },
    mend: () => {
      cutOff = false;
    },
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
