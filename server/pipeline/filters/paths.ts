/**
 * Where a filter's property is (docs/behaviour.md, "Filters on related items"): a property of the filtered
 * resource (`title`), or a path through to-one relations (`author.name`, `book.author.name`) that the checker
 * accepted (grammar/checker/rules/filter-paths.ts). Every face reads filters through this: the runtime, the OpenAPI
 * parameters and QUERY body, the Hydra search template, the GraphQL arguments and the MCP tools.
 */
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';

/** One relation a path goes through: the relation property and the resource it leads to. */
export interface PathStep {
  relation: PropertyMetadata;
  target: ResourceMetadata;
}

export interface FilterTarget {
  /** The last property as the filter kinds see it: named by the whole path (`author.name`), so criteria keys match. */
  prop: PropertyMetadata;
  /** The last property as the target resource declares it. */
  own: PropertyMetadata;
  /** The resource holding the last property. */
  resource: ResourceMetadata;
  /** The relations the path goes through from the filtered resource; empty for its own property. */
  via: PathStep[];
}

/** The property `path` names from `resource`, or undefined when it names none (or goes through no to-one relation). */
export function filterTarget(api: ApiMetadata, resource: ResourceMetadata, path: string): FilterTarget | undefined {
  const segments = path.split('.');
  const via: PathStep[] = [];
  let current = resource;
  for (const segment of segments.slice(0, -1)) {
    const relation = current.properties.find((p) => p.name === segment);
    const target = relation?.relation && !relation.array ? api.resource(relation.relation) : undefined;
    if (!relation || !target) return undefined;
    via.push({ relation, target });
    current = target;
  }
  const own = current.properties.find((p) => p.name === segments[segments.length - 1]);
  if (!own) return undefined;
  return { prop: via.length ? { ...own, name: path } : own, own, resource: current, via };
}
