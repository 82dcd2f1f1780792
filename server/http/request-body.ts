/**
 * The request body: read within the size limit and decoded as strict UTF-8 (RFC 8259 §8.1: a body
 * with invalid bytes is refused rather than stored with U+FFFD in their place), and, when a response
 * leaves it unread (an early 413, 404, 415…), settled so that the keep-alive connection stays usable.
 */
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { HttpError, badRequest } from '../protocol/errors.js';

/** A body left unread up to this many bytes is read and discarded; a larger one closes the connection. */
export const UNREAD_BODY_DRAIN_LIMIT = 8 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export async function readBody(ctx: Context, limit: number): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit });
  } catch (e) {
    const err = e as { type?: string; status?: number };
    if (err.type === 'entity.too.large')
      throw new HttpError(413, `The request body is larger than the limit of ${limit} bytes.`);
    throw new HttpError(err.status && err.status < 500 ? err.status : 400, 'The request body could not be read.');
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest('The request body is not valid UTF-8.');
  }
}

/**
 * Called before a response is sent. Node does not discard a request body the application stopped
 * reading, so the next request on the same connection would wait behind it forever. A body of known,
 * bounded length is drained once the response is written; anything else (a larger or chunked body)
 * is answered with `Connection: close`, and what still arrives is discarded until the client closes
 * or the request timeout ends the connection, so that the client reads the response instead of a reset.
 */
export function settleUnreadBody(ctx: Context): void {
  const req = ctx.req;
  if (req.complete || !hasBody(ctx)) return;
  const length = Number(ctx.get('content-length'));
  const bounded =
    ctx.get('transfer-encoding') === '' && Number.isSafeInteger(length) && length <= UNREAD_BODY_DRAIN_LIMIT;
  if (!bounded) {
    ctx.set('Connection', 'close');
    lingerOnClose(ctx);
  }
  ctx.res.once('finish', () => {
    req.removeAllListeners('data');
    req.on('error', () => undefined);
    req.resume();
  });
}

const hasBody = (ctx: Context): boolean => ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length')) > 0;

/** How long a closing connection keeps discarding a body the client is still sending. */
const LINGER_MS = 2_000;

/**
 * Node ends a `Connection: close` response with `socket.destroySoon()`, which closes the socket while the
 * client may still be sending: the unread bytes make the kernel answer with a reset, and the client can
 * lose the response it was sent. Instead the write side is ended and the socket destroyed only when the
 * client closes its side or after LINGER_MS (as web servers' "lingering close").
 */
function lingerOnClose(ctx: Context): void {
  const socket = ctx.req.socket;
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
