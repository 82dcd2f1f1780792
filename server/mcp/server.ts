/**
 * The MCP server of a loaded API (docs/mcp.md): the SDK's low-level `Server`, answering `tools/list` with the
 * tools as they are (tools.ts) and `tools/call` by running the tool's operation (call.ts). The transports make one
 * per caller: Streamable HTTP one per request (server/http/mcp-route.ts), stdio one per process (cli/mcp.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Runtime } from '../pipeline/runtime.js';
import { callTool, toolError, type McpCaller } from './call.js';
import { BODY_ARGUMENT, mcpTools, type McpTool } from './tools.js';

/** What every caller of one loaded API shares: its tools, their list and their argument checks, made once. */
export interface McpService {
  runtime: Runtime;
  tools: Map<string, McpTool>;
  list: { name: string; description: string; inputSchema: McpTool['inputSchema'] }[];
  checks: Map<string, JsonSchemaValidator<unknown>>;
  /** Given to each server: the SDK would make an Ajv instance per server, which costs more than a call. */
  validator: AjvJsonSchemaValidator;
}

export function mcpService(runtime: Runtime): McpService {
  const tools = mcpTools(runtime.api);
  const validator = new AjvJsonSchemaValidator();
  return {
    runtime,
    tools: new Map(tools.map((t) => [t.name, t])),
    list: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    checks: new Map(tools.map((t) => [t.name, validator.getValidator(argumentsSchema(t))])),
    validator,
  };
}

/**
 * The input schema without the body's: the pipeline checks the body itself, so that an invalid one gets the
 * operation's own answer (400, or 422 with its violations), as over HTTP.
 */
function argumentsSchema(tool: McpTool): McpTool['inputSchema'] {
  const { [BODY_ARGUMENT]: body, ...properties } = tool.inputSchema.properties as Record<string, unknown>;
  // The components under $defs are the body's: variables and query parameters refer to none.
  const { $defs: _defs, ...schema } = tool.inputSchema;
  // Any body passes here; `required` still says whether there must be one.
  return { ...schema, properties: body ? { ...properties, [BODY_ARGUMENT]: {} } : properties };
}

export function mcpServer(service: McpService, caller: McpCaller): Server {
  const { api, logger } = service.runtime;
  const server = new Server(
    { name: api.title, version: api.version ?? '0.0.0' },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator: service.validator,
      ...(api.description ? { instructions: api.description } : {}),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: service.list }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    const tool = service.tools.get(name);
    if (!tool) return toolError({ status: 404, detail: `There is no tool named '${name}'.` });
    const checked = service.checks.get(name)!(args);
    if (!checked.valid)
      return toolError({ status: 400, detail: `Invalid arguments for '${name}': ${checked.errorMessage}` });
    try {
      return await callTool(service.runtime, tool, args, caller);
    } catch (err) {
      // The pipeline answers its own failures; anything thrown here is a bug, kept from the caller.
      logger.error({ err, tool: name }, 'MCP tool call failed');
      return toolError({ status: 500, detail: 'Internal Server Error' });
    }
  });
  return server;
}
