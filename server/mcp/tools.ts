/**
 * The MCP tools of a loaded API (docs/mcp.md, "Tools"): one per operation a client can reach, named as API
 * Platform's MCP component names them, its input schema made of what the operation takes (its path variables,
 * query parameters and request body), as server/openapi/operation-inputs.ts describes it for the OpenAPI document
 * too, so both describe one contract.
 * No output schema: the SDK's client checks an error's structured content against it too, and an error's is a
 * problem, not the item.
 */
import { mcpToolName } from '../../grammar/naming.js';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { OperationInputsBuilder, type OperationInputs } from '../openapi/operation-inputs.js';
import { SchemaRegistry } from '../openapi/schemas.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';

/** The argument that holds a write's body (every other argument is a path variable or a query parameter). */
export const BODY_ARGUMENT = 'body';
/** The argument of an item write naming the version it applies to: the request's If-Match (pipeline/preconditions.ts). */
export const IF_MATCH_ARGUMENT = 'ifMatch';

/** Whether the operation writes one item, so takes the version it applies to. */
const writesItem = (op: OperationMetadata): boolean =>
  !op.isCollection && (op.method === 'PUT' || op.method === 'PATCH' || op.method === 'DELETE');

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  operation: OperationMetadata;
  /** The arguments that fill the route's variables. */
  pathArguments: string[];
  /** The arguments sent in the query string. */
  queryArguments: string[];
  /** The media type the body is sent as; undefined: the operation reads no body. */
  bodyType?: string;
}

/** Body media types, best first: JSON-LD, plain JSON, JSON Merge Patch (JSON:API's envelope is left out). */
const BODY_TYPES = ['application/ld+json', 'application/json', 'application/merge-patch+json'];

/** Whether the operation was given a name (else it has API Platform's generated `_api_…` one). */
const named = (op: OperationMetadata): boolean => !op.name.startsWith('_api_');

export const toolName = (op: OperationMetadata): string =>
  mcpToolName(op.kind, op.name, named(op), op.resource.shortName);

/** The tools, in declaration order; an operation that is hidden, always 404 or `mcp: false` is none. */
export function mcpTools(api: ApiMetadata): McpTool[] {
  const registry = new SchemaRegistry(api);
  const inputs = new OperationInputsBuilder(api, registry, '3.2');
  const tools: McpTool[] = [];
  const names = new Set<string>();
  for (const op of api.resources.flatMap((r) => r.operations)) {
    if (op.hidden || op.controller === 'NotFoundAction' || optionValue(op, 'mcp') === false) continue;
    const name = toolName(op);
    // The checker refuses a clash; a mutator may still make one: the first operation keeps the name.
    if (names.has(name)) continue;
    names.add(name);
    tools.push(tool(op, name, inputs.inputs(op), registry.schemas));
  }
  return tools;
}

function tool(op: OperationMetadata, name: string, described: OperationInputs, schemas: Record<string, JsonSchema>) {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const pathArguments: string[] = [];
  const queryArguments: string[] = [];
  for (const p of described.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    (p.in === 'path' ? pathArguments : queryArguments).push(p.name);
    properties[p.name] = p.description ? { ...p.schema, description: p.description } : p.schema;
    if (p.required) required.push(p.name);
  }
  const body = described.body;
  const bodyType = body && BODY_TYPES.find((t) => body.content[t]?.schema);
  if (body && bodyType) {
    const schema = body.content[bodyType].schema!;
    properties[BODY_ARGUMENT] = body.description ? { ...schema, description: body.description } : schema;
    if (body.required) required.push(BODY_ARGUMENT);
  }
  if (writesItem(op) && !(IF_MATCH_ARGUMENT in properties)) {
    properties[IF_MATCH_ARGUMENT] = {
      type: 'string',
      description:
        'The ETag of the version read (the item GET): the write applies only to that version, else 412' +
        (optionValue(op, 'requireIfMatch') === true ? '. Required: without it the call answers 428.' : '.'),
    };
  }
  // An argument the tool does not read is refused rather than silently ignored.
  const input: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
  return {
    name,
    // The operation's own description (a resource's describes the resource), else its summary.
    description: described.description ?? described.summary,
    inputSchema: selfContained(input, schemas),
    operation: op,
    pathArguments,
    queryArguments,
    ...(bodyType ? { bodyType } : {}),
  };
}

const COMPONENT = '#/components/schemas/';

/**
 * The schema with the components it refers to (and theirs) copied under `$defs`: a tool's schema stands alone,
 * where the OpenAPI document's refer to its `components`.
 */
function selfContained(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT)) {
        const name = v.slice(COMPONENT.length);
        if (!(name in defs) && components[name]) {
          defs[name] = {};
          defs[name] = rewrite(components[name]) as JsonSchema;
        }
        out.$ref = `#/$defs/${name}`;
      } else out[key] = rewrite(v);
    }
    return out;
  };
  const rewritten = rewrite(schema) as JsonSchema;
  return Object.keys(defs).length ? { ...rewritten, $defs: defs } : rewritten;
}
