/**
 * A filter property may be a path through to-one relations (`author.name`, `book.author.name`: at most two
 * relations), as API Platform's filters take nested properties. The path is read segment by segment from the
 * filtered resource: each segment before the last names a to-one relation of the resource reached so far.
 */
import type { ModelProperty, ModelResource } from '../../model.js';
import { closest, didYouMean } from '../../suggest.js';
import type { CheckContext } from '../check-context.js';

/** Relations a filter path may go through (`book.author.name`). */
export const MAX_FILTER_PATH_RELATIONS = 2;

/** Where a path leads: the last property and its resource, or why it leads nowhere. */
export type FilterPathEnd =
  | { property: ModelProperty; resource: ModelResource; nested: boolean }
  | { problem: 'unknown-property' | 'filter-path'; message: string; suggestion?: string };

/** Follows `path` from `resource`. */
export function followFilterPath(ctx: CheckContext, resource: ModelResource, path: string): FilterPathEnd {
  const segments = path.split('.');
  if (segments.length > MAX_FILTER_PATH_RELATIONS + 1)
    return {
      problem: 'filter-path',
      message: `'${path}' goes through ${segments.length - 1} relations; a filter path goes through at most ${MAX_FILTER_PATH_RELATIONS} (book.author.name)`,
    };
  let current = resource;
  for (const [i, segment] of segments.slice(0, -1).entries()) {
    const found = segmentOf(current, segments, i);
    if ('problem' in found) return found;
    const { property, where } = found;
    const target = property.type === undefined ? undefined : ctx.model.resources.get(property.type);
    if (!target)
      return {
        problem: 'filter-path',
        message: `'${segment}' of ${where} is ${property.type ?? 'untyped'}, not a relation: only the last part of a filter path may be a plain property`,
      };
    if (property.array)
      return {
        problem: 'filter-path',
        message: `'${segment}' of ${where} is a to-many relation (${property.type}[]): a filter path goes through to-one relations only`,
      };
    current = target;
  }
  const last = segmentOf(current, segments, segments.length - 1);
  return 'problem' in last ? last : { property: last.property, resource: current, nested: segments.length > 1 };
}

/** The property segment `i` names on `current`, or the unknown-property finding with the closest name. */
function segmentOf(
  current: ModelResource,
  segments: string[],
  i: number,
): { property: ModelProperty; where: string } | Extract<FilterPathEnd, { problem: string }> {
  const segment = segments[i];
  const where = i === 0 ? `'${current.name}'` : `'${current.name}' (reached by '${segments.slice(0, i).join('.')}')`;
  const property = current.properties.get(segment);
  if (property) return { property, where };
  const closeName = closest(segment, [...current.properties.keys()]);
  const suggestion = closeName && [...segments.slice(0, i), closeName, ...segments.slice(i + 1)].join('.');
  return {
    problem: 'unknown-property',
    message: `'${segment}' is not a property of ${where}${didYouMean(suggestion)}`,
    suggestion,
  };
}
