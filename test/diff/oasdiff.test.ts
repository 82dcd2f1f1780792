/**
 * `apidsl diff` finds at least every breaking change oasdiff finds on the two OpenAPI documents apidsl emits, pair by
 * pair of the corpus (test/diff/pairs/): each oasdiff error (level 3) is on a route of some breaking finding of apidsl.
 * What apidsl reports as breaking beyond oasdiff is listed, each finding kind with why OpenAPI cannot show it.
 * oasdiff is a Go program that .ci/run builds into $(go env GOPATH)/bin; under CI=true a missing one fails.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FindingKind } from '../../server/diff/findings.js';
import { diffApis } from '../../server/diff/index.js';
import { loadApi } from '../../server/load-api.js';
import { openApiDocument } from '../../server/openapi/index.js';
import { pairFile, PAIRS } from '../support/diff-pairs.js';

/** Where .ci/run puts it (GOPATH defaults to ~/go), or $OASDIFF. */
const OASDIFF = process.env.OASDIFF ?? join(process.env.GOPATH ?? join(homedir(), 'go'), 'bin', 'oasdiff');

/** Why a breaking finding of apidsl has no counterpart in oasdiff's report: OpenAPI does not say it. */
const BEYOND_OPENAPI: Partial<Record<FindingKind, string>> = {
  'property-removed': 'oasdiff reports a removed optional property as a warning (request) or not at all (response)',
  'property-renamed': 'the same, for the old name',
  'property-no-longer-readable': 'a response property that is no longer listed: oasdiff does not report it',
  'property-no-longer-writable': 'oasdiff reports a request property removed or made read-only as a warning',
  'property-made-nullable': 'a response that may now hold null: oasdiff does not report it',
  'property-type-changed': 'a stored value of the old type: the storage, which OpenAPI does not describe',
  'bound-narrowed': 'on a renamed property, which oasdiff sees as one removed and one added (warnings)',
  'unique-added': 'a unique constraint is not part of a JSON Schema',
  'resource-renamed': 'storage: the items must move to the new collection',
  'short-name-changed': '@type and the JSON-LD context, which OpenAPI does not describe',
  'route-prefix-changed': 'reported by oasdiff as the old paths removed, on the same routes',
  'operation-type-changed': '@type and the JSON-LD context of the answer, which OpenAPI does not describe',
  'filter-removed': 'oasdiff reports a removed query parameter as a warning',
  'filter-strategy-changed': 'a filter strategy (partial, exact…) is not part of the parameter schema',
  'pagination-changed': 'the shape of the Hydra view (totalItems, next), which the schema does not pin',
  'client-switch-removed': 'oasdiff reports a removed query parameter as a warning',
  'security-added': 'security expressions are not part of OpenAPI',
  'security-narrowed': 'security expressions and row-level scopes are not part of OpenAPI',
  'on-delete-restricted': "a relation's referential action on delete is not part of OpenAPI",
  'graphql-operation-removed': 'GraphQL is not part of OpenAPI',
  'mcp-tool-removed': 'MCP tools are not part of OpenAPI',
  'identifier-changed': 'the storage keys; oasdiff sees the type change of the id parameter and property',
};

interface OasdiffChange {
  id: string;
  level: number;
  operation: string;
  path: string;
  text: string;
}

function oasdiffBreaking(dir: string, pair: string): OasdiffChange[] {
  const out = execFileSync(
    OASDIFF,
    ['breaking', join(dir, `${pair}.old.json`), join(dir, `${pair}.new.json`), '--format', 'json'],
    { encoding: 'utf8' },
  );
  return (JSON.parse(out || '[]') as OasdiffChange[]).filter((c) => c.level === 3);
}

describe('apidsl diff finds every breaking change oasdiff finds', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-oasdiff-'));
  /** Per pair, apidsl's breaking findings that oasdiff has no error for, by kind. */
  const beyond = new Map<string, Set<FindingKind>>();

  before(function () {
    if (existsSync(OASDIFF)) return;
    if (process.env.CI === 'true') throw new Error(`oasdiff is missing at ${OASDIFF}: .ci/run builds it`);
    console.error(
      `\n*** SKIPPED the oasdiff comparison: oasdiff is missing at ${OASDIFF} (.ci/run shows how to build it) ***\n`,
    );
    this.skip();
  });

  for (const pair of PAIRS)
    it(pair, async () => {
      const [before, after] = [await loadApi(pairFile(pair, 'old.api')), await loadApi(pairFile(pair, 'new.api'))];
      writeFileSync(join(dir, `${pair}.old.json`), JSON.stringify(openApiDocument(before)));
      writeFileSync(join(dir, `${pair}.new.json`), JSON.stringify(openApiDocument(after)));
      const theirs = oasdiffBreaking(dir, pair);
      const ours = diffApis(before, after).findings.filter((f) => f.severity === 'breaking');
      const missed = theirs.filter((c) => !ours.some((f) => f.routes.includes(`${c.operation} ${c.path}`)));
      expect(missed.map((c) => `${c.id} ${c.operation} ${c.path}: ${c.text}`)).to.deep.equal([]);
      const routes = new Set(theirs.map((c) => `${c.operation} ${c.path}`));
      const more = ours.filter((f) => f.routes.length === 0 || !f.routes.some((r) => routes.has(r)));
      if (more.length > 0) beyond.set(pair, new Set(more.map((f) => f.kind)));
    });

  it('lists what apidsl reports beyond oasdiff, each kind with why OpenAPI cannot show it', () => {
    const unexplained = [...beyond.values()].flatMap((kinds) => [...kinds].filter((k) => !BEYOND_OPENAPI[k]));
    expect(unexplained).to.deep.equal([]);
    for (const [pair, kinds] of beyond)
      console.log(`      ${pair}: ${[...kinds].map((k) => `${k} (${BEYOND_OPENAPI[k]})`).join('; ')}`);
  });
});
