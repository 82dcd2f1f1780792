/**
 * Criteria on a related item's property (`author.name=Ann`, docs/behaviour.md "Filters on related items") as
 * conditions on the relation: in two steps, store-neutral. The items of the target matching the criterion are read
 * first (from the target's collection, as any read), and the relation must hold one of their IRIs
 * (`author IN ['/authors/1', …]`); a path of two relations repeats the step from the far end. A subquery
 * (SQL) or a `$lookup` (MongoDB) would do it in one round trip, but each store would need its own; through the
 * store contract (store/types.ts) the same code serves both, and the matches are bounded (MAX_RELATED_MATCHES).
 *
 * Items without a related item match where an absent value would (`exists[author.name]=false`, a date filter that
 * includes nulls), as a LEFT JOIN makes them for API Platform. The target's read rules apply: an item the caller may
 * not read (its item Get's `security`) is never a match, nor one whose property on the path the caller may not see;
 * a property rule that does not read the item, or that the filtered resource's own relation carries, refuses the
 * request when the caller fails it (400, naming the parameter): a filter never tells what the caller could not read
 * (fail closed).
 */
import { badRequest } from '../../protocol/errors.js';
import { itemIri } from '../../protocol/iri.js';
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import { allows, type RequestFacts } from '../../security/access.js';
import type { Collection, Condition, Item } from '../../store/types.js';
import { readGuard } from '../relations/target-access.js';
import type { FilterTarget } from './paths.js';
import type { RelatedCriterion } from './query.js';
import { factsOf } from '../guards.js';
import type { OperationState } from '../state.js';

/** Most target items one criterion may match: their IRIs are one condition of the read. */
export const MAX_RELATED_MATCHES = 10_000;

/** What resolving needs of the request. */
interface RelatedReads {
  api: ApiMetadata;
  collectionOf(resource: ResourceMetadata): Collection;
  facts: RequestFacts;
}

/** The conditions on the filtered items' relations that the request's related criteria come to. */
export async function relatedConditions(state: OperationState, related: RelatedCriterion[]): Promise<Condition[]> {
  if (related.length === 0) return [];
  const reads: RelatedReads = {
    api: state.api,
    collectionOf: (resource) => state.runtime.collectionOf(resource),
    facts: factsOf(state),
  };
  const out: Condition[] = [];
  for (const criterion of related) out.push(await resolve(reads, criterion));
  return out;
}

async function resolve(reads: RelatedReads, { parameter, target, where }: RelatedCriterion): Promise<Condition> {
  await refuseUnreadable(reads, parameter, target);
  // From the far end: the matching items of the last resource, then those of the one before that point to them.
  let conditions = where;
  for (let i = target.via.length - 1; i >= 0; i--) {
    const { relation, target: resource } = target.via[i];
    const iris = await matchingIris(reads, parameter, resource, conditions, guardedOn(target, i));
    const onRelation: Condition = { op: 'in', field: relation.name, values: iris };
    conditions = [
      matchesAbsent(conditions)
        ? { op: 'or', conditions: [onRelation, { op: 'exists', field: relation.name, exists: false }] }
        : onRelation,
    ];
  }
  return conditions.length === 1 ? conditions[0] : { op: 'and', conditions };
}

/** The properties of step `i`'s resource on the path whose rule reads the item: checked item by item. */
function guardedOn(target: FilterTarget, i: number): PropertyMetadata[] {
  const next = i + 1 < target.via.length ? target.via[i + 1].relation : target.own;
  return next.security?.usesObject ? [next] : [];
}

/** The IRIs of the items of `resource` that match and that the caller may read (and read the path's property of). */
async function matchingIris(
  reads: RelatedReads,
  parameter: string,
  resource: ResourceMetadata,
  where: Condition[],
  guarded: PropertyMetadata[],
): Promise<string[]> {
  const guard = readGuard(reads.api, resource);
  const facts: RequestFacts = { ...reads.facts, uriVariables: {} };
  const iris: string[] = [];
  for await (const item of reads.collectionOf(resource).stream({ where })) {
    if (!(await readable(item, facts, guard, guarded))) continue;
    if (iris.length === MAX_RELATED_MATCHES)
      throw badRequest(
        `The filter "${parameter}" matches more than ${MAX_RELATED_MATCHES} ${resource.shortName} items: narrow it.`,
      );
    iris.push(itemIri(resource, item));
  }
  return iris;
}

async function readable(
  item: Item,
  facts: RequestFacts,
  guard: ReturnType<typeof readGuard>,
  guarded: PropertyMetadata[],
): Promise<boolean> {
  if (guard && !(await allows(guard, facts, item, structuredClone(item)))) return false;
  for (const p of guarded) if (!(await allows(p.security!, facts, item, null))) return false;
  return true;
}

/**
 * The path's properties with a rule that does not read the item are judged once: one the caller fails refuses the
 * request. On the filtered resource itself (the first relation) a rule that reads the item is judged with no item, as
 * the filterSecurity stage judges the resource's own properties: it passes only what it grants whatever the item.
 */
async function refuseUnreadable(reads: RelatedReads, parameter: string, target: FilterTarget): Promise<void> {
  const path = [...target.via.map((s) => s.relation), target.own];
  for (const [i, p] of path.entries()) {
    if (!p.security) continue;
    // Rules of the related items that read the item are applied item by item (matchingIris).
    if (p.security.usesObject && i > 0) continue;
    const denied = !(await allows(p.security, reads.facts, null, null));
    if (denied) throw badRequest(`Parameter "${parameter}" is not allowed: it reads a property you may not see.`);
  }
}

/** Whether an item without the value (no related item) satisfies every condition: `exists: false`, ORs of it. */
function matchesAbsent(conditions: Condition[]): boolean {
  const absent = (c: Condition): boolean => {
    if (c.op === 'exists') return !c.exists;
    if (c.op === 'and') return c.conditions.every(absent);
    if (c.op === 'or') return c.conditions.some(absent);
    return false;
  };
  return conditions.every(absent);
}
