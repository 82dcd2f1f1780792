/**
 * Which properties an operation shows (normalization) and accepts (denormalization): the one place
 * that decides it, per direction, so that every output path (items, collection members, documentation
 * schemas) and every input path agree. Today the decision is made from serialization groups (Symfony
 * serializer semantics, docs/behaviour.md "Serialization groups"): a context with `groups` keeps the
 * properties whose own `groups` share one of them (`*` keeps all); a context without `groups` keeps all.
 */
import { optionValue, perOperation, writtenOption } from './options.js';
import type { OperationMetadata, PropertyMetadata, ResourceMetadata, Settings } from './types.js';

/** The `groups` of a serializer context (`{ groups: ["read"] }` or `{ groups: "read" }`), undefined when unset. */
export function contextGroups(context: unknown): string[] | undefined {
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return undefined;
  const groups = (context as Record<string, unknown>).groups;
  if (typeof groups === 'string') return [groups];
  return Array.isArray(groups) ? groups.map(String) : undefined;
}

function inGroups(property: PropertyMetadata, groups: readonly string[] | undefined): boolean {
  if (groups === undefined || groups.includes('*')) return true;
  return (property.groups ?? []).some((g) => groups.includes(g));
}

/** The `groups` of an operation's normalizationContext (output), undefined when it names none. */
export const normalizationGroups = perOperation((op: OperationMetadata, _: void): string[] | undefined =>
  contextGroups(optionValue(op, 'normalizationContext')),
);

/** The `groups` of an operation's denormalization context (input, global default merged), undefined when it names none. */
export const denormalizationGroups = perOperation((op: OperationMetadata, settings: Settings): string[] | undefined =>
  contextGroups(denormalizationContext(op, settings)),
);

/**
 * The properties of a relation's target that a context with these groups embeds, API Platform's readableLink
 * (output) and writableLink (input): only when the context names groups and one of them is the group of some
 * property of the target (`*` is not such a group); undefined otherwise, and the relation is an IRI.
 * Output keeps the target's non-write-only properties in the groups, input its non-read-only ones.
 */
export function embeddedProperties(
  target: ResourceMetadata,
  groups: readonly string[] | undefined,
  direction: 'output' | 'input',
): readonly PropertyMetadata[] | undefined {
  if (groups === undefined || !target.properties.some((p) => p.groups?.some((g) => groups.includes(g))))
    return undefined;
  return target.properties.filter((p) => (direction === 'output' ? !p.writeOnly : !p.readOnly) && inGroups(p, groups));
}

/** The properties an operation's responses hold (write-only ones never). */
export const shownProperties = perOperation((op: OperationMetadata): readonly PropertyMetadata[] => {
  const groups = normalizationGroups(op);
  return op.resource.properties.filter((p) => !p.writeOnly && inGroups(p, groups));
});

/**
 * The operation's denormalization context: its own (or its resource's) over `config { defaults {
 * denormalization_context } }`, key by key, as API Platform merges an array default under an operation's array.
 */
export function denormalizationContext(op: OperationMetadata, settings: Settings): Readonly<Record<string, unknown>> {
  const plain = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {});
  return { ...plain(settings.defaults.denormalizationContext), ...plain(writtenOption(op, 'denormalizationContext')) };
}

/** The properties an operation's request bodies may set (read-only ones never); the others are ignored. */
export const acceptedProperties = perOperation((op: OperationMetadata, settings: Settings) => {
  const groups = denormalizationGroups(op, settings);
  return op.resource.properties.filter((p) => !p.readOnly && inGroups(p, groups));
});

/**
 * `allow_extra_attributes` of the denormalization context (default true): when false, a body holding an
 * attribute the operation does not take is refused (representation/denormalize.ts) instead of ignored.
 */
export const allowsExtraAttributes = perOperation(
  (op: OperationMetadata, settings: Settings): boolean =>
    denormalizationContext(op, settings).allow_extra_attributes !== false,
);

/** Whether the operation shows fewer properties than the resource's default rendering (no write-only ones). */
export const restrictsOutput = perOperation(
  (op: OperationMetadata, settings): boolean =>
    shownProperties(op, settings).length < op.resource.properties.filter((p) => !p.writeOnly).length,
);
