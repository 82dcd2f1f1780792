/**
 * A tool call runs its operation's whole pipeline through the one entry (pipeline/execute.ts), as the Koa route
 * and GraphQL's resolvers do: security, validation, rate limits, Mercure, the bus. The answer is the operation's
 * JSON-LD document (the plain JSON a REST client gets, with the IRIs and the collection's count and pages), or,
 * for a failure, its status, detail and violations: a tool result either way, never a protocol error.
 */
import type { Readable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { problemOf } from '../pipeline/error-response.js';
import { executeOperation, failureOf } from '../pipeline/execute.js';
import { HttpError } from '../protocol/errors.js';
import { jsonText } from '../pipeline/representation/json-text.js';
import { queryOf } from '../protocol/query.js';
import type { Runtime } from '../pipeline/runtime.js';
import type { Principal } from '../security/access.js';
import { BODY_ARGUMENT, IF_MATCH_ARGUMENT, type McpTool } from './tools.js';

/** Who calls the tools and from where: the HTTP request's, or the stdio process's (docs/mcp.md, "Who calls"). */
export interface McpCaller {
  /** Who the call runs as; a refusal (an expired token) is the call's 401. */
  principal: () => Promise<Principal>;
  /** `scheme://host[:port]` IRIs are made absolute against. */
  origin: string;
  /** The HTTP request's headers (lower-case names), passed on to the operation; none over stdio. */
  headers: Record<string, string | string[] | undefined>;
  /** The peer's address, which rate limits count by. */
  peer?: string;
}

/** The operation's answer to these (already checked) arguments, as a tool result. */
export async function callTool(
  runtime: Runtime,
  tool: McpTool,
  args: Record<string, unknown>,
  caller: McpCaller,
): Promise<CallToolResult> {
  const op = tool.operation;
  let principal: Principal;
  try {
    principal = await caller.principal();
  } catch (e) {
    if (e instanceof HttpError) return toolError({ status: e.status, detail: e.detail });
    throw e;
  }
  const uriVariables: Record<string, string> = {};
  for (const name of tool.pathArguments) if (args[name] !== undefined) uriVariables[name] = String(args[name]);
  const headers: Record<string, string | string[] | undefined> = { ...caller.headers, accept: acceptOf(runtime) };
  delete headers['content-length'];
  delete headers['content-type'];
  // Conditions come from the call's own `ifMatch`, never from the HTTP request that carried the call.
  delete headers['if-match'];
  delete headers['if-none-match'];
  if (typeof args[IF_MATCH_ARGUMENT] === 'string') headers['if-match'] = args[IF_MATCH_ARGUMENT];
  const body = args[BODY_ARGUMENT];
  const sendsBody = tool.bodyType !== undefined && body !== undefined;
  if (sendsBody) headers['content-type'] = tool.bodyType;
  const result = await executeOperation(runtime, op, {
    method: op.method,
    query: queryOf(queryParameters(tool.queryArguments, args)),
    uriVariables,
    headers,
    ...(sendsBody ? { body: { value: body } } : {}),
    principal,
    origin: caller.origin,
    ...(caller.peer ? { peer: caller.peer } : {}),
  });
  const failure = failureOf(result);
  if (failure) return toolError(toolProblem(failure));
  if (result.body === undefined) return answer({ status: result.status });
  return answer(await documentOf(result.body));
}

/** JSON-LD when the API serves it, else plain JSON, else its first format. */
function acceptOf(runtime: Runtime): string {
  const formats = runtime.api.settings.formats;
  return formats.jsonld?.[0] ?? formats.json?.[0] ?? Object.values(formats)[0]?.[0] ?? 'application/json';
}

/** The query arguments as parameters (`queryOf`): a list repeats its name, an object's members are `name[key]`. */
function queryParameters(names: readonly string[], args: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  const add = (name: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) for (const v of value) add(name, v);
    else if (typeof value === 'object')
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) add(`${name}[${key}]`, v);
    else pairs.push([name, String(value as string | number | boolean)]);
  };
  for (const name of names) add(name, args[name]);
  return pairs;
}

async function documentOf(body: unknown): Promise<unknown> {
  if (!isStream(body)) return JSON.parse(jsonText(body)) as unknown;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

const isStream = (body: unknown): body is Readable =>
  typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';

/** A document as both structured content (MCP wants an object there) and text. */
function answer(document: unknown): CallToolResult {
  const text = JSON.stringify(document);
  const structured =
    typeof document === 'object' && document !== null && !Array.isArray(document)
      ? (document as Record<string, unknown>)
      : { value: document };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export interface ToolProblem {
  status: number;
  title?: string;
  detail: string;
  violations?: { propertyPath: unknown; message: unknown; code?: unknown }[];
}

/** The status, title, detail and violations the operation's error document states. */
function toolProblem(error: HttpError): ToolProblem {
  const { status, title, detail, violations } = problemOf(error);
  return {
    status,
    title,
    detail,
    ...(violations
      ? { violations: violations.map(({ propertyPath, message, code }) => ({ propertyPath, message, code })) }
      : {}),
  };
}

/** A failed call: a tool result with `isError`, so the agent reads why and may try again. */
export function toolError(problem: ToolProblem): CallToolResult {
  return { ...answer(problem), isError: true };
}
