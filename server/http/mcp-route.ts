/**
 * The MCP endpoint (docs/mcp.md, "Transport"): the SDK's Streamable HTTP transport answering inside Koa at
 * `config mcp.path`, so the request log, Host check, CORS and authentication run as for any route, and each tool
 * call runs as the request's principal. Stateless, JSON responses: each POST gets a fresh server and transport
 * (no session to keep, any process of a cluster can answer), and its answer is one JSON document (no SSE stream:
 * a tool call has one result). GET (the server's own SSE stream) and DELETE (a session's end) are refused with 405,
 * which the protocol allows and the SDK's client expects.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'koa';
import { mcpServer, mcpService } from '../mcp/server.js';
import type { Runtime } from '../pipeline/runtime.js';
import { HttpError } from '../protocol/errors.js';
import type { Principal } from '../security/access.js';
import { originOf } from './operation-route.js';
import { refuseLoneSurrogates } from '../pipeline/representation/json-body.js';
import { readBody } from './request-body.js';
import type { newRouter } from './router.js';

/** Registers `config mcp.path` when `mcp.enabled`; otherwise the path stays unrouted (404). */
export function mountMcp(router: ReturnType<typeof newRouter>, runtime: Runtime): void {
  const { api } = runtime;
  if (!api.settings.mcp.enabled) return;
  const service = mcpService(runtime);
  const bodyLimit = api.settings.bodySizeLimit;

  router.register(api.settings.mcp.path, ['GET', 'POST', 'DELETE'], async (ctx: Context) => {
    if (ctx.method !== 'POST')
      throw new HttpError(405, 'The MCP endpoint is stateless: send JSON-RPC messages by POST.', {
        headers: { Allow: 'POST' },
      });
    const origin = originOf(ctx);
    const text = await readBody(ctx, bodyLimit);
    // Parsed here, the body is not streamed again through the Request; one that does not parse is handed over
    // as it is, for the transport's JSON-RPC parse error.
    const parsedBody = parsedJson(text);
    refuseLoneSurrogates(text, parsedBody); // as a REST body's: 400, before any tool runs
    const request = new Request(`${origin}${ctx.url}`, {
      method: 'POST',
      headers: transportHeaders(ctx),
      ...(parsedBody === undefined ? { body: text } : {}),
    });
    const principal = ctx.state.principal as Principal;
    const server = mcpServer(service, {
      principal: () => Promise.resolve(principal),
      origin,
      headers: ctx.headers,
      peer: ctx.req.socket.remoteAddress,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
      ctx.status = response.status;
      response.headers.forEach((value, name) => ctx.set(name, value));
      const body = await response.text();
      ctx.body = body || null;
      if (!body) ctx.status = response.status; // Koa makes a null body 204 unless told again
    } finally {
      await server.close();
    }
  });
}

/** The headers the transport reads (the protocol's own and the media types); the others stay in Koa's context. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

function transportHeaders(ctx: Context): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
