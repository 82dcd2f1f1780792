/**
 * The other faces of the API: the root fields of the GraphQL schema and the tools of the MCP endpoint. A field or
 * tool that is gone breaks whoever calls it, whatever happened to the resource behind it.
 */
import type { ApiMetadata } from '../metadata/types.js';
import { mcpTools } from '../mcp/tools.js';
import { finding, type Finding } from './findings.js';
import type { Paired } from './pairing.js';

const graphQlFields = (api: ApiMetadata): string[] =>
  api.resources.flatMap((r) => r.graphQlOperations.filter((g) => !g.nested).map((g) => g.fieldName));

const toolNames = (api: ApiMetadata): string[] => (api.settings.mcp.enabled ? mcpTools(api).map((t) => t.name) : []);

function compared(before: string[], after: string[], removed: Finding['kind'], added: Finding['kind'], what: string) {
  return [
    ...before.filter((n) => !after.includes(n)).map((n) => finding(removed, n, `${what} ${n} removed`)),
    ...after.filter((n) => !before.includes(n)).map((n) => finding(added, n, `${what} ${n} added`)),
  ];
}

export function exposureFindings(apis: Paired<ApiMetadata>): Finding[] {
  return [
    ...compared(
      graphQlFields(apis.old),
      graphQlFields(apis.new),
      'graphql-operation-removed',
      'graphql-operation-added',
      'GraphQL field',
    ),
    ...compared(toolNames(apis.old), toolNames(apis.new), 'mcp-tool-removed', 'mcp-tool-added', 'MCP tool'),
  ];
}
