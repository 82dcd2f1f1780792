/**
 * The MCP endpoint (`config mcp`, docs/mcp.md): an `mcp` option while the endpoint is off has no effect, and two
 * operations whose tools would have one name cannot both be tools.
 */
import type * as A from '../../ast.js';
import { configEntry, wordOf, type ModelOperation } from '../../model.js';
import { mcpToolName } from '../../naming.js';
import type { CheckContext } from '../check-context.js';

export function checkMcp(ctx: CheckContext): void {
  const enabled = configEntry(ctx.model.config, 'mcp.enabled')?.value;
  const on = enabled?.kind === 'bool' && enabled.value;
  const tools = new Map<string, ModelOperation>();
  for (const resource of ctx.model.resources.values()) {
    const resourceOption = resource.options.get('mcp');
    if (!on) {
      for (const e of [resourceOption, ...resource.operations.map((o) => o.options.get('mcp'))])
        if (e) reportInert(ctx, e);
      continue;
    }
    for (const op of resource.operations) {
      if (!op.known || !isTool(op)) continue;
      const name = mcpToolName(op.kind, op.name, op.named, resource.shortName);
      const other = tools.get(name);
      if (!other) tools.set(name, op);
      else
        ctx.report(
          'duplicate-mcp-tool',
          (op.decl ?? resource.decl).range,
          `the MCP tool '${name}' is already the ${other.kind} operation of '${other.resource.name}': give this operation a name, or mcp: false`,
        );
    }
  }
}

/** An operation is a tool unless `mcp: false` (its own, else its resource's) or it always answers 404. */
function isTool(op: ModelOperation): boolean {
  const own = op.options.get('mcp') ?? op.resource.options.get('mcp');
  if (own?.value?.kind === 'bool' && !own.value.value) return false;
  return wordOf(op.options.get('controller')?.value) !== 'NotFoundAction';
}

function reportInert(ctx: CheckContext, e: A.Entry): void {
  ctx.report(
    'option-ineffective',
    e.key.range,
    "'mcp' has no effect: config mcp.enabled is not true, so no operation is an MCP tool (add mcp { enabled: true } to config)",
  );
}
