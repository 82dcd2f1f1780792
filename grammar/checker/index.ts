/**
 * The checker: a parsed file in, every diagnostic out (syntax first, then each rule's), sorted
 * by position. Rules live in rules/, one concern each.
 */
import { parse, type ParseResult } from '../parse.js';
import type { Diagnostic } from '../diagnostics.js';
import { buildModel, type ApiModel } from '../model.js';
import { CheckContext, type CheckEnv } from './check-context.js';
import { checkAsync } from './rules/async.js';
import { checkConfig } from './rules/config.js';
import { checkDeclarations } from './rules/declarations.js';
import { checkElasticsearch } from './rules/elasticsearch.js';
import { checkFilters } from './rules/filters.js';
import { checkGraphQl } from './rules/graphql.js';
import { checkGraphQlGuards } from './rules/graphql-guards.js';
import { checkMcp } from './rules/mcp.js';
import { checkOperations } from './rules/operations.js';
import { checkRateLimits } from './rules/rate-limit.js';
import { checkResources } from './rules/resources.js';
import { checkScopeIndex } from './rules/scope-index.js';
import { checkScopes } from './rules/scopes.js';
import { checkSecurity } from './rules/security.js';
import { checkSecurityConfig } from './rules/security-config.js';

export type { CheckEnv } from './check-context.js';

// checkSecurity runs last: it checks the expressions the other rules met (checkScopes takes the scopes' first).
const RULES = [
  checkDeclarations,
  checkConfig,
  checkSecurityConfig,
  checkFilters,
  checkResources,
  checkOperations,
  checkGraphQl,
  checkGraphQlGuards,
  checkMcp,
  checkAsync,
  checkElasticsearch,
  checkRateLimits,
  checkScopes,
  checkScopeIndex,
  checkSecurity,
];

export interface CheckResult extends ParseResult {
  model: ApiModel;
  /** Syntax and semantic diagnostics, in source order. */
  all: Diagnostic[];
}

export function checkParsed(parsed: ParseResult, env: CheckEnv = {}): CheckResult {
  const model = buildModel(parsed.document);
  const ctx = new CheckContext(model, env, parsed.text);
  for (const rule of RULES) rule(ctx);
  const all = [...parsed.diagnostics, ...ctx.diagnostics].sort(
    (a, b) => a.range.start - b.range.start || a.range.end - b.range.end,
  );
  return { ...parsed, model, all };
}

/** Parses and checks a text. Never throws. */
export function check(text: string, env: CheckEnv = {}): CheckResult {
  return checkParsed(parse(text), env);
}
