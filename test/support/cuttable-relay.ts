/** For tests of lost connections: a TCP relay in front of a server, whose connections a test cuts at will. */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP relay in front of the service whose connections the test can cut, as a network failure would. */
export async function cuttableRelay(target: string): Promise<{ url: string; cut(): void; close(): void }> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const cut = (): void => sockets.forEach((s) => s.destroy());
  return { url: `http://127.0.0.1:${port}`, cut, close: () => (cut(), server.close()) };
}
