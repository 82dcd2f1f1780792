/**
 * A TCP relay to a server that a test can cut and mend: one process's connections to a shared server (Redis,
 * PostgreSQL) break while every other process still reaches it, as when one machine loses the network. With
 * `only`, the cut reaches only the connections whose first bytes from the client it accepts (PostgreSQL's
 * startup message names the connection's `application_name`): one connection of a process breaks, not the others.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface CuttableRelay {
  /** The relay's port on 127.0.0.1. */
  port: number;
  /** Breaks every relayed connection (that `only` accepts) and refuses new ones. */
  cut(): void;
  /** Relays new connections again. */
  mend(): void;
  close(): Promise<void>;
}

export async function cuttableRelay(targetPort: number, only?: (first: Buffer) => boolean): Promise<CuttableRelay> {
  const open = new Set<Socket>();
  const cuttable = new Set<Socket>();
  let cutOff = false;
  const relay = (client: Socket, first?: Buffer): void => {
    const subject = !only || (first !== undefined && only(first));
    if (subject && cutOff) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    if (first) upstream.write(first);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      if (subject) cuttable.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        cuttable.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  };
  const server = createServer((client) => {
    if (!only) return relay(client);
    client.once('error', () => client.destroy()); // before its first bytes
    client.once('data', (first: Buffer) => {
      client.pause();
      relay(client, first);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    cut: () => {
      cutOff = true;
      for (const socket of cuttable) socket.destroy();
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
