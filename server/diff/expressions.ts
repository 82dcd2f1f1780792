/**
 * The access expressions a diff compares: one row per option. An expression added, or the old one with more
 * conditions (`A` → `A and B`), narrows who may call or which items they reach (breaking for those it now refuses);
 * one removed, or the old one with alternatives (`A` → `A or B`), widens it; one changed otherwise may do either: a
 * person reviews it. A scope's read and write expressions are compared each on its own (docs/scopes.md).
 */
import { scopeSources } from '../../grammar/scope-plan.js';
import { writtenOption } from '../metadata/options.js';
import type { OperationMetadata, PropertyMetadata } from '../metadata/types.js';
import { compareExpressions } from './expression-order.js';
import { finding, type Finding, type FindingKind } from './findings.js';

/** The expressions of an operation (written on it or on its resource), by name; a new option is one more row here. */
const OPERATION_EXPRESSIONS: readonly { option: string; read(op: OperationMetadata): string | undefined }[] = [
  { option: 'security', read: (op) => text(writtenOption(op, 'security')) },
  { option: 'securityPostDenormalize', read: (op) => text(writtenOption(op, 'securityPostDenormalize')) },
  { option: 'securityPostValidation', read: (op) => text(writtenOption(op, 'securityPostValidation')) },
];

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The expression options of a property. */
const PROPERTY_EXPRESSIONS: readonly { option: string; read(p: PropertyMetadata): string | undefined }[] = [
  { option: 'security', read: (p) => p.security?.source },
  { option: 'securityPostDenormalize', read: (p) => p.securityPostDenormalize?.source },
];

/** An expression's text without the spacing that does not change it. */
const spaced = (source: string): string => source.replace(/\s+/g, ' ').trim();

const KIND_OF_ORDER: Record<'narrowed' | 'widened' | 'changed', FindingKind> = {
  narrowed: 'security-narrowed',
  widened: 'security-widened',
  changed: 'security-changed',
};

function compared(
  subject: string,
  option: string,
  before: string | undefined,
  after: string | undefined,
  routes: readonly string[],
): Finding | undefined {
  if (before === undefined && after === undefined) return undefined;
  if (before === undefined) return finding('security-added', subject, `${option} added: ${spaced(after!)}`, routes);
  if (after === undefined)
    return finding('security-removed', subject, `${option} removed (was ${spaced(before)})`, routes);
  const order = compareExpressions(before, after);
  if (order === 'same') return undefined;
  return finding(KIND_OF_ORDER[order], subject, `${option} ${spaced(before)} → ${spaced(after)}`, routes);
}

/**
 * A scope (docs/scopes.md): one expression when both files give the same to reads and writes (`scope: "…"`), else its
 * read and its write expressions (`scope { read, write }`, write defaulting to read), each compared on its own.
 */
function scopeFindings(
  subject: string,
  before: OperationMetadata,
  after: OperationMetadata,
  routes: readonly string[],
) {
  const [was, is] = [scopeSources(writtenOption(before, 'scope')), scopeSources(writtenOption(after, 'scope'))];
  const single = (s: typeof was) => s === undefined || s.read === s.write;
  if (single(was) && single(is)) return [compared(subject, 'scope', was?.write, is?.write, routes) ?? []].flat();
  // A read finds its items through the read scope; a write its target (POST has none), then stores through the write one.
  const writes = WRITES.has(after.method);
  return [
    after.method === 'POST' ? [] : (compared(subject, 'scope read', was?.read, is?.read, routes) ?? []),
    writes ? (compared(subject, 'scope write', was?.write, is?.write, routes) ?? []) : [],
  ].flat();
}

export function operationExpressionFindings(
  subject: string,
  before: OperationMetadata,
  after: OperationMetadata,
  routes: readonly string[],
): Finding[] {
  return [
    ...OPERATION_EXPRESSIONS.flatMap(
      ({ option, read }) => compared(subject, option, read(before), read(after), routes) ?? [],
    ),
    ...scopeFindings(subject, before, after, routes),
  ];
}

export function propertyExpressionFindings(
  subject: string,
  before: PropertyMetadata,
  after: PropertyMetadata,
  routes: readonly string[],
): Finding[] {
  return PROPERTY_EXPRESSIONS.flatMap(
    ({ option, read }) => compared(subject, option, read(before), read(after), routes) ?? [],
  );
}
