/**
 * What a valid identifier is (docs/behaviour.md, "Identifiers"): one rule for an identifier a client chooses in
 * a body, an import record's identifier, the URI of PUT with allowCreate, the item routes and relation IRIs, so
 * that an item is never stored under an identifier its IRI cannot reach.
 * - `int`: a positive safe integer, 1 … 2^53 - 1 (a JSON number past that is not exact: two would collide);
 * - `string`: not empty, no `/`, not `.` or `..` (clients remove such path segments), and not ending in a dot
 *   followed by text (the router reads `/books/a.json`, and `/books/v1.2`, as a format extension);
 * - both, for an item to create: matching the `requirements` of the identifier's placeholder on every operation
 *   of the resource (a route already checked its own).
 */
import { optionValue } from '../metadata/options.js';
import type { ResourceMetadata } from '../metadata/types.js';

/** What the router reads as `<id>.<format>` (the `{.:_format}` every route ends with). */
const FORMAT_SUFFIX = /^[^/]+\.(?:[^/.]+|\.)$/s;

const requirementsOf = new WeakMap<ResourceMetadata, RegExp[]>();

/** The `requirements` written for the identifier's placeholder on the resource's operations, as the router reads them. */
function identifierRequirements(resource: ResourceMetadata): RegExp[] {
  let found = requirementsOf.get(resource);
  if (!found) {
    const name = resource.identifier?.name;
    found = [];
    for (const op of resource.operations) {
      const pattern = name && op.path.includes(`{${name}}`) ? optionValue(op, 'requirements')?.[name] : undefined;
      if (pattern !== undefined) found.push(new RegExp(`^(?:${String(pattern)})$`, 'u'));
    }
    requirementsOf.set(resource, found);
  }
  return found;
}

/**
 * Why `value` cannot be an identifier of `resource` (a violation message), or undefined when it can. `forRead`: naming an
 * item on a route that already checked its own requirements, so the other operations' are not applied (an item
 * stored before a requirement was added stays readable where its route allows it).
 */
export function identifierFault(resource: ResourceMetadata, value: unknown, forRead = false): string | undefined {
  const id = resource.identifier;
  if (!id) return 'This resource has no identifier.';
  let text: string;
  if (id.type === 'int') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return 'This value should be of type int.';
    if (value < 1 || value > Number.MAX_SAFE_INTEGER)
      return `This value should be between 1 and ${Number.MAX_SAFE_INTEGER}.`;
    text = String(value);
  } else {
    if (typeof value !== 'string') return 'This value should be of type string.';
    if (value === '') return 'This value should not be blank.';
    if (value.includes('/')) return 'This value should not contain "/".';
    if (value === '.' || value === '..') return 'This value should not be "." or "..".';
    let encoded: string;
    try {
      encoded = encodeURIComponent(value); // as the IRI writes it
    } catch {
      return 'This value should be well-formed Unicode text.';
    }
    if (FORMAT_SUFFIX.test(encoded))
      return 'This value should not end in a dot followed by text (a route reads that as a format extension).';
    text = value;
  }
  const requirement = forRead ? undefined : identifierRequirements(resource).find((re) => !re.test(text));
  if (requirement) return `This value should match the route requirement "${requirement.source.slice(4, -2)}".`;
  return undefined;
}

/**
 * The identifier a route's (decoded) placeholder value names, typed; undefined when it names none. `create`:
 * an item will be created under it (PUT with allowCreate), so every operation's requirements apply.
 */
export function routeIdentifier(resource: ResourceMetadata, raw: string, create = false): number | string | undefined {
  if (resource.identifier?.type === 'int' && !/^\d+$/.test(raw)) return undefined;
  const value = resource.identifier?.type === 'int' ? Number(raw) : raw;
  return identifierFault(resource, value, !create) === undefined ? value : undefined;
}
