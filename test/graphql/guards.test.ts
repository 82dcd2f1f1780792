/**
 * Secure by default on every face (docs/graphql.md, "Secure by default"), for every file: each fixture under
 * test/fixtures and each example that turns GraphQL or MCP on is loaded, and each GraphQL operation and each MCP
 * tool is compared with the REST operation it mirrors. Its twin is found here from the rule as docs/graphql.md
 * states it, not from the loader's own answer; at every stage (`security`, `securityPostDenormalize`,
 * `securityPostValidation`) where the twin has a guard (an expression other than `true`) the face must have one.
 */
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CheckFailed, loadApi } from '../../server/load-api.js';
import { mcpTools } from '../../server/mcp/tools.js';
import type { ApiMetadata, GraphQlOperationMetadata, OperationMetadata } from '../../server/metadata/types.js';
import { fromRoot, repoRoot } from '../support/paths.js';

const STAGES = ['security', 'securityPostDenormalize', 'securityPostValidation'] as const;

function apiFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return apiFiles(join(dir, e.name));
    return e.name.endsWith('.api') ? [join(dir, e.name)] : [];
  });
}

/** The files that name GraphQL or MCP; those whose loaded settings turn either on are compared. */
const FILES = [...apiFiles(fromRoot('test/fixtures')), ...apiFiles(fromRoot('examples'))].filter((f) =>
  /\b(graphql|mcp)\b/.test(readFileSync(f, 'utf8')),
);

const guards = (value: unknown): boolean => value !== undefined && value !== null && String(value).trim() !== 'true';

/** The REST kinds a GraphQL operation mirrors, best first (docs/graphql.md). */
function twinKinds(gop: GraphQlOperationMetadata): string[] {
  if (gop.kind === 'Query' || gop.kind === 'Subscription') return ['Get'];
  if (gop.kind === 'QueryCollection') return ['GetCollection'];
  if (gop.kind === 'DeleteMutation') return ['Delete'];
  if (gop.name === 'create' || (gop.args && !('id' in gop.args))) return ['Post'];
  return ['Patch', 'Put'];
}

function twinOf(gop: GraphQlOperationMetadata): OperationMetadata | undefined {
  const rest = gop.operation.resource.operations.filter((o) => !o.hidden);
  for (const kind of twinKinds(gop)) {
    const twin = rest.find((o) => o.kind === kind);
    if (twin) return twin;
  }
  return undefined;
}

/** The stages the face leaves unguarded where the twin guards, as `face: stage (twin)`. */
const weaker = (face: string, own: OperationMetadata, twin: OperationMetadata): string[] =>
  STAGES.filter((s) => guards(twin.options[s]) && !guards(own.options[s])).map(
    (s) => `${face}: ${s} (${twin.kind} ${twin.name} has ${String(twin.options[s])})`,
  );

function lessGuarded(api: ApiMetadata): string[] {
  const out: string[] = [];
  for (const resource of api.resources)
    for (const gop of resource.graphQlOperations) {
      const twin = twinOf(gop);
      if (twin) out.push(...weaker(`GraphQL ${gop.fieldName}${gop.nested ? ' (nested)' : ''}`, gop.operation, twin));
    }
  if (api.settings.mcp.enabled)
    for (const tool of mcpTools(api)) {
      // A tool is the REST operation itself: the one of its resource it names.
      const rest = tool.operation.resource.operations.find((o) => o === tool.operation);
      expect(rest, `MCP ${tool.name} runs a REST operation of its resource`).to.not.equal(undefined);
      out.push(...weaker(`MCP ${tool.name}`, tool.operation, rest!));
    }
  return out;
}

describe('every GraphQL operation and MCP tool is as guarded as its REST twin, in every fixture and example', () => {
  it('no operation or tool of any file that serves GraphQL or MCP is less guarded than its REST twin', async function () {
    this.timeout(120_000);
    const compared: string[] = [];
    const found: string[] = [];
    for (const file of FILES) {
      let api: ApiMetadata;
      try {
        api = await loadApi(file);
      } catch (e) {
        if (e instanceof CheckFailed) continue; // a fixture of errors (language server tests): nothing is served
        throw e;
      }
      if (!api.settings.graphql.enabled && !api.settings.mcp.enabled) continue;
      compared.push(relative(repoRoot, file));
      found.push(...lessGuarded(api).map((w) => `${relative(repoRoot, file)}: ${w}`));
    }
    expect(found).to.deep.equal([]);
    // The marketplace, the examples' library and the GraphQL and MCP fixtures at least.
    expect(compared.length).to.be.at.least(17);
    expect(compared).to.include.members(['test/fixtures/http/graphql-marketplace.api', 'examples/library-graphql.api']);
  });
});
