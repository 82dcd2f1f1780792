/**
 * The `assert` constraints (Symfony's Expression constraint): each expression of the resource and of its
 * properties, in the active validation groups, must hold for the item written; one that does not (or fails)
 * is a violation with the Expression constraint's code. Resource-level ones come first with an empty path, as
 * Symfony validates a class's constraints before its properties'.
 */
import type { Violation } from '../../protocol/errors.js';
import type { Assertion, ResourceMetadata } from '../../metadata/types.js';
import { assertionHolds, type RequestFacts } from '../../security/access.js';
import type { Item } from '../../store/types.js';
import { violation } from './violations.js';

/** Whether the resource has any `assert` (the stage then evaluates them). */
export const hasAssertions = (resource: ResourceMetadata): boolean =>
  resource.asserts !== undefined || resource.properties.some((p) => p.asserts);

/**
 * The violations of the asserts that do not hold for `item` (`previous`: the stored item, null on a create),
 * the resource's first, then each property's in declaration order.
 */
export async function assertionViolations(
  resource: ResourceMetadata,
  item: Item,
  previous: Item | null,
  groups: readonly string[],
  facts: RequestFacts,
): Promise<Violation[]> {
  const out: Violation[] = [];
  const check = async (asserts: Assertion[] | undefined, path: string, value: unknown): Promise<void> => {
    for (const a of asserts ?? []) {
      if (!a.groups.some((g) => groups.includes(g))) continue;
      if (await assertionHolds(a.expression, facts, item, previous, value)) continue;
      const v = violation(path, 'Expression');
      out.push(a.message === undefined ? v : { ...v, message: a.message });
    }
  };
  await check(resource.asserts, '', item);
  for (const p of resource.properties) await check(p.asserts, p.name, item[p.name] ?? null);
  return out;
}

/**
 * The constraint violations and the assert violations together, in validation order: the item's first, then
 * property by property in declaration order, each property's asserts after its other constraints.
 */
export function inValidationOrder(
  resource: ResourceMetadata,
  constraints: Violation[],
  asserts: Violation[],
): Violation[] {
  if (asserts.length === 0) return constraints;
  const order = new Map(resource.properties.map((p, i) => [p.name, i]));
  const rank = (v: Violation): number =>
    v.propertyPath === '' ? -1 : (order.get(v.propertyPath.split(/[[.]/)[0]!) ?? -1);
  return [...constraints, ...asserts].sort((a, b) => rank(a) - rank(b));
}
