/** A cache's purge endpoint played by a local server, for the HTTP cache suites. */
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A local server playing a cache's purge endpoint over plain TCP (Node's HTTP parser refuses Varnish's BAN
 * method): records each request's method and headers; answers 204 (`ok`), 500 (`fail`) or never (`hang`).
 */
export async function purgeEndpoint(
  mode: 'ok' | 'fail' | 'hang',
): Promise<{ url: string; received: PurgeRequest[]; close(): Promise<void> }> {
  const received: PurgeRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      head += chunk;
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [line, ...fields] = head.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const field of fields)
        headers[field.slice(0, field.indexOf(':')).toLowerCase()] = field.slice(field.indexOf(':') + 1).trim();
      received.push({ method: line.split(' ')[0], headers });
      head = '';
      if (mode !== 'hang')
        socket.end(
          `HTTP/1.1 ${mode === 'ok' ? '204 No Content' : '500 Internal Server Error'}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface PurgeRequest {
  method: string;
  headers: Record<string, string>;
}
