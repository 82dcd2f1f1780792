/**
 * The changes of one operation between two files: its route (method, URI template, route prefix), the `@type` of
 * what it answers, its filter parameters and their strategies, pagination (defaults, maxima, client switches,
 * modes), rate limit, access expressions and deprecation.
 */
import type { OptionName } from '../../grammar/catalogue/index.js';
import { optionValue, resourceOption, writtenOption } from '../metadata/options.js';
import { rateLimitOf } from '../metadata/rate-limit.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { operationExpressionFindings } from './expressions.js';
import { finding, type Finding, type FindingKind } from './findings.js';
import { operationSubject, routeOf, type Paired } from './pairing.js';

/** A filter parameter of a collection operation, `search:title` → its strategy (`partial`), as the query sees it. */
function filterParameters(api: ApiMetadata, op: OperationMetadata): Map<string, string> {
  const out = new Map<string, string>();
  if (!op.isCollection) return out;
  for (const name of optionValue(op, api.settings, 'filters') ?? []) {
    const filter = api.filters.get(name);
    for (const p of filter?.properties ?? []) out.set(`${filter!.kind} filter on ${p.name}`, p.setting ?? '');
  }
  return out;
}

function filterFindings(apis: Paired<ApiMetadata>, ops: Paired<OperationMetadata>, subject: string): Finding[] {
  const [was, is] = [filterParameters(apis.old, ops.old), filterParameters(apis.new, ops.new)];
  const out: Finding[] = [];
  for (const [key, strategy] of was) {
    if (!is.has(key)) out.push(finding('filter-removed', subject, `${key} removed`, [routeOf(ops.old)]));
    else if (is.get(key) !== strategy)
      out.push(
        finding('filter-strategy-changed', subject, `${key}: ${strategy || 'default'} → ${is.get(key) || 'default'}`, [
          routeOf(ops.old),
        ]),
      );
  }
  for (const key of is.keys())
    if (!was.has(key)) out.push(finding('filter-added', subject, `${key} added`, [routeOf(ops.new)]));
  return out;
}

const CLIENT_SWITCHES = ['paginationClientEnabled', 'paginationClientItemsPerPage', 'paginationClientPartial'] as const;
const MODES = ['paginationEnabled', 'paginationPartial', 'paginationViaCursor'] as const;

function paginationFindings(apis: Paired<ApiMetadata>, ops: Paired<OperationMetadata>, subject: string): Finding[] {
  if (!ops.old.isCollection || !ops.new.isCollection) return [];
  const value = <N extends OptionName>(side: 'old' | 'new', name: N) =>
    optionValue(ops[side], apis[side].settings, name);
  const out: Finding[] = [];
  const add = (kind: FindingKind, detail: string) => out.push(finding(kind, subject, detail, [routeOf(ops.old)]));
  for (const name of MODES) {
    const [was, is] = [JSON.stringify(value('old', name)), JSON.stringify(value('new', name))];
    if (was !== is) add('pagination-changed', `${name} ${was ?? 'unset'} → ${is ?? 'unset'}`);
  }
  const numbers = [
    ['paginationItemsPerPage', 'pagination-default-lowered', 'pagination-default-raised'],
    ['paginationMaximumItemsPerPage', 'pagination-maximum-lowered', 'pagination-maximum-raised'],
  ] as const;
  for (const [name, lowered, raised] of numbers) {
    // An unset maximum is no maximum.
    const [was, is] = [value('old', name) ?? Infinity, value('new', name) ?? Infinity];
    if (was !== is) add(is < was ? lowered : raised, `${name} ${was} → ${is}`);
  }
  for (const name of CLIENT_SWITCHES) {
    const [was, is] = [value('old', name) === true, value('new', name) === true];
    if (was && !is) add('client-switch-removed', `${name} turned off`);
    if (!was && is) add('client-switch-added', `${name} turned on`);
  }
  return out;
}

function rateLimitFindings(apis: Paired<ApiMetadata>, ops: Paired<OperationMetadata>, subject: string): Finding[] {
  const [was, is] = [rateLimitOf(ops.old, apis.old.settings), rateLimitOf(ops.new, apis.new.settings)];
  const rate = (p: typeof was) => (p ? p.limit / p.seconds : Infinity);
  const text = (p: typeof was) => (p ? `${p.limit} per ${p.seconds} s by ${p.by} (${p.for})` : 'none');
  if (text(was) === text(is)) return [];
  const lowered = rate(is) < rate(was) || (rate(is) === rate(was) && is?.for === 'all');
  return [
    finding(lowered ? 'rate-limit-lowered' : 'rate-limit-raised', subject, `rate limit ${text(was)} → ${text(is)}`, [
      routeOf(ops.old),
    ]),
  ];
}

/**
 * `deprecationReason` of the operation; one the operation only inherits from its resource is the resource's finding
 * (resourceDeprecation), not each operation's.
 */
function deprecationFindings(subject: string, before: unknown, after: unknown, routes: string[]): Finding[] {
  if (before === after) return [];
  if (before === undefined) return [finding('deprecated', subject, `deprecated: ${String(after)}`, routes)];
  if (after === undefined) return [finding('undeprecated', subject, 'no longer deprecated', routes)];
  return [
    finding('deprecation-changed', subject, `deprecation ${JSON.stringify(before)} → ${JSON.stringify(after)}`, routes),
  ];
}

function ownDeprecation(op: OperationMetadata): unknown {
  const own = writtenOption(op, 'deprecationReason');
  return own === resourceOption(op.resource, 'deprecationReason') ? undefined : own;
}

export function resourceDeprecation(
  subject: string,
  before: OperationMetadata[],
  after: OperationMetadata[],
  pair: Paired<OperationMetadata['resource']>,
) {
  return deprecationFindings(
    subject,
    resourceOption(pair.old, 'deprecationReason'),
    resourceOption(pair.new, 'deprecationReason'),
    after.length > 0 ? after.map(routeOf) : before.map(routeOf),
  );
}

export function operationFindings(apis: Paired<ApiMetadata>, ops: Paired<OperationMetadata>): Finding[] {
  const subject = operationSubject(ops.new);
  const routes = [routeOf(ops.old)];
  const out: Finding[] = [];
  if (routeOf(ops.old) !== routeOf(ops.new))
    out.push(finding('route-changed', subject, `${routeOf(ops.old)} → ${routeOf(ops.new)}`, routes));
  if (ops.old.shortName !== ops.new.shortName && ops.old.resource.shortName === ops.new.resource.shortName)
    out.push(finding('operation-type-changed', subject, `@type ${ops.old.shortName} → ${ops.new.shortName}`, routes));
  out.push(...filterFindings(apis, ops, subject));
  out.push(...paginationFindings(apis, ops, subject));
  out.push(...rateLimitFindings(apis, ops, subject));
  out.push(...operationExpressionFindings(subject, ops.old, ops.new, routes));
  out.push(...deprecationFindings(subject, ownDeprecation(ops.old), ownDeprecation(ops.new), routes));
  return out;
}
