/**
 * Related items read ahead (docs/graphql.md, "No N+1"): when a collection's selection asks for a to-one relation
 * whose items are only read and shown (pipeline/execute.ts, `plainItemValue`), the items of the whole page are read
 * in one store query before the page is returned, and the relation field answers from them without a promise per
 * item. Other relations are read by the batched runtime as the fields resolve (relations.ts).
 */
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { OperationMetadata, PropertyMetadata } from '../metadata/types.js';
import { plainItemValue } from '../pipeline/execute.js';
import { servesStoredItems } from '../pipeline/representation/rendering.js';
import { iriResolver } from '../protocol/iri.js';
import type { Item } from '../store/types.js';
import type { GraphQlContext } from './request-context.js';

/** Per value, the related values read ahead, by property name (null: the relation names no readable item). */
export const READ_AHEAD = Symbol('related values read ahead');

type Value = Record<PropertyKey, unknown>;

/**
 * Per field nodes of a document, the names selected at each path: a compiled query hands its resolver the same
 * field nodes on every run (those of a document parsed once), so a page looks its selection up instead of walking it.
 */
const selections = new WeakMap<readonly FieldNode[], Map<string, ReadonlySet<string>>>();

/** The names of the fields selected at `path` under the field being resolved (fragments followed). */
export function selectedAt(info: GraphQLResolveInfo, path: readonly string[]): ReadonlySet<string> {
  let byPath = selections.get(info.fieldNodes);
  if (!byPath) selections.set(info.fieldNodes, (byPath = new Map()));
  const key = path.join('.');
  let selected = byPath.get(key);
  if (!selected) byPath.set(key, (selected = namesSelectedAt(info, path)));
  return selected;
}

function namesSelectedAt(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  let sets: SelectionSetNode[] = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  const fieldsOf = (set: SelectionSetNode): FieldNode[] =>
    set.selections.flatMap((s) => {
      if (s.kind === Kind.FIELD) return [s];
      if (s.kind === Kind.INLINE_FRAGMENT) return fieldsOf(s.selectionSet);
      const fragment = info.fragments[s.name.value];
      return fragment ? fieldsOf(fragment.selectionSet) : [];
    });
  for (const name of path)
    sets = sets.flatMap((set) =>
      fieldsOf(set).flatMap((f) => (f.name.value === name && f.selectionSet ? [f.selectionSet] : [])),
    );
  return new Set(sets.flatMap((set) => fieldsOf(set).map((f) => f.name.value)));
}

/** Reads ahead the to-one relations of `members` that `selected` names, one store query per relation. */
export async function readAhead(
  ctx: GraphQlContext,
  members: unknown[],
  properties: readonly PropertyMetadata[],
  selected: ReadonlySet<string>,
  itemQueryOf: (resource: string) => OperationMetadata | undefined,
): Promise<void> {
  const api = ctx.runtime.api;
  for (const p of properties) {
    if (!p.relation || p.array || !selected.has(p.name)) continue;
    const op = itemQueryOf(p.relation);
    const plain = op && plainItemValue(op, api);
    const id = op?.resource.identifier;
    if (!op || !plain || !id) continue;
    const ids = new Map<string, number | string>();
    for (const member of members as Value[]) {
      const iri = member[p.name];
      if (typeof iri !== 'string' || ids.has(iri)) continue;
      const value = iriResolver(api).identifierOf(op.resource, iri);
      if (value !== undefined) ids.set(iri, value);
    }
    const byId = ids.size ? await relatedValues(ctx, op, id, [...new Set(ids.values())], plain) : new Map();
    const values = new Map<string, unknown>();
    for (const [iri, value] of ids) values.set(iri, byId.get(String(value)) ?? null);
    for (const member of members as Value[]) {
      const iri = member[p.name];
      if (typeof iri !== 'string') continue;
      const related = ((member[READ_AHEAD] as Record<string, unknown> | undefined) ??= {});
      related[p.name] = values.get(iri) ?? null;
    }
  }
}

/**
 * The values of the items with these identifiers, by identifier, in one store query: the items' stored texts
 * where they are the values the operation shows (rendering.ts, `servesStoredItems`), else the items made into
 * values.
 */
async function relatedValues(
  ctx: GraphQlContext,
  op: OperationMetadata,
  id: PropertyMetadata,
  ids: (number | string)[],
  plain: NonNullable<ReturnType<typeof plainItemValue>>,
): Promise<Map<string, unknown>> {
  const api = ctx.runtime.api;
  const collection = ctx.runtime.collectionOf(op.resource);
  const query = { where: [{ op: 'in' as const, field: id.name, values: ids }] };
  const texts = servesStoredItems(op, api) ? await collection.findRendered?.(query) : undefined;
  if (texts) {
    const values = JSON.parse(`[${texts.join(',')}]`) as Value[];
    return new Map(values.map((value) => [String(value[id.name]), value]));
  }
  const found = await collection.find(query);
  return new Map(found.map((item: Item) => [String(item[id.name]), plain(api, item, ctx.origin)]));
}
