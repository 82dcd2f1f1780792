/**
 * The changes of one property between two files: its name, type, required and nullable, the constraints that
 * narrow or relax the values it takes, its default, uniqueness and access expressions; and, operation by
 * operation, whether it is still readable (normalization groups) and writable (denormalization groups).
 */
import { answersWithBody, takesBody } from '../metadata/operation-facts.js';
import { acceptedProperties, shownProperties } from '../metadata/property-access.js';
import type { OperationMetadata, PropertyMetadata, Settings } from '../metadata/types.js';
import { propertyExpressionFindings } from './expressions.js';
import { finding, type Finding, type FindingKind } from './findings.js';
import { routeOf, type Paired } from './pairing.js';

/** The operations of a resource pair, paired, and the settings of each file (for the groups' defaults). */
export interface ResourceChange {
  subject: string;
  operations: Paired<OperationMetadata>[];
  oldOperations: OperationMetadata[];
  settings: Paired<Settings>;
}

/** Whether the operation answers with the item (a DELETE answers 204), or reads it from the request body. */
const answersItem = (op: OperationMetadata, settings: Settings): boolean =>
  op.method !== 'DELETE' && answersWithBody(op, settings);

/** The routes of `ops` that answer (read) or take (write) the property named `name`. */
function routesOf(ops: readonly OperationMetadata[], settings: Settings, name: string, side: 'read' | 'write') {
  const has = (op: OperationMetadata) =>
    side === 'read'
      ? answersItem(op, settings) && shownProperties(op, settings).some((p) => p.name === name)
      : takesBody(op.method) && acceptedProperties(op, settings).some((p) => p.name === name);
  return ops.filter(has).map(routeOf);
}

const union = (a: string[], b: string[]): string[] => [...new Set([...a, ...b])];
const typeText = (p: PropertyMetadata): string => `${p.type}${p.array ? '[]' : ''}`;
const show = (v: unknown): string => (v === undefined ? 'none' : JSON.stringify(v));

/** Bounds: `up` narrows when it rises (a minimum), `down` when it falls (a maximum); `any` whenever it changes. */
const BOUNDS: readonly { key: keyof PropertyMetadata; narrows: 'up' | 'down' | 'any' }[] = [
  { key: 'minimum', narrows: 'up' },
  { key: 'exclusiveMinimum', narrows: 'up' },
  { key: 'minLength', narrows: 'up' },
  { key: 'minItems', narrows: 'up' },
  { key: 'maximum', narrows: 'down' },
  { key: 'exclusiveMaximum', narrows: 'down' },
  { key: 'maxLength', narrows: 'down' },
  { key: 'maxItems', narrows: 'down' },
  { key: 'pattern', narrows: 'any' },
  { key: 'multipleOf', narrows: 'any' },
];

/** One property in both files, with the routes of the old file that answer it (reads) and take it (writes). */
interface Compared {
  subject: string;
  before: PropertyMetadata;
  after: PropertyMetadata;
  reads: string[];
  writes: string[];
}

/** A relaxed constraint: nothing to anyone, unless responses show the property (then a client may meet new values). */
const relaxed = (subject: string, detail: string, reads: string[]): Finding =>
  reads.length > 0 ? finding('response-widened', subject, detail, reads) : finding('bound-relaxed', subject, detail);

function boundFindings({ subject, before, after, reads, writes }: Compared) {
  const out: Finding[] = [];
  for (const { key, narrows } of BOUNDS) {
    const [was, is] = [before[key], after[key]];
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    let narrowed = was === undefined;
    if (is === undefined) narrowed = false;
    else if (was !== undefined && narrows !== 'any')
      narrowed = narrows === 'up' ? (is as number) > (was as number) : (is as number) < (was as number);
    const detail = `${key} ${show(was)} → ${show(is)}`;
    out.push(narrowed ? finding('bound-narrowed', subject, detail, writes) : relaxed(subject, detail, reads));
  }
  if (!before.uniqueItems && after.uniqueItems) out.push(finding('bound-narrowed', subject, 'uniqueItems', writes));
  if (before.uniqueItems && !after.uniqueItems) out.push(relaxed(subject, 'uniqueItems removed', reads));
  return out;
}

function enumFindings({ subject, before, after, reads, writes }: Compared) {
  const [was, is] = [before.enum, after.enum];
  if (was === undefined && is === undefined) return [];
  if (was === undefined) return [finding('bound-narrowed', subject, `enum ${show(is)} added`, writes)];
  if (is === undefined) return [relaxed(subject, `enum ${show(was)} removed`, reads)];
  const text = (v: unknown) => JSON.stringify(v);
  const removed = was.filter((v) => !is.map(text).includes(text(v)));
  const added = is.filter((v) => !was.map(text).includes(text(v)));
  return [
    ...(removed.length > 0
      ? [finding('enum-values-removed', subject, `enum values ${show(removed)} removed`, writes)]
      : []),
    ...(added.length > 0 ? [finding('enum-values-added', subject, `enum values ${show(added)} added`, reads)] : []),
  ];
}

/** Findings that compare one flag or value: required, nullable, format, default, unique. */
function flagFindings({ subject, before, after, reads, writes }: Compared) {
  const out: Finding[] = [];
  const add = (kind: FindingKind, detail: string, routes: string[] = []) =>
    out.push(finding(kind, subject, detail, routes));
  if (!before.required && after.required) add('property-made-required', 'now required', writes);
  if (before.required && !after.required) add('property-made-optional', 'no longer required', reads);
  if (before.nullable && !after.nullable) add('property-made-non-nullable', 'null no longer accepted', writes);
  if (!before.nullable && after.nullable) add('property-made-nullable', 'may now be null', reads);
  if (before.format !== after.format) {
    if (after.format === undefined) out.push(relaxed(subject, `format ${before.format} removed`, reads));
    // A format that replaces another changes what responses hold too.
    else
      add(
        'format-narrowed',
        `format ${show(before.format)} → ${show(after.format)}`,
        before.format ? union(reads, writes) : writes,
      );
  }
  if (JSON.stringify(before.default) !== JSON.stringify(after.default))
    add('default-changed', `default ${show(before.default)} → ${show(after.default)}`, writes);
  if (!before.unique && after.unique) add('unique-added', 'now unique', writes);
  if (before.unique && !after.unique) add('unique-removed', 'no longer unique');
  const onDelete = (p: PropertyMetadata) => p.onDelete ?? 'restrict';
  if (before.relation && after.relation && onDelete(before) !== onDelete(after))
    add(
      onDelete(after) === 'restrict' ? 'on-delete-restricted' : 'on-delete-changed',
      `onDelete ${onDelete(before)} → ${onDelete(after)}`,
    );
  return out;
}

/** Per operation pair: the routes where the property stopped, or started, being readable and writable. */
function accessFindings(change: ResourceChange, subject: string, before: PropertyMetadata, after: PropertyMetadata) {
  const out: Finding[] = [];
  const sides = [
    ['read', 'property-no-longer-readable', 'property-now-readable', 'readable'],
    ['write', 'property-no-longer-writable', 'property-now-writable', 'writable'],
  ] as const;
  for (const [side, lost, gained, word] of sides) {
    const [lostRoutes, gainedRoutes]: [string[], string[]] = [[], []];
    for (const pair of change.operations) {
      const was = routesOf([pair.old], change.settings.old, before.name, side).length > 0;
      const is = routesOf([pair.new], change.settings.new, after.name, side).length > 0;
      if (was && !is) lostRoutes.push(routeOf(pair.old));
      if (!was && is) gainedRoutes.push(routeOf(pair.new));
    }
    if (lostRoutes.length > 0) out.push(finding(lost, subject, `no longer ${word}`, lostRoutes));
    if (gainedRoutes.length > 0) out.push(finding(gained, subject, `now ${word}`, gainedRoutes));
  }
  return out;
}

/** The routes of the old file that answer the property, and those that take it. */
const oldRoutes = (change: ResourceChange, p: PropertyMetadata) => ({
  reads: routesOf(change.oldOperations, change.settings.old, p.name, 'read'),
  writes: routesOf(change.oldOperations, change.settings.old, p.name, 'write'),
});

export function propertyFindings(change: ResourceChange, before: PropertyMetadata, after: PropertyMetadata): Finding[] {
  const subject = `${change.subject}.${after.name}`;
  const { reads, writes } = oldRoutes(change, before);
  const out: Finding[] = [];
  if (before.name !== after.name)
    out.push(finding('property-renamed', subject, `renamed from ${before.name}`, union(reads, writes)));
  if (typeText(before) !== typeText(after) && !before.identifier)
    out.push(
      finding('property-type-changed', subject, `type ${typeText(before)} → ${typeText(after)}`, union(reads, writes)),
    );
  const compared = { subject, before, after, reads, writes };
  out.push(...flagFindings(compared), ...enumFindings(compared), ...boundFindings(compared));
  out.push(...propertyExpressionFindings(subject, before, after, union(reads, writes)));
  out.push(...accessFindings(change, subject, before, after));
  return out;
}

/** A property only the old file has: its routes are where it was read or written. */
export function removedPropertyFinding(change: ResourceChange, p: PropertyMetadata): Finding {
  const { reads, writes } = oldRoutes(change, p);
  return finding('property-removed', `${change.subject}.${p.name}`, 'removed', union(reads, writes));
}

/** A property only the new file has: breaking when a body must now give it (required, writable, no default). */
export function addedPropertyFinding(change: ResourceChange, newOperations: OperationMetadata[], p: PropertyMetadata) {
  const writes = routesOf(newOperations, change.settings.new, p.name, 'write');
  const subject = `${change.subject}.${p.name}`;
  if (!p.required || writes.length === 0 || p.serverDefault !== undefined)
    return finding('property-added', subject, `new property (${typeText(p)})`, writes);
  return p.default === undefined
    ? finding('required-property-added', subject, `new required property (${typeText(p)})`, writes)
    : finding(
        'required-property-added-with-default',
        subject,
        `new required property (${typeText(p)}), default ${show(p.default)}`,
        writes,
      );
}
