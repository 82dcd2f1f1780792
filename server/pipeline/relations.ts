/**
 * Relations hold real items: every relation IRI a write sets must name a stored item of the
 * relation's resource, else the write answers 400 `Item not found for "<iri>".` (docs/behaviour.md,
 * "Relations"). IRIs of another resource or that match no item route were already refused by
 * denormalize(); values the write leaves as they were are not looked up again.
 */
import { badRequest, type Violation } from '../protocol/errors.js';
import { routeIdentifier } from '../protocol/identifier.js';
import type { IriResolver } from '../protocol/iri.js';
import type { ResourceMetadata } from '../metadata/types.js';
import type { Collection, Item } from '../store/types.js';
import { relationViolation } from './denormalize.js';
import { typedValue } from './links.js';

/**
 * Throws the 400 for the first dangling IRI, or, when `collected` is given (collectDenormalizationErrors),
 * adds a violation per dangling IRI to it.
 */
export async function checkRelations(
  resource: ResourceMetadata,
  item: Item,
  previous: Item | null,
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Collection,
  collected?: Violation[],
): Promise<void> {
  for (const property of resource.properties) {
    if (!property.relation) continue;
    const before = new Set(iriList(previous?.[property.name]));
    const value = item[property.name];
    for (const [index, iri] of (Array.isArray(value) ? value : [value]).entries()) {
      if (typeof iri !== 'string' || before.has(iri) || (await exists(iri, iris, collectionOf))) continue;
      const detail = `Item not found for "${iri}".`;
      if (!collected) throw badRequest(detail);
      collected.push(
        relationViolation(
          Array.isArray(value) ? `${property.name}[${index}]` : property.name,
          property.relation,
          detail,
        ),
      );
    }
  }
}

const iriList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');

async function exists(
  iri: string,
  iris: IriResolver,
  collectionOf: (resource: ResourceMetadata) => Collection,
): Promise<boolean> {
  const match = iris.match(iri);
  const id = match?.resource.identifier;
  if (!match || !id) return false;
  const value = routeIdentifier(match.resource, match.variables[id.name] ?? '');
  if (value === undefined) return false;
  // Other route variables (`/authors/{authorId}/books/{id}`) must hold on the item as well.
  const where = Object.entries(match.variables)
    .filter(
      ([name]) => name !== id.name && match.resource.properties.some((p) => p.name === name && !p.relation && !p.array),
    )
    .map(([name, raw]) => ({
      op: 'eq' as const,
      field: name,
      value: typedValue(
        match.resource.properties.find((p) => p.name === name),
        raw,
      ),
    }));
  if (where.some((c) => c.value === undefined)) return false;
  const found = await collectionOf(match.resource).find({
    where: [{ op: 'eq', field: id.name, value }, ...where],
    limit: 1,
  });
  return found.length > 0;
}
